// Rate limits are counted in the database (http/rate-limits.ts, http/login-attempts.ts): two
// app instances on one database (one PostgreSQL database, or one SQLite file) enforce one
// limit, as N nodes behind a load balancer must.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, BASE_PATH } from '../../../src/app.js';
import { openDatabase } from '../../../src/db/database.js';
import type { Config } from '../../../src/config.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DEFAULT_PASSWORD, makeUser } from '../../helpers/factories.js';

type Node = { inject: (method: 'POST', path: string, body: unknown, remoteAddress?: string, headers?: Record<string, string>) => Promise<{ statusCode: number; headers: Record<string, unknown>; json: () => any }> };

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!();
});

/** Node A (the test app) and node B: another app, its own pool and data folder, on A's database and clock. */
async function twoNodes(config: Partial<Config>): Promise<{ t: TestApp; a: Node; b: Node }> {
  const t = await buildTestApp({ config, sqliteFile: join(mkdtempSync(join(tmpdir(), 'cp-limits-')), 'db.sqlite') });
  opened.push(() => t.close());
  const handle = openDatabase(t.config.databaseUrl, { poolSize: 5 });
  const other = await buildApp({ config: { ...t.config, dataDir: mkdtempSync(join(tmpdir(), 'cp-node-b-')) }, handle, clock: t.clock, logger: false });
  await other.ready();
  opened.push(async () => {
    await other.close();
    await handle.destroy();
  });
  const node = (app: typeof other): Node => ({
    inject: async (method, path, body, remoteAddress = '192.0.2.1', headers = {}) => {
      const res = await app.inject({ method, url: BASE_PATH + path, remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
      return { statusCode: res.statusCode, headers: res.headers, json: () => res.json() };
    },
  });
  return { t, a: node(t.app), b: node(other) };
}

describe('limits shared by every node on the database', () => {
  it('ten failed logins spread over A and B make the eleventh a 429 on either (LOGIN_RATE_LIMIT=10)', async () => {
    const { t, a, b } = await twoNodes({ loginRateLimit: 10 });
    const user = await makeUser(t);
    for (let i = 0; i < 10; i++) {
      const res = await (i % 2 ? b : a).inject('POST', '/user/token', { email: user.email, password: `wrong ${i}` });
      expect(res.statusCode).toBe(401);
    }
    for (const node of [a, b]) {
      const res = await node.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD });
      expect(res.statusCode).toBe(429);
      expect(res.json().code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another address is not counted with this one, on either node.
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '192.0.2.99')).statusCode).toBe(201);
    // The window ends on the app's clock, for both nodes.
    t.clock.advance(61);
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD })).statusCode).toBe(201);
  });

  it('an account\'s growing delay counts its failures on every node', async () => {
    const { t, a, b } = await twoNodes({ loginAccountFailures: 3, loginAccountDelayMs: 2_000, loginAccountDelayMaxMs: 8_000 });
    const user = await makeUser(t);
    expect((await a.inject('POST', '/user/token', { email: user.email, password: 'wrong 1' }, '192.0.2.1')).statusCode).toBe(401);
    expect((await b.inject('POST', '/user/token', { email: user.email, password: 'wrong 2' }, '192.0.2.2')).statusCode).toBe(401);
    expect((await a.inject('POST', '/user/token', { email: user.email, password: 'wrong 3' }, '192.0.2.3')).statusCode).toBe(401);
    const early = await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '192.0.2.4');
    expect(early.statusCode).toBe(429);
    expect(early.json().code).toBe('login_delayed');
    expect(Number(early.headers['retry-after'])).toBe(2);
    t.clock.advance(2);
    // One attempt is let through when the delay ends, on whichever node; the other node's waits the next delay.
    expect((await a.inject('POST', '/user/token', { email: user.email, password: 'wrong 4' }, '192.0.2.5')).statusCode).toBe(401);
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '192.0.2.6')).json().code).toBe('login_delayed');
    t.clock.advance(4);
    // A success on B clears the count for A too.
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '192.0.2.6')).statusCode).toBe(201);
    expect((await a.inject('POST', '/user/token', { email: user.email, password: 'wrong 5' }, '192.0.2.7')).statusCode).toBe(401);
    expect((await a.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '192.0.2.7')).statusCode).toBe(201);
  });

  it('a per-route limit (password resets) counts requests through both nodes', async () => {
    const { t, a, b } = await twoNodes({ loginRateLimit: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? b : a).inject('POST', '/users/reset_password', { email: `nobody${i}@example.com` })).statusCode);
    expect(statuses.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(statuses[4]).toBe(429);
    expect((await a.inject('POST', '/users/reset_password', { email: 'x@example.com' })).statusCode).toBe(429);
    t.clock.advance(61);
    expect((await b.inject('POST', '/users/reset_password', { email: 'x@example.com' })).statusCode).not.toBe(429);
  });

  it('behind a load balancer (TRUST_PROXY): each client is counted by its X-Forwarded-For address; without it the header is ignored', async () => {
    const balancer = '127.0.0.1';
    const via = (client: string) => ({ 'x-forwarded-for': client });
    const { t, a, b } = await twoNodes({ loginRateLimit: 10, trustProxy: ['loopback'] });
    const user = await makeUser(t);
    for (let i = 0; i < 10; i++) expect((await (i % 2 ? b : a).inject('POST', '/user/token', { email: user.email, password: `wrong ${i}` }, balancer, via('203.0.113.5'))).statusCode).toBe(401);
    for (const node of [a, b]) expect((await node.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, balancer, via('203.0.113.5'))).statusCode).toBe(429);
    // Another client through the same balancer has its own count, and the audit log names it.
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, balancer, via('203.0.113.6'))).statusCode).toBe(201);
    const entry = await t.db.selectFrom('audit_log').select(['client_ip', 'action']).where('userid', '=', user.userid).orderBy('auditid', 'desc').executeTakeFirstOrThrow();
    expect(entry.client_ip).toBe('203.0.113.6');
    // A peer that is not trusted cannot choose its address by the header.
    for (let i = 0; i < 10; i++) await a.inject('POST', '/user/token', { email: user.email, password: `again ${i}` }, '198.51.100.7', via(`203.0.113.${100 + i}`));
    expect((await b.inject('POST', '/user/token', { email: user.email, password: DEFAULT_PASSWORD }, '198.51.100.7', via('203.0.113.200'))).statusCode).toBe(429);

    // Without TRUST_PROXY (the default) the header changes nothing: the balancer is one client.
    const plain = await twoNodes({ loginRateLimit: 10 });
    const other = await makeUser(plain.t);
    for (let i = 0; i < 10; i++) await (i % 2 ? plain.b : plain.a).inject('POST', '/user/token', { email: other.email, password: `wrong ${i}` }, balancer, via(`203.0.113.${i + 1}`));
    expect((await plain.a.inject('POST', '/user/token', { email: other.email, password: DEFAULT_PASSWORD }, balancer, via('203.0.113.50'))).statusCode).toBe(429);
  });
});
