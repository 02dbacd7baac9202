// The audit log of accounts: registration, logins and failed logins, impersonation, and an
// Admin's changes (privileges, enabled, banned, e-mail, password), each with its actor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, DEFAULT_PASSWORD, type TestUser } from '../helpers/factories.js';
import { auditCount, auditEntries } from './helpers.js';
import { statementsOf } from '../helpers/capture-statements.js';

let t: TestApp;
let admin: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await makeAdmin(t);
});
afterAll(() => t.close());

describe('audit log of accounts', () => {
  it('records a login with the account and the request, and a failed one without the login string', async () => {
    const user = await makeUser(t);
    const ok = await t.post('/user/token', { body: { email: user.email, password: DEFAULT_PASSWORD } });
    expect(ok.statusCode).toBe(201);
    const [login] = await auditEntries(t, { action: 'user.login', resource_id: user.userid });
    expect(login).toMatchObject({ userid: user.userid, resource_type: 'user', impersonator_userid: null, request_id: ok.headers['x-request-id'] });
    expect(login.client_ip).toBeTruthy();
    expect(login.hash).toMatch(/^[0-9a-f]{64}$/);

    const bad = await t.post('/user/token', { body: { email: user.email, password: 'wrong password' } });
    expect(bad.statusCode).toBe(401);
    const [failed] = await auditEntries(t, { action: 'user.login_failed', resource_id: user.userid });
    expect(failed).toMatchObject({ userid: user.userid, changes: null });

    const unknown = await t.post('/user/token', { body: { email: 'nobody-here@example.com', password: 'whatever' } });
    expect(unknown.statusCode).toBe(401);
    const all = await auditEntries(t, { action: 'user.login_failed' });
    const anonymous = all.find((e) => e.request_id === unknown.headers['x-request-id'])!;
    expect(anonymous).toMatchObject({ userid: null, resource_id: '' });
    expect(JSON.stringify(anonymous)).not.toContain('nobody-here');
  });

  it('records an Admin\'s changes of an account, one entry per kind, and none for a PATCH that changes nothing', async () => {
    const user = await makeUser(t);
    const patch = await t.patch(`/users/${user.userid}`, { token: admin.token, body: { privileges: ['Author', 'User'], enabled: false, email: `x${user.email}`, password: 'a new password 123', about: 'not controlled' } });
    expect(patch.statusCode).toBe(200);
    const entries = await auditEntries(t, { resource_type: 'user', resource_id: user.userid });
    expect(entries.map((e) => e.action).sort()).toEqual(['user.disabled', 'user.email_changed', 'user.password_changed', 'user.privileges_changed']);
    for (const e of entries) expect(e).toMatchObject({ userid: admin.userid, request_id: patch.headers['x-request-id'] });
    const email = entries.find((e) => e.action === 'user.email_changed')!;
    expect(JSON.parse(email.changes!)).toEqual({ email: { old: user.email, new: `x${user.email}` } });
    const password = entries.find((e) => e.action === 'user.password_changed')!;
    expect(password.changes).toBe('{"password":{}}');
    expect(JSON.stringify(entries)).not.toContain('a new password');

    const before = await auditCount(t);
    expect((await t.patch(`/users/${user.userid}`, { token: admin.token, body: { enabled: false } })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(before);
  });

  it('a change that fails writes no entry', async () => {
    const user = await makeUser(t);
    const other = await makeUser(t);
    const before = await auditCount(t);
    const clash = await t.patch(`/users/${user.userid}`, { token: admin.token, body: { enabled: false, email: other.email } });
    expect(clash.statusCode).toBe(422);
    expect(await auditCount(t)).toBe(before);
  });

  it('an impersonation names the Admin, and changes through its token name both accounts', async () => {
    const user = await makeUser(t);
    const imp = await t.post('/user/token/impersonate', { token: admin.token, body: { userid: user.userid } });
    expect(imp.statusCode).toBe(201);
    const [entry] = await auditEntries(t, { action: 'user.impersonated', resource_id: user.userid });
    expect(entry).toMatchObject({ userid: admin.userid, resource_type: 'user' });
    const change = await t.patch(`/users/${user.userid}`, { token: imp.json().authToken, body: { email: `imp${user.email}`, current_password: DEFAULT_PASSWORD } });
    expect(change.statusCode).toBe(200);
    const [changed] = await auditEntries(t, { action: 'user.email_changed', resource_id: user.userid });
    expect(changed).toMatchObject({ userid: user.userid, impersonator_userid: admin.userid });
  });

  it('records a registration and a password reset', async () => {
    const reg = await t.post('/users', { token: admin.token, body: { email: 'audited-reg@example.com', password: 'a long password 1', username: 'Reg' } });
    expect(reg.statusCode).toBe(201);
    const [created] = await auditEntries(t, { action: 'user.created', resource_id: reg.json().userid });
    expect(created).toMatchObject({ userid: admin.userid, resource_type: 'user' });
  });
});

const writes = (sql: string[]) => sql.filter((q) => /^\s*(insert|update|delete|begin|commit|savepoint|release|rollback)\b/i.test(q));

describe('what auditing a login costs', () => {
  // Logins are audited without slowing the login path beyond its password hash: the entry is
  // appended in the transaction that issues the token (at its commit: on PostgreSQL the chain's
  // lock, then the head read and the entry written), never in a transaction or round trip of its own.
  const postgres = () => t.app.dbHandle.dialect === 'postgres';

  it('a login is its attempt counted, one account read, then one transaction: the token, and the entry appended at its commit', async () => {
    const user = await makeUser(t);
    const sql = await statementsOf(t, async () => {
      const ok = await t.post('/user/token', { body: { email: user.email, password: DEFAULT_PASSWORD } });
      expect(ok.statusCode).toBe(201);
    });
    const begin = sql.findIndex((q) => /^begin/i.test(q));
    const commit = sql.findIndex((q) => /^commit/i.test(q));
    // The address's attempt counted (one statement, shared by every node: http/rate-limits.ts),
    // then the account, read once (with the hash checked), before the transaction.
    expect(sql.slice(0, begin)).toEqual([expect.stringMatching(/^insert into "rate_limit_counts"/), expect.stringMatching(/^select \* from "users" where/)]);
    expect(sql.slice(begin + 1, commit)).toEqual([
      expect.stringMatching(/^insert into "tokens"/),
      ...(postgres() ? [expect.stringMatching(/pg_advisory_xact_lock/)] : []),
      expect.stringMatching(/from audit_log order by auditid desc limit 1/),
      expect.stringMatching(/^insert into audit_log/),
    ]);
    // One transaction, and nothing written after it (the answer's record only reads).
    expect(writes(sql)).toEqual([sql[0], sql[begin], sql[begin + 1], sql[commit - 1], sql[commit]]);
  });

  it('a failed login is its attempt counted, the account read, then one transaction of its entry alone', async () => {
    const user = await makeUser(t);
    const sql = await statementsOf(t, async () => {
      const bad = await t.post('/user/token', { body: { email: user.email, password: 'not the password' } });
      expect(bad.statusCode).toBe(401);
    });
    expect(sql).toEqual([
      expect.stringMatching(/^insert into "rate_limit_counts"/),
      expect.stringMatching(/^select \* from "users" where/),
      expect.stringMatching(/^begin/i),
      ...(postgres() ? [expect.stringMatching(/pg_advisory_xact_lock/)] : []),
      expect.stringMatching(/from audit_log order by auditid desc limit 1/),
      expect.stringMatching(/^insert into audit_log/),
      expect.stringMatching(/^commit/i),
    ]);
  });
});
