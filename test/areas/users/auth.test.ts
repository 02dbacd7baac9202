import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';

let admin: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
});

describe('POST /user/token', () => {
  it('logs in by e-mail or unique username and answers 201 with the user and a token', async () => {
    const u = await makeUser(t, { unique_username: 'loginname' });
    const res = await t.post('/user/token', { body: { email: u.email, password: u.password } });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ userid: u.userid, username: u.username, unique_username: 'loginname', privileges: ['User'], teams: [] });
    expect(body.authToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.links.self).toContain(`/users/${u.userid}`);
    const me = await t.get('/user', { token: body.authToken });
    expect(me.statusCode).toBe(200);
    expect(me.json().userid).toBe(u.userid);
    const byLogin = await t.post('/user/token', { body: { login: 'loginname', password: u.password } });
    expect(byLogin.statusCode).toBe(201);
  });

  it('stores only a hash of the token', async () => {
    const u = await makeUser(t);
    const { authToken } = (await t.post('/user/token', { body: { email: u.email, password: u.password } })).json();
    const rows = await t.db.selectFrom('tokens').select('token_hash').where('userid', '=', u.userid).execute();
    expect(rows.some((r) => r.token_hash === authToken)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  it('never logs in by display name', async () => {
    const u = await makeUser(t, { username: 'Display Name' });
    expect((await t.post('/user/token', { body: { login: 'Display Name', password: u.password } })).statusCode).toBe(401);
  });

  it('answers 401 with the same message for a wrong password and an unknown e-mail', async () => {
    const u = await makeUser(t);
    const wrong = await t.post('/user/token', { body: { email: u.email, password: 'not the password' } });
    const unknown = await t.post('/user/token', { body: { email: 'nobody@example.com', password: 'whatever123' } });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().message).toBe(unknown.json().message);
  });

  it('422 without credentials', async () => {
    const res = await t.post('/user/token', { body: { password: 'x' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'email', code: 'missing_field' });
    expect((await t.post('/user/token', { body: { email: 'a@b.c' } })).json().errors[0]).toMatchObject({ field: 'password', code: 'missing_field' });
  });

  it('refuses a disabled account', async () => {
    const u = await makeUser(t);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', u.userid).execute();
    expect((await t.post('/user/token', { body: { email: u.email, password: u.password } })).statusCode).toBe(403);
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(401);
  });
});

describe('tokens', () => {
  it('accepts Bearer as well as api', async () => {
    const u = await makeUser(t);
    const res = await t.get('/user', { headers: { authorization: `Bearer ${u.token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('401 for a malformed, unknown, expired or revoked token', async () => {
    expect((await t.get('/user', { headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);
    expect((await t.get('/user', { token: 'nope' })).statusCode).toBe(401);
    expect((await t.get('/user')).statusCode).toBe(401);
    const u = await makeUser(t);
    t.clock.advance(t.config.tokenTtl + 1);
    try {
      expect((await t.get('/user', { token: u.token })).statusCode).toBe(401);
    } finally {
      t.clock.advance(-(t.config.tokenTtl + 1));
    }
    const v = await makeUser(t);
    const out = await t.del('/user/token', { token: v.token });
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    expect((await t.get('/user', { token: v.token })).statusCode).toBe(401);
  });

  it('a bad token is refused even on public routes', async () => {
    expect((await t.get('/users', { token: 'garbage' })).statusCode).toBe(401);
  });
});

describe('POST /user/token/impersonate', () => {
  it('gives an Admin a token for another user', async () => {
    const u = await makeUser(t);
    const res = await t.post('/user/token/impersonate', { token: admin.token, body: { userid: u.userid } });
    expect(res.statusCode).toBe(201);
    const token = res.json().authToken;
    expect((await t.get('/user', { token })).json().userid).toBe(u.userid);
    const row = await t.db.selectFrom('tokens').select('impersonated_by').where('userid', '=', u.userid).where('impersonated_by', 'is not', null).executeTakeFirst();
    expect(row?.impersonated_by).toBe(admin.userid);
  });

  it('401 without a token, 403 for a non-Admin, 404 for an unknown user, 422 for a bad body', async () => {
    const u = await makeUser(t);
    expect((await t.post('/user/token/impersonate', { body: { userid: u.userid } })).statusCode).toBe(401);
    expect((await t.post('/user/token/impersonate', { token: u.token, body: { userid: admin.userid } })).statusCode).toBe(403);
    expect((await t.post('/user/token/impersonate', { token: admin.token, body: { userid: 99999 } })).statusCode).toBe(404);
    expect((await t.post('/user/token/impersonate', { token: admin.token, body: { userid: 'x' } })).statusCode).toBe(422);
  });
});

describe('POST /users (register)', () => {
  it('with public registration off, only an Admin registers accounts', async () => {
    const body = { email: 'new1@example.com', password: 'long enough pw', username: 'New One' };
    expect((await t.post('/users', { body })).statusCode).toBe(401);
    const u = await makeUser(t);
    expect((await t.post('/users', { body, token: u.token })).statusCode).toBe(403);
    const res = await t.post('/users', { body, token: admin.token });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ username: 'New One', email: 'new1@example.com' });
    expect(res.json().authToken).toBeTruthy();
    const created = await t.get('/users/created_users', { token: admin.token });
    expect(created.json().map((x: { userid: number }) => x.userid)).toContain(res.json().userid);
  });

  it('validates e-mail, password length, unique username and duplicates', async () => {
    const ok = { email: 'dup@example.com', password: 'long enough pw', username: 'Dup', unique_username: 'dup_user' };
    expect((await t.post('/users', { body: ok, token: admin.token })).statusCode).toBe(201);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...ok, email: 'other@example.com' }, 'unique_username', 'duplicate'],
      [{ ...ok, unique_username: 'dup_other' }, 'email', 'duplicate'],
      [{ ...ok, email: 'DUP@example.com', unique_username: 'dup_third' }, 'email', 'duplicate'],
      [{ ...ok, email: 'x1@example.com', unique_username: 'Bad Name' }, 'unique_username', 'invalid_value'],
      [{ ...ok, email: 'x2@example.com', unique_username: '_under' }, 'unique_username', 'invalid_value'],
      [{ ...ok, email: 'x3@example.com', unique_username: undefined, password: 'short' }, 'password', 'out_of_range'],
      [{ ...ok, email: 'not-an-email', unique_username: undefined }, 'email', 'invalid_value'],
      [{ password: 'long enough pw', username: 'x' }, 'email', 'missing_field'],
    ];
    for (const [body, field, code] of cases) {
      const res = await t.post('/users', { body, token: admin.token });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors[0], JSON.stringify(body)).toMatchObject({ field, code });
    }
    const count = await t.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('email', 'like', 'x%@example.com').executeTakeFirst();
    expect(Number(count?.n)).toBe(0);
  });
});

describe('public registration and app ids', () => {
  it('lets anyone register with a configured app id, and refuses a forged one', async () => {
    const t2 = await buildTestApp({ config: { publicRegistration: true, appIds: ['mobile-app'] } });
    try {
      const body = { email: 'open@example.com', password: 'long enough pw', username: 'Open' };
      expect((await t2.post('/users', { body })).statusCode).toBe(401);
      expect((await t2.post('/users', { body, headers: { 'x-app-id': 'forged' } })).statusCode).toBe(401);
      const res = await t2.post('/users', { body, headers: { 'x-app-id': 'mobile-app' } });
      expect(res.statusCode).toBe(201);
      expect((await t2.post('/user/token', { body: { email: 'open@example.com', password: 'long enough pw' } })).statusCode).toBe(401);
      expect((await t2.post('/user/token', { body: { email: 'open@example.com', password: 'long enough pw' }, headers: { 'x-app-id': 'mobile-app' } })).statusCode).toBe(201);
    } finally {
      await t2.close();
    }
  });
});

describe('password reset', () => {
  it('answers the same for known and unknown addresses, queues a mail, and completes with the token', async () => {
    const u = await makeUser(t);
    const known = await t.post('/users/reset_password', { body: { email: u.email } });
    const unknown = await t.post('/users/reset_password', { body: { email: 'nobody-here@example.com' } });
    expect(known.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
    const job = await t.db.selectFrom('jobs').selectAll().where('type', '=', 'mail.send').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
    const mail = JSON.parse(job.payload);
    expect(mail.to).toBe(u.email);
    const token = /"token": "([^"]+)"/.exec(mail.text)![1];
    expect(await t.app.jobs.runDue()).toBeGreaterThanOrEqual(1);
    expect((await t.db.selectFrom('jobs').select('status').where('jobid', '=', job.jobid).executeTakeFirstOrThrow()).status).toBe('done');

    const done = await t.post('/users/reset_password/complete', { body: { token, password: 'a brand new password' } });
    expect(done.statusCode).toBe(200);
    expect(done.json().authToken).toBeTruthy();
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(401); // old sessions end
    expect((await t.post('/user/token', { body: { email: u.email, password: 'a brand new password' } })).statusCode).toBe(201);
    const again = await t.post('/users/reset_password/complete', { body: { token, password: 'another password' } });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0].field).toBe('token');
  });

  it('refuses an expired reset token and a short password', async () => {
    const u = await makeUser(t);
    await t.post('/users/reset_password', { body: { email: u.email } });
    const job = await t.db.selectFrom('jobs').selectAll().where('type', '=', 'mail.send').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
    const token = /"token": "([^"]+)"/.exec(JSON.parse(job.payload).text)![1];
    expect((await t.post('/users/reset_password/complete', { body: { token, password: 'short' } })).statusCode).toBe(422);
    t.clock.advance(3601);
    expect((await t.post('/users/reset_password/complete', { body: { token, password: 'long enough pw' } })).statusCode).toBe(422);
  });
});

describe('rate limiting', () => {
  it('429 with Retry-After past LOGIN_RATE_LIMIT attempts a minute', async () => {
    const t2 = await buildTestApp({ config: { loginRateLimit: 3 } });
    try {
      const body = { email: 'x@example.com', password: 'wrong password' };
      for (let i = 0; i < 3; i++) expect((await t2.post('/user/token', { body })).statusCode).toBe(401);
      const res = await t2.post('/user/token', { body });
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.json()).toMatchObject({ error: true, code: 'rate_limited' });
    } finally {
      await t2.close();
    }
  });
});
