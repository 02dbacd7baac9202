// buildTestApp(): the real app on a fresh migrated database of its own (SQLite in memory,
// or a PostgreSQL clone when TEST_DATABASE_URL is set), with a clock the test moves.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, requestBounds, type DatabaseOptions } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ManualClock } from '../../src/clock.js';
import { buildApp, BASE_PATH } from '../../src/app.js';
import { cloneTemplate, dropDatabase, withDatabase } from './pg.js';
import { testBucket, testStorageIsS3 } from './s3.js';

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    dataDir: mkdtempSync(join(tmpdir(), 'cp-test-')),
    publicUrl: 'http://test.local',
    passwordHashCost: 4,
    loginRateLimit: 10_000,
    // No per-account login delay unless a test asks for one (test/areas/sign-offs/credentials.test.ts).
    loginAccountDelayMs: 0,
    // The PDF renderer's worker starts with the first PDF, not with every test app.
    pdfWarmStart: false,
    mediaUploadsPerHour: 10_000,
    jobPollMs: 0,
    // No wait for a pool client is too long in tests: 50 requests at once on a pool of five,
    // on a loaded machine, may wait longer than the server's default for one (DB_ACQUIRE_TIMEOUT_MS).
    // Statements keep the server's bound. test/db/pressure.test.ts sets its own.
    dbAcquireTimeoutMs: 0,
    logLevel: 'silent',
    ...overrides,
  };
}

/**
 * `sqliteFile`: on SQLite, the database in this file instead of in memory (ignored on
 * PostgreSQL); `database`: options of `openDatabase` beside the settings' bounds.
 */
export async function buildTestApp(options: { config?: Partial<Config>; sqliteFile?: string; database?: Pick<DatabaseOptions, 'busyTimeoutMs'> } = {}) {
  const template = inject('pgTemplate');
  let pgName: string | null = null;
  let url = options.sqliteFile ? `sqlite:${options.sqliteFile}` : 'sqlite::memory:';
  if (template && process.env.TEST_DATABASE_URL) {
    pgName = await cloneTemplate(template);
    url = withDatabase(process.env.TEST_DATABASE_URL, pgName);
  }
  // TEST_MEDIA_STORAGE=s3: the files go to a bucket of the test S3 server (test/helpers/s3.ts).
  const bucket = testStorageIsS3() && !options.config?.storage ? await testBucket() : null;
  const config = testConfig({ databaseUrl: url, ...(bucket ? { storage: bucket.storage } : {}), ...options.config });
  const handle = openDatabase(url, { poolSize: 5, ...requestBounds(config), ...options.database });
  if (!pgName) await migrateToLatest(handle.db);
  const clock = new ManualClock();
  const app = await buildApp({ config, handle, clock, logger: false });
  await app.ready();

  /** An API request: the path is relative to /api/2.0; a JSON body goes in `body`. */
  async function request(method: InjectOptions['method'], path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; payload?: InjectOptions['payload'] } = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `api ${opts.token}`;
    let payload = opts.payload;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return app.inject({ method, url: BASE_PATH + path, headers, payload });
  }

  return {
    app,
    db: handle.db,
    dialect: handle.dialect,
    config,
    clock,
    request,
    get: (path: string, opts?: Parameters<typeof request>[2]) => request('GET', path, opts),
    post: (path: string, opts?: Parameters<typeof request>[2]) => request('POST', path, opts),
    put: (path: string, opts?: Parameters<typeof request>[2]) => request('PUT', path, opts),
    patch: (path: string, opts?: Parameters<typeof request>[2]) => request('PATCH', path, opts),
    del: (path: string, opts?: Parameters<typeof request>[2]) => request('DELETE', path, opts),
    async close() {
      await app.close();
      await handle.destroy();
      if (pgName) await dropDatabase(pgName);
      await bucket?.release();
    },
  };
}

/**
 * One app for the whole test file: built in `beforeAll`, closed in `afterAll`. The returned
 * handle stands for that app (it may only be used inside hooks and tests); `setup` makes the
 * file's users and fixtures once the app is up, so a file states only what differs.
 */
export function appForFile(options: { config?: Partial<Config> } = {}, setup?: (t: TestApp) => Promise<void>, timeoutMs?: number): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await buildTestApp(options);
    await setup?.(current);
  }, timeoutMs);
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as TestApp, {
    get(_target, property) {
      if (!current) throw new Error('the file\'s test app is used before beforeAll built it');
      return Reflect.get(current, property);
    },
  });
}
