// Concurrent writers leave one chain in commit order: 50 changes at once (on PostgreSQL
// through a pool of five connections, appending under the chain's advisory lock) verify.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../helpers/factories.js';

let t: TestApp;
let admin: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await makeAdmin(t);
});
afterAll(() => t.close());

describe('concurrent writers', () => {
  it('50 changes at once leave a gapless chain that verifies', { timeout: 120_000 }, async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => makeUser(t)));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => {
      const u = users[i % users.length];
      return i % 2
        ? t.patch(`/users/${u.userid}`, { token: admin.token, body: { enabled: i % 4 === 1 ? false : true } })
        : t.post('/user/token', { body: { email: u.email, password: `wrong ${i}` } });
    }));
    for (const a of answers) expect([200, 401]).toContain(a.statusCode);
    const verified = (await t.get('/audit/verify', { token: admin.token })).json();
    expect(verified.ok).toBe(true);
    const ids = (await t.db.selectFrom('audit_log').select('auditid').orderBy('auditid').execute()).map((r) => Number(r.auditid));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(verified.entries).toBe(ids.length);
    // Every failed login has its entry.
    const failed = await t.db.selectFrom('audit_log').select('auditid').where('action', '=', 'user.login_failed').execute();
    expect(failed).toHaveLength(25);
  });
});
