// The token rules (docs/development.md, "Tokens and accounts"): impersonation needs an enabled Admin
// behind it; a password change or reset ends every token whose password was checked
// before it, even one issued after it; reset tokens end with a reset, a new password or a
// new address; a long write re-checks its token before it commits.
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { solid } from '../../helpers/factories/media.js';
import { findUserByLogin } from '../../../src/areas/users/users.queries.js';
import { verifyPassword } from '../../../src/http/passwords.js';
import { issueToken } from '../../../src/areas/users/users.service.js';
import { loadConfig } from '../../../src/config.js';

let root: TestUser;
const t = appForFile({}, async () => {
  root = await makeAdmin(t);
});

const works = async (token: string) => (await t.get('/user', { token })).statusCode === 200;

async function impersonate(admin: TestUser, userid: number): Promise<string> {
  const res = await t.post('/user/token/impersonate', { token: admin.token, body: { userid } });
  expect(res.statusCode).toBe(201);
  return res.json().authToken as string;
}

/** The token of the newest reset mail to `email`. */
async function resetToken(email: string): Promise<string> {
  expect((await t.post('/users/reset_password', { body: { email } })).statusCode).toBe(200);
  const job = await t.db.selectFrom('jobs').select('payload').where('type', '=', 'mail.send').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
  const mail = JSON.parse(job.payload);
  expect(mail.to).toBe(email);
  return /"token": "([^"]+)"/.exec(mail.text)![1];
}

const completeReset = (token: string, password: string) => t.post('/users/reset_password/complete', { body: { token, password } });

