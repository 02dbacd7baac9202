// Reading, exporting and verifying the audit log; tampering (an edited column, a deleted
// entry, an inserted one, the newest deleted) named by both verifiers: GET /audit/verify
// and `npm run audit:verify`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, DEFAULT_PASSWORD, type TestUser } from '../helpers/factories.js';
import { auditEntries } from './helpers.js';

const run = promisify(execFile);
let t: TestApp;
let admin: TestUser;
let user: TestUser;
beforeAll(async () => {
  t = await buildTestApp({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'cp-audit-')), 'audit.db') });
  admin = await makeAdmin(t);
  user = await makeUser(t);
  for (let i = 0; i < 5; i++) await t.post('/user/token', { body: { email: user.email, password: i % 2 ? DEFAULT_PASSWORD : 'wrong password' } });
});
afterAll(() => t.close());

/** `npm run audit:verify` against the test's database: its exit code and answer. */
async function cliVerify(...args: string[]): Promise<{ code: number; out: any }> {
  const env = { ...process.env, DATABASE_URL: t.dialect === 'postgres' ? (t.app.dbHandle.location) : `sqlite:${t.app.dbHandle.location}`, DATA_DIR: t.config.dataDir, AUDIT_CHAIN_KEY: '' };
  try {
    const { stdout } = await run('npx', ['tsx', 'src/audit/verify-cli.ts', ...args], { env });
    return { code: 0, out: JSON.parse(stdout) };
  } catch (err: any) {
    return { code: err.code, out: err.stdout ? JSON.parse(err.stdout) : err.stderr };
  }
}

const apiVerify = async (query = '') => (await t.get(`/audit/verify${query}`, { token: admin.token })).json();

/** What an intruder does first: the triggers that refuse changes go. */
async function dropTriggers() {
  if (t.dialect === 'postgres') {
    await sql`drop trigger if exists audit_log_no_update on audit_log`.execute(t.db);
    await sql`drop trigger if exists audit_log_no_truncate on audit_log`.execute(t.db);
  } else {
    await sql`drop trigger if exists audit_log_no_update`.execute(t.db);
    await sql`drop trigger if exists audit_log_no_delete`.execute(t.db);
  }
}

describe('reading the audit log', () => {
  it('is for Admins: 401 anonymous, 403 others', async () => {
    expect((await t.get('/audit')).statusCode).toBe(401);
    expect((await t.get('/audit', { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/audit/verify', { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/audit/export', { token: user.token })).statusCode).toBe(403);
  });

  it('filters newest first and pages with a cursor', async () => {
    const res = await t.get(`/audit?resource_type=user&resource_id=${user.userid}&limit=2`, { token: admin.token });
    expect(res.statusCode).toBe(200);
    const first = res.json();
    expect(first.entries).toHaveLength(2);
    expect(first.entries[0].auditid).toBeGreaterThan(first.entries[1].auditid);
    expect(first.next).toEqual(expect.any(String));
    const all: number[] = first.entries.map((e: any) => e.auditid);
    let next = first.next;
    while (next) {
      const page = (await t.get(`/audit?resource_type=user&resource_id=${user.userid}&limit=2&cursor=${next}`, { token: admin.token })).json();
      all.push(...page.entries.map((e: any) => e.auditid));
      next = page.next;
    }
    expect(all).toHaveLength(5);
    expect(new Set(all).size).toBe(5);
    const failed = (await t.get(`/audit?action=user.login_failed&userid=${user.userid}`, { token: admin.token })).json();
    expect(failed.entries).toHaveLength(3);
    expect((await t.get('/audit?limit=201', { token: admin.token })).statusCode).toBe(422);
    expect((await t.get('/audit?cursor=nonsense', { token: admin.token })).statusCode).toBe(422);
    expect((await t.get('/audit?action=no.such', { token: admin.token })).statusCode).toBe(422);
    const future = (await t.get(`/audit?since=${t.clock.now() + 10}`, { token: admin.token })).json();
    expect(future.entries).toEqual([]);
  });

  it('exports the selection as JSON lines and CSV', async () => {
    const jsonl = await t.get(`/audit/export?format=jsonl&resource_type=user&resource_id=${user.userid}`, { token: admin.token });
    expect(jsonl.statusCode).toBe(200);
    expect(jsonl.headers['content-type']).toContain('application/x-ndjson');
    const lines = jsonl.body.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5);
    const csv = await t.get(`/audit/export?format=csv&resource_type=user&resource_id=${user.userid}`, { token: admin.token });
    expect(csv.headers['content-type']).toContain('text/csv');
    const rows = csv.body.trim().split('\n');
    expect(rows[0]).toMatch(/^auditid,time,db_time,userid/);
    expect(rows).toHaveLength(6);
  });

  it('the server never updates or deletes an entry (triggers)', async () => {
    await expect(sql`update audit_log set reason = 'x'`.execute(t.db)).rejects.toThrow();
    await expect(sql`delete from audit_log`.execute(t.db)).rejects.toThrow();
    if (t.dialect === 'postgres') await expect(sql`truncate audit_log`.execute(t.db)).rejects.toThrow();
  });
});

