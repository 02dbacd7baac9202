// What bounds the server's memory besides its caches (docs/ARCHITECTURE.md, "Memory"):
// the node flags and the malloc setting it runs with (src/server-flags.ts: the same for
// `npm start`, the benchmark and these tests), the packages it loads only when a request needs them, and
// SQLite's page cache. Both databases (a database of its own on PostgreSQL).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SERVER_MALLOC_ENV, SERVER_NODE_FLAGS, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { openDatabase, SQLITE_CACHE_KB } from '../../src/db/database.js';
import { lazyRequire } from '../../src/lazy-require.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { childrenOf } from '../helpers/processes.js';

const { dir, newDatabase } = scratchDatabases('memory');

/** The launcher's server process (its other child, in these tests, is tsx's esbuild). */
function serverOf(launcher: ServerProcess): number {
  const servers = childrenOf(launcher.proc.pid!).filter((pid) => /server\.[tj]s/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
  expect(servers).toHaveLength(1);
  return servers[0];
}

describe('the server process', () => {
  it('npm start builds, then starts the server through the launcher (src/start.ts)', () => {
    const start = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe('npm run -s build && node dist/start.js');
  });

  it('started as npm start starts it, it runs with the flags and the malloc setting, and an idle server has not loaded the image library (sharp and libvips load with the first image)', async () => {
    const launcher = await startServer({ databaseUrl: await newDatabase('idle'), dataDir: dir, env: { SEED_DEMO: 'false' }, launcher: true });
    try {
      expect(readFileSync(`/proc/${launcher.proc.pid}/environ`, 'utf8').split('\0')).not.toContain(`MALLOC_ARENA_MAX=${SERVER_MALLOC_ENV.MALLOC_ARENA_MAX}`);
      const pid = serverOf(launcher);
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      for (const flag of SERVER_NODE_FLAGS) expect(args).toContain(flag);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const [k, v] of Object.entries(SERVER_MALLOC_ENV)) expect(environ).toContain(`${k}=${v}`);
      expect((await fetch(`${launcher.url}/readyz`)).status).toBe(200);
      const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
      expect(maps).toMatch(/better_sqlite3\.node|libc/);
      expect(maps).not.toMatch(/libvips/);
    } finally {
      await launcher.stop();
    }
  }, 120_000);

  it.each(['SIGINT', 'SIGTERM'] as const)('%s to the launcher reaches the server once: it shuts down gracefully, and the launcher ends as it did', async (signal) => {
    const launcher = await startServer({ databaseUrl: await newDatabase(`signal_${signal.toLowerCase()}`), dataDir: dir, env: { SEED_DEMO: 'false' }, launcher: true });
    const pid = serverOf(launcher);
    launcher.proc.kill(signal);
    expect(await launcher.exited).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(launcher.output()).not.toMatch(/error/i);
  }, 120_000);
});

describe('lazyRequire', () => {
  it('loads a package on the first call only, and runs its init once', () => {
    const inits: unknown[] = [];
    const path = lazyRequire<typeof import('node:path')>('node:path', (m) => inits.push(m));
    expect(inits).toEqual([]);
    const first = path();
    expect(first.join('a', 'b')).toBe(join('a', 'b'));
    expect(path()).toBe(first);
    expect(inits).toEqual([first]);
  });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("SQLite's page cache", () => {
  it(`is ${SQLITE_CACHE_KB / 1024} MB per connection`, async () => {
    const handle = openDatabase(await newDatabase('pages'));
    try {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(handle.db);
      expect(rows[0].cache_size).toBe(-SQLITE_CACHE_KB);
      expect(SQLITE_CACHE_KB).toBe(8 * 1024);
    } finally {
      await handle.destroy();
    }
  });
});
