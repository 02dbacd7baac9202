// A request's logger is made when it first writes a line (src/http/request-logger.ts): the
// lines it writes are those Fastify's own child wrote (the request id bound), at the level
// the server runs at, and a request that logs nothing makes no child.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, BASE_PATH } from '../../../src/app.js';
import { openDatabase, type DatabaseHandle } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { testConfig } from '../../helpers/app.js';

describe('request loggers', () => {
  const lines: Array<Record<string, unknown>> = [];
  let handle: DatabaseHandle;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let childrenMade = 0;

  beforeAll(async () => {
    handle = openDatabase('sqlite::memory:');
    await migrateToLatest(handle.db);
    const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    app = await buildApp({ config: testConfig({ logLevel: 'warn' }), handle, logger: { level: 'warn', stream } as never });
    const child = app.log.child.bind(app.log);
    app.log.child = ((...args: Parameters<typeof child>) => { childrenMade++; return child(...args); }) as typeof app.log.child;
    app.get('/test-log/:level', { config: { auth: 'none' }, schema: { hide: true } }, async (request) => {
      const level = (request.params as { level: 'warn' | 'info' | 'error' }).level;
      request.log[level]({ detail: 42 }, `a line at ${level}`);
      return { logged: level };
    });
    app.get('/test-log-throws', { schema: { hide: true } }, async () => {
      throw new Error('the handler failed');
    });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await handle.destroy();
  });

  it('writes a line at the server\'s level with the request id, as Fastify\'s child did', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/test-log/warn' });
    expect(res.statusCode).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ level: 40, reqId: res.headers['x-request-id'], detail: 42, msg: 'a line at warn' })]);
  });

  it('writes nothing below the server\'s level, and makes no child for a request that logs nothing', async () => {
    lines.length = 0;
    const before = childrenMade;
    expect((await app.inject({ method: 'GET', url: '/test-log/info' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: `${BASE_PATH}/suggest` })).statusCode).toBe(200);
    expect(lines).toEqual([]);
    expect(childrenMade).toBe(before);
    await app.inject({ method: 'GET', url: '/test-log/error' });
    expect(childrenMade).toBe(before + 1);
  });

  it('logs a failed request\'s error under its id (the error handler writes through the request\'s logger)', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: '/test-log-throws' });
    expect(res.statusCode).toBe(500);
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, reqId: res.headers['x-request-id'], msg: 'unhandled error' }));
  });

  it('follows the server\'s level when it changes', async () => {
    lines.length = 0;
    app.log.level = 'info';
    try {
      const res = await app.inject({ method: 'GET', url: '/test-log/info' });
      expect(lines).toContainEqual(expect.objectContaining({ level: 30, reqId: res.headers['x-request-id'], msg: 'a line at info' }));
      // Fastify's own lines of each request, which are skipped (not only left unwritten) at warn.
      expect(lines).toContainEqual(expect.objectContaining({ level: 30, reqId: res.headers['x-request-id'], msg: 'incoming request' }));
      expect(lines).toContainEqual(expect.objectContaining({ level: 30, reqId: res.headers['x-request-id'], msg: 'request completed' }));
    } finally {
      app.log.level = 'warn';
    }
  });
});