describe('verifying the chain', () => {
  it('holds, and names an edited column, a deleted entry and an inserted one; the newest deleted against a recorded head', { timeout: 120_000 }, async () => {
    const good = await apiVerify();
    expect(good).toMatchObject({ ok: true, head: { auditid: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(good.entries).toBeGreaterThanOrEqual(5);
    const cliGood = await cliVerify();
    expect(cliGood).toEqual({ code: 0, out: good });
    const from = await apiVerify('?from=3');
    expect(from).toMatchObject({ ok: true, entries: good.entries - 2, head: good.head });

    await dropTriggers();
    const entries = await auditEntries(t);
    const victim = entries[2];

    // An edited column.
    await sql`update audit_log set userid = ${admin.userid} where auditid = ${victim.auditid}`.execute(t.db);
    const edited = await apiVerify();
    expect(edited).toMatchObject({ ok: false, first_bad_auditid: victim.auditid });
    expect(edited.reason).toContain('hash');
    const cliEdited = await cliVerify();
    expect(cliEdited.code).toBe(1);
    expect(cliEdited.out).toEqual(edited);
    await sql`update audit_log set userid = ${victim.userid} where auditid = ${victim.auditid}`.execute(t.db);
    expect((await apiVerify()).ok).toBe(true);

    // A deleted entry.
    await t.db.deleteFrom('audit_log').where('auditid', '=', victim.auditid).execute();
    const deleted = await apiVerify();
    expect(deleted).toMatchObject({ ok: false, first_bad_auditid: victim.auditid });
    expect(deleted.reason).toContain('missing');
    await t.db.insertInto('audit_log').values(victim).execute();
    expect((await apiVerify()).ok).toBe(true);

    // An inserted entry, chained to the head but hashed without the key.
    const head = entries[entries.length - 1];
    const forged = { ...head, auditid: head.auditid + 1, prev_hash: head.hash, hash: 'f'.repeat(64), action: 'user.login' };
    await t.db.insertInto('audit_log').values(forged).execute();
    const inserted = await apiVerify();
    expect(inserted).toMatchObject({ ok: false, first_bad_auditid: forged.auditid });
    await t.db.deleteFrom('audit_log').where('auditid', '=', forged.auditid).execute();

    // The newest entries deleted: the chain that is left holds, but not against the head recorded before.
    const recorded = `${head.auditid}:${head.hash}`;
    await t.db.deleteFrom('audit_log').where('auditid', '>=', head.auditid - 1).execute();
    expect((await apiVerify()).ok).toBe(true);
    const truncated = await apiVerify(`?expect_head=${recorded}`);
    expect(truncated).toMatchObject({ ok: false, first_bad_auditid: head.auditid - 1 });
    const cliTruncated = await cliVerify('--expect-head', recorded);
    expect(cliTruncated.code).toBe(1);
    expect(cliTruncated.out).toEqual(truncated);
  });
});