describe('impersonation lives only while its impersonator is an enabled Admin', () => {
  it('demoting and disabling the impersonator ends the token; it cannot re-promote them', async () => {
    const a = await makeAdmin(t);
    const b = await makeAdmin(t);
    const asB = await impersonate(a, b.userid);
    expect(await works(asB)).toBe(true);
    const demote = await t.patch(`/users/${a.userid}`, { token: root.token, body: { privileges: ['User'], enabled: false } });
    expect(demote.statusCode).toBe(200);
    expect(await works(a.token)).toBe(false);
    const out = await t.get('/user', { token: asB });
    expect(out.statusCode).toBe(401);
    expect(out.json().code).toBe('invalid_token');
    const repromote = await t.patch(`/users/${a.userid}`, { token: asB, body: { privileges: ['Admin', 'User'], enabled: true } });
    expect(repromote.statusCode).toBe(401);
    const row = await t.db.selectFrom('users').select(['privileges', 'enabled']).where('userid', '=', a.userid).executeTakeFirstOrThrow();
    expect(row).toEqual({ privileges: 'User', enabled: 0 });
    // Revoked for good: restoring A does not bring the old impersonation back.
    expect((await t.patch(`/users/${a.userid}`, { token: root.token, body: { privileges: ['Admin', 'User'], enabled: true } })).statusCode).toBe(200);
    expect(await works(asB)).toBe(false);
    const revoked = await t.db.selectFrom('tokens').select('revoked_date').where('impersonated_by', '=', a.userid).execute();
    expect(revoked.length).toBe(1);
    expect(revoked[0].revoked_date).not.toBeNull();
  });

  it('demoting, disabling or banning one alone ends the tokens they made', async () => {
    for (const change of [{ privileges: ['Author', 'User'] }, { enabled: false }, { banned: true }]) {
      const a = await makeAdmin(t);
      const u = await makeUser(t);
      const asU = await impersonate(a, u.userid);
      expect(await works(asU)).toBe(true);
      expect((await t.patch(`/users/${a.userid}`, { token: root.token, body: change })).statusCode).toBe(200);
      expect(await works(asU), JSON.stringify(change)).toBe(false);
      expect(await works(u.token)).toBe(true); // the user's own sessions are not touched
    }
  });

  it('is checked on every use: a change made behind the API, or a deleted impersonator, ends the token too', async () => {
    const cases: Array<[string, (userid: number) => Promise<unknown>]> = [
      ['privileges', (id) => t.db.updateTable('users').set({ privileges: 'User' }).where('userid', '=', id).execute()],
      ['enabled', (id) => t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', id).execute()],
      ['banned', (id) => t.db.updateTable('users').set({ banned: 1_700_000_000 }).where('userid', '=', id).execute()],
      ['deleted', (id) => t.db.deleteFrom('users').where('userid', '=', id).execute()],
    ];
    for (const [what, change] of cases) {
      const a = await makeAdmin(t);
      const u = await makeUser(t);
      const asU = await impersonate(a, u.userid);
      await change(a.userid);
      expect(await works(asU), what).toBe(false);
    }
  });
});

describe('reset tokens end with a reset, a new password or a new address', () => {
  it('of two resets requested, completing the first ends the second', async () => {
    const u = await makeUser(t);
    const first = await resetToken(u.email);
    const second = await resetToken(u.email);
    expect((await completeReset(first, 'first new password')).statusCode).toBe(200);
    const res = await completeReset(second, 'second new password');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('token');
    expect((await t.post('/user/token', { body: { email: u.email, password: 'first new password' } })).statusCode).toBe(201);
  });

  it('changing the e-mail ends the tokens mailed to the old address; so does a new password', async () => {
    const u = await makeUser(t);
    const token = await resetToken(u.email);
    const moved = await t.patch(`/users/${u.userid}`, { token: u.token, body: { email: `moved-${u.email}`, current_password: u.password } });
    expect(moved.statusCode).toBe(200);
    expect((await completeReset(token, 'taken over password')).statusCode).toBe(422);
    expect((await t.post('/user/token', { body: { email: `moved-${u.email}`, password: u.password } })).statusCode).toBe(201);

    const v = await makeUser(t);
    const old = await resetToken(v.email);
    expect((await t.patch(`/users/${v.userid}`, { token: v.token, body: { password: 'a changed password', current_password: v.password } })).statusCode).toBe(200);
    expect((await completeReset(old, 'taken over password')).statusCode).toBe(422);
    // A reset asked for after the change works.
    expect((await completeReset(await resetToken(v.email), 'reset after the change')).statusCode).toBe(200);
  });

  it('an Admin changing the address or password ends them too', async () => {
    const u = await makeUser(t);
    const token = await resetToken(u.email);
    expect((await t.patch(`/users/${u.userid}`, { token: root.token, body: { email: `admin-moved-${u.email}` } })).statusCode).toBe(200);
    expect((await completeReset(token, 'taken over password')).statusCode).toBe(422);
  });
});

describe('a password change or reset ends the tokens of logins that checked the old password', () => {
  it('a login whose password was checked before the change gets a token that does not work', async () => {
    const u = await makeUser(t);
    // The steps of POST /user/token, with the change between the check and the issue.
    const row = (await findUserByLogin(t.db, u.email))!;
    expect(await verifyPassword(u.password, row.password_hash)).toBe(true);
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { password: 'changed meanwhile', current_password: u.password } })).statusCode).toBe(200);
    const { token } = await issueToken(t.db, t.config, t.clock, u.userid, { credentialsVersion: row.credentials_version });
    expect(await works(token)).toBe(false);
    expect(await works(u.token)).toBe(true); // the session that changed it goes on
  });

  it.each(['password change', 'password reset'] as const)('40 logins with the old password racing a %s: none of their tokens works after it', async (how) => {
    const u = await makeUser(t);
    const reset = how === 'password reset' ? await resetToken(u.email) : null;
    const login = () => t.post('/user/token', { body: { email: u.email, password: u.password } });
    const change = () => reset
      ? completeReset(reset, 'the new password')
      : t.patch(`/users/${u.userid}`, { token: u.token, body: { password: 'the new password', current_password: u.password } });
    // Logins sent one event-loop turn apart, the change among them, as clients send them.
    const logins: Array<ReturnType<typeof login>> = [];
    let changed: ReturnType<typeof change> | undefined;
    for (let i = 0; i < 40; i++) {
      if (i === 10) changed = change();
      logins.push(login());
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answers = await Promise.all(logins);
    expect((await changed!).statusCode).toBe(200);
    const tokens = answers.filter((r) => r.statusCode === 201).map((r) => r.json().authToken as string);
    expect(answers.every((r) => r.statusCode === 201 || r.statusCode === 401)).toBe(true);
    expect(tokens.length).toBeGreaterThan(0);
    const working = (await Promise.all(tokens.map(works))).filter(Boolean).length;
    expect(working, `${working} of ${tokens.length} tokens from the old password still work`).toBe(0);
    expect((await t.post('/user/token', { body: { email: u.email, password: 'the new password' } })).statusCode).toBe(201);
  });
});

