// The audit log of accounts: registration, logins and failed logins, impersonation, and an
// Admin's changes (privileges, enabled, banned, e-mail, password), each with its actor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, DEFAULT_PASSWORD, type TestUser } from '../helpers/factories.js';
import { auditCount, auditEntries } from './helpers.js';

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
