// The database under pressure (issue 61, part 5): a PostgreSQL pool held up by a lock, a
// SQLite file locked by another process, a full disk. Each answers what it is (503
// `unavailable` with Retry-After, 507 `insufficient_storage`) within a bound, /readyz
// says so, and everything works again once the pressure is gone.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, unique } from '../helpers/factories.js';
import { minimalPdf, upload } from '../helpers/factories/media.js';
import { isDatabaseBusy } from '../../src/db/helpers.js';

const onPostgres = !!process.env.TEST_DATABASE_URL;
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('SKIPPED (not root: cannot mount a tmpfs): the full-disk tests of test/db/pressure.test.ts. CI runs them as root.');

/** Polls `check` until it holds (generous: the machine may be loaded). */
async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`still not so after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const readyz = (t: TestApp) => t.app.inject({ url: '/readyz' });

function expectUnavailable(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, what: string) {
  expect(res.statusCode, what).toBe(503);
  expect(res.json(), what).toMatchObject({ error: true, code: 'unavailable' });
  expect(Number(res.headers['retry-after']), what).toBeGreaterThan(0);
}

// ------------------------------------------------------------------ a full disk on a tmpfs

/** A tmpfs of `sizeMb` mounted for `fn`, unmounted after it (whatever happens). */
async function withTmpfs(sizeMb: number, fn: (dir: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'cp-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
  try {
    await fn(dir);
  } finally {
    try {
      execFileSync('umount', [dir]);
    } catch {
      execFileSync('umount', ['-l', dir]);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fills the filesystem of `dir` with a file until no byte more fits, then frees `leaveBytes` of it; answers the file. */
function fill(dir: string, leaveBytes = 0): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (let size = chunk.length; size >= 1;) {
      try {
        written += writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  if (leaveBytes > 0) execFileSync('truncate', ['-s', String(Math.max(0, written - leaveBytes)), file]);
  return file;
}

describe.skipIf(!isRoot)('a full disk', () => {
  // PostgreSQL's disk_full: by injection, below.
  it.skipIf(onPostgres)('SQLite: a write on a full disk answers 507 insufficient_storage, stores nothing, and works once space is freed', async () => {
    await withTmpfs(48, async (dir) => {
      const t = await buildTestApp({ sqliteFile: join(dir, 'site.sqlite') });
      try {
        const admin = await makeAdmin(t);
        // An empty WAL: the next write has to grow it, on a disk with no room left.
        await sql`pragma wal_checkpoint(truncate)`.execute(t.db);
        const filler = fill(dir);
        const name = unique('Full ');
        const res = await t.post('/teams', { token: admin.token, body: { name } });
        expect(res.statusCode, res.body).toBe(507);
        expect(res.json()).toMatchObject({ error: true, code: 'insufficient_storage' });
        expect(res.json().message).toMatch(/out of disk space/);
        rmSync(filler);
        expect(await t.db.selectFrom('teams').select('teamid').where('name', '=', name).execute()).toEqual([]);
        const again = await t.post('/teams', { token: admin.token, body: { name } });
        expect(again.statusCode, again.body).toBe(201);
      } finally {
        await t.close();
      }
    });
  }, 90_000);

  it('an upload that fills the disk answers 507, keeps no file, row or count, and /readyz turns 503 below DISK_MIN_FREE_MB', async () => {
    await withTmpfs(16, async (dir) => {
      const t = await buildTestApp({ config: { dataDir: dir, diskMinFreeMb: 4 } });
      try {
        const user = await makeUser(t);
        await eventually(async () => (await readyz(t)).statusCode === 200, '/readyz ready');
        const filler = fill(dir, 256 * 1024);
        const count = async (table: 'documents' | 'media_items' | 'media_uploads') => Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const files = () => (existsSync(join(dir, 'media')) ? readdirSync(join(dir, 'media'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name) : []);
        const before = { documents: await count('documents'), items: await count('media_items'), uploads: await count('media_uploads') };
        const pdf = Buffer.concat([minimalPdf(), Buffer.alloc(2 * 1024 * 1024, 0x20)]);
        const res = await upload(t, user, pdf, 'manual.pdf');
        expect(res.statusCode, res.body).toBe(507);
        expect(res.json()).toMatchObject({ error: true, code: 'insufficient_storage' });
        expect(res.json().message).toMatch(/out of disk space: the upload was not stored/);
        expect({ documents: await count('documents'), items: await count('media_items'), uploads: await count('media_uploads') }).toEqual(before);
        expect(files()).toEqual([]);

        await eventually(async () => (await readyz(t)).statusCode === 503, '/readyz 503 on a full disk');
        expect((await readyz(t)).json()).toEqual({ status: 'low disk space' });

        rmSync(filler);
        await eventually(async () => (await readyz(t)).statusCode === 200, '/readyz ready again once space is freed');
        const again = await upload(t, user, pdf, 'manual.pdf');
        expect(again.statusCode, again.body).toBe(200);
        expect(files()).toHaveLength(1);
      } finally {
        await t.close();
      }
    });
  }, 90_000);
});

describe('PostgreSQL: disk_full', () => {
  it.skipIf(!onPostgres)('a write failing with disk_full (53100) answers 507 insufficient_storage and changes nothing', async () => {
    const t = await buildTestApp();
    try {
      const admin = await makeAdmin(t);
      // The error PostgreSQL raises when it cannot extend a file, injected on the teams' inserts.
      await sql`create function inject_disk_full() returns trigger language plpgsql as $$
        begin raise exception 'could not extend file: No space left on device' using errcode = 'disk_full'; end $$`.execute(t.db);
      await sql`create trigger inject_disk_full before insert on teams for each row execute function inject_disk_full()`.execute(t.db);
      const name = unique('Full ');
      const res = await t.post('/teams', { token: admin.token, body: { name } });
      expect(res.statusCode, res.body).toBe(507);
      expect(res.json()).toMatchObject({ error: true, code: 'insufficient_storage' });
      expect(res.json().message).toMatch(/out of disk space/);
      await sql`drop trigger inject_disk_full on teams`.execute(t.db);
      expect(await t.db.selectFrom('teams').select('teamid').where('name', '=', name).execute()).toEqual([]);
      expect((await t.post('/teams', { token: admin.token, body: { name } })).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  }, 60_000);
});

// ------------------------------------------------------------------ a busy database

describe('PostgreSQL: a pool held up by a lock', () => {
  it.skipIf(!onPostgres)('answers 503 unavailable with Retry-After within its bounds, /readyz "database busy", and recovers with every client back', async () => {
    const t = await buildTestApp({ config: { dbAcquireTimeoutMs: 2_000, dbStatementTimeoutMs: 8_000, readyzTimeoutMs: 500 } });
    const locker = new pg.Client({ connectionString: t.app.dbHandle.location });
    await locker.connect();
    try {
      await holdUpThePool();
      await recovery();
    } finally {
      await locker.end().catch(() => {});
      await t.close();
    }

    async function holdUpThePool() {
      const admin = await makeAdmin(t);
      // The requests' statements are bounded; work outside requests (jobs, migrations) is not.
      expect((await sql<{ statement_timeout: string }>`show statement_timeout`.execute(t.db)).rows[0].statement_timeout).toBe('8s');
      expect((await sql<{ statement_timeout: string }>`show statement_timeout`.execute(t.app.dbHandle.longWorkDb)).rows[0].statement_timeout).toBe('0');

      await locker.query('begin');
      await locker.query('lock table teams in access exclusive mode');
      const started = Date.now();
      // Five readers take the pool's five clients and wait on the lock (statement timeout)...
      const first = Array.from({ length: 5 }, () => t.get('/teams'));
      await eventually(() => stats().waiting > 0 || (stats().total === 5 && stats().idle === 0), 'the pool taken');
      // ...then more requests than the pool has clients wait for one (acquire timeout), a write among them.
      const more = [...Array.from({ length: 6 }, () => t.get('/teams')), t.post('/teams', { token: admin.token, body: { name: unique('Busy ') } })];
      const ready = await readyz(t);
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'database busy' });
      const answers = await Promise.all([...first, ...more]);
      const took = Date.now() - started;
      answers.forEach((res, i) => expectUnavailable(res, `request ${i}`));
      // Bounded by the timeouts (8 s at most), the lock held all along: generous for a loaded machine.
      expect(took).toBeLessThan(40_000);
      await locker.query('rollback');
    }

    async function recovery() {
      // Every client is back in the pool, none left in a transaction on the server.
      await eventually(() => stats().waiting === 0 && stats().idle === stats().total, 'every client returned');
      const stuck = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state not in ('idle')`.execute(t.db);
      expect(stuck.rows[0].n).toBe(0);
      const again = await Promise.all(Array.from({ length: 12 }, () => t.get('/teams')));
      expect(again.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
      await eventually(async () => (await readyz(t)).statusCode === 200, '/readyz ready again');
      expect((await readyz(t)).json()).toEqual({ status: 'ready' });
    }

    function stats() { return t.app.dbHandle.poolStats!(); }
  }, 90_000);

  it.skipIf(!onPostgres)('tells a statement timeout and a full pool (busy) from a statement cancelled by hand and other errors', async () => {
    const t = await buildTestApp();
    const url = t.app.dbHandle.location;
    const client = new pg.Client({ connectionString: url, statement_timeout: 100 });
    const other = new pg.Client({ connectionString: url });
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 100 });
    await client.connect();
    await other.connect();
    try {
      const timedOut = await client.query('select pg_sleep(5)').catch((e: unknown) => e);
      expect((timedOut as { code?: string }).code).toBe('57014');
      expect(isDatabaseBusy(timedOut)).toBe(true);

      const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
      await client.query('set statement_timeout = 0');
      const sleeping = client.query('select pg_sleep(5)').catch((e: unknown) => e);
      await eventually(async () => (await other.query("select 1 from pg_stat_activity where pid = $1 and state = 'active' and query like 'select pg_sleep%'", [pid])).rowCount === 1, 'the statement running');
      await other.query('select pg_cancel_backend($1)', [pid]);
      const cancelled = await sleeping;
      expect((cancelled as { code?: string }).code).toBe('57014');
      expect(isDatabaseBusy(cancelled)).toBe(false);

      const held = await pool.connect();
      const waited = await pool.connect().catch((e: unknown) => e);
      held.release();
      expect(isDatabaseBusy(waited)).toBe(true);

      expect(isDatabaseBusy(await client.query('select 1/0').catch((e: unknown) => e))).toBe(false);
    } finally {
      await client.end();
      await other.end();
      await pool.end();
      await t.close();
    }
  });
});

describe('SQLite: another process holding the write lock', () => {
  it.skipIf(onPostgres)('a write past busy_timeout answers 503 unavailable with Retry-After, and works once the lock is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-busy-'));
    const file = join(dir, 'site.sqlite');
    const t = await buildTestApp({ sqliteFile: file, database: { busyTimeoutMs: 300 } });
    const other = new SQLite(file);
    try {
      const admin = await makeAdmin(t);
      other.exec('begin immediate');
      const name = unique('Busy ');
      const res = await t.post('/teams', { token: admin.token, body: { name } });
      expectUnavailable(res, 'the write');
      expect(res.body).not.toMatch(/SQLITE|locked/i);
      other.exec('rollback');
      const again = await t.post('/teams', { token: admin.token, body: { name } });
      expect(again.statusCode, again.body).toBe(201);
    } finally {
      other.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