describe('a long write re-checks its token before it commits', () => {
  /** Starts an upload whose body waits after its first bytes; answers once the handler reads it. */
  async function startUpload(user: TestUser) {
    const data = await solid(320, 240, { r: 10, g: 120, b: 200 }, 'png');
    let firstRead!: () => void;
    const reading = new Promise<void>((resolve) => (firstRead = resolve));
    let pushed = false;
    const source = new Readable({
      read() {
        if (pushed) return;
        pushed = true;
        this.push(data.subarray(0, 64));
        firstRead();
      },
    });
    const answer = t.post('/user/media/uploads?file=slow.png', { token: user.token, payload: source, headers: { 'content-type': 'application/octet-stream' } });
    await reading; // the token was checked at the start: the body is being read
    return {
      answer,
      finish() {
        source.push(data.subarray(64));
        source.push(null);
        return answer;
      },
    };
  }
  const itemsOf = async (userid: number) => (await t.db.selectFrom('media_items').select('objectid').where('userid', '=', userid).execute()).length;

  it('an upload still running when its token is revoked is refused and stores nothing', async () => {
    const u = await makeUser(t);
    const control = await startUpload(u);
    expect((await control.finish()).statusCode).toBe(200);
    expect(await itemsOf(u.userid)).toBe(1);

    const upload = await startUpload(u);
    expect((await t.del('/user/token', { token: u.token })).statusCode).toBe(204);
    const res = await upload.finish();
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
    expect(await itemsOf(u.userid)).toBe(1);
    expect((await t.db.selectFrom('images').select('imageid').where('userid', '=', u.userid).execute()).length).toBe(1);
  });

  it('a password change during the upload refuses it as well', async () => {
    const u = await makeUser(t);
    const other = (await t.post('/user/token', { body: { email: u.email, password: u.password } })).json().authToken as string;
    const upload = await startUpload(u);
    expect((await t.patch(`/users/${u.userid}`, { token: other, body: { password: 'changed during upload', current_password: u.password } })).statusCode).toBe(200);
    expect((await upload.finish()).statusCode).toBe(401);
    expect(await itemsOf(u.userid)).toBe(0);
  });
});

describe('Authorization, app ids', () => {
  it('an empty Authorization header is no header: login, public reads and registration work', async () => {
    const u = await makeUser(t);
    for (const authorization of ['', '   ']) {
      expect((await t.post('/user/token', { body: { email: u.email, password: u.password }, headers: { authorization } })).statusCode).toBe(201);
      expect((await t.get('/users', { headers: { authorization } })).statusCode).toBe(200);
      const me = await t.get('/user', { headers: { authorization } });
      expect(me.statusCode).toBe(401);
      expect(me.json().code).toBe('unauthorized');
    }
  });

  it('public registration without APP_IDS does not start, with a message naming APP_IDS', () => {
    expect(() => loadConfig({ PUBLIC_REGISTRATION: 'true' })).toThrow(/PUBLIC_REGISTRATION=true needs APP_IDS/);
    expect(loadConfig({ PUBLIC_REGISTRATION: 'true', APP_IDS: 'mobile' }).appIds).toEqual(['mobile']);
    const dir = mkdtempSync(join(tmpdir(), 'cp-start-'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: process.env.PATH, PUBLIC_REGISTRATION: 'true', DATA_DIR: dir, PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('PUBLIC_REGISTRATION=true needs APP_IDS');
  });

  it('with public registration, register and login need a valid X-App-Id', async () => {
    // A configuration built without loadConfig (no app ids at all) refuses rather than lets anyone in.
    const open = await buildTestApp({ config: { publicRegistration: true, appIds: [] } });
    try {
      const body = { email: 'open-reg@example.com', password: 'long enough pw', username: 'Open' };
      const res = await open.post('/users', { body });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('invalid_app_id');
      expect(await open.db.selectFrom('users').select('userid').where('email', '=', body.email).executeTakeFirst()).toBeUndefined();
      const u = await makeUser(open);
      expect((await open.post('/user/token', { body: { email: u.email, password: u.password } })).json().code).toBe('invalid_app_id');
    } finally {
      await open.close();
    }
  });
});
