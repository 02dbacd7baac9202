// `npm run backup` and `npm run restore` on a real server process with the demo site, on
// SQLite or (TEST_DATABASE_URL) PostgreSQL. A backup taken while writers post comments and
// upload images restores into an empty database and data directory as a consistent site:
// every comment it holds is the source's, their number lies between what was acknowledged
// before and after, and every image it names serves its original from the restored files.
// A backup of the stopped site restores every row of every table and every file exactly.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { call, login, REPO_ROOT, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { solid } from '../helpers/factories/media.js';

const scratch = scratchDatabases('backup');
const running: ServerProcess[] = [];
afterAll(async () => {
  for (const s of running) await s.stop().catch(() => {});
});

/** Runs `npm run backup|restore -- DIR` as an operator would, against DATABASE_URL and DATA_DIR. */
function runCli(command: 'backup' | 'restore', dir: string, databaseUrl: string, dataDir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/backup/cli.ts', command, dir], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code) => done({ code, out }));
  });
}

interface Inspector { rows(table: string): Promise<Record<string, unknown>[]>; tables(): Promise<string[]>; ids(table: string, column: string): Promise<number[]>; close(): Promise<void> }

function inspect(url: string): Inspector {
  if (!url.startsWith('postgres')) {
    const db = new SQLite(url.replace(/^sqlite:/, ''), { readonly: true, fileMustExist: true });
    return {
      async tables() {
        return (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as { name: string }[]).map((r) => r.name);
      },
      // Sorted by their JSON: tables without a rowid and virtual tables compare too.
      async rows(table) { return (db.prepare(`select * from "${table}"`).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort().map((r) => JSON.parse(r)); },
      async ids(table, column) { return (db.prepare(`select "${column}" as id from "${table}" order by 1`).all() as { id: number }[]).map((r) => r.id); },
      async close() { db.close(); },
    };
  }
  const client = new pg.Client({ connectionString: url });
  const ready = client.connect();
  return {
    async tables() {
      await ready;
      return (await client.query<{ t: string }>("select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1")).rows.map((r) => r.t);
    },
    async rows(table) {
      await ready;
      // Every column in text form, ordered by the whole row: the same rows give the same list.
      return (await client.query(`select x::text as row from "${table}" x order by 1`)).rows;
    },
    async ids(table, column) {
      await ready;
      return (await client.query<{ id: number }>(`select "${column}" as id from "${table}" order by 1`)).rows.map((r) => Number(r.id));
    },
    async close() { await ready; await client.end(); },
  };
}

/** Every file under a data directory (the SQLite database and temporary files aside), with its SHA-256. */
function filesOf(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const rel = relative(dataDir, full);
      if (rel === 'tmp' || /\.sqlite(-wal|-shm)?$/.test(rel)) continue;
      if (entry.isDirectory()) visit(full);
      else out[rel] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  visit(dataDir);
  return out;
}

async function upload(url: string, token: string, n: number) {
  const body = await solid(64 + (n % 7), 48, { r: (n * 37) % 256, g: 90, b: 160 }, 'png');
  const res = await fetch(`${url}/api/2.0/user/media/uploads?file=w${n}.png`, { method: 'POST', headers: { authorization: `api ${token}`, 'content-type': 'application/octet-stream' }, body });
  return res.status;
}

describe('backup and restore', () => {
  const sourceData = join(scratch.dir, 'source-data');
  let sourceUrl: string;
  let source: ServerProcess;

  it('a backup taken under writes restores a consistent site', async () => {
    mkdirSync(sourceData, { recursive: true });
    sourceUrl = await scratch.newDatabase('source');
    source = await startServer({ databaseUrl: sourceUrl, dataDir: sourceData, readyTimeoutMs: 120_000 });
    running.push(source);
    const token = await login(source.url);
    for (let n = 0; n < 3; n++) expect(await upload(source.url, token, n)).toBe(200);

    const ackBefore: number[] = [];
    let writing = true;
    let acked = 0;
    const writers = Array.from({ length: 3 }, async (_, w) => {
      for (let n = 0; writing; n++) {
        const res = await call(source.url, 'POST', '/comments/guide/1', token, { text: `backup writer ${w} comment ${n}` });
        expect(res.status).toBe(201);
        acked++;
        if (n % 5 === 0) expect(await upload(source.url, token, 100 * (w + 1) + n)).toBe(200);
      }
    });
    // The writers run a while before the backup starts, and all through it.
    while (acked < 10) await new Promise((r) => setTimeout(r, 20));
    ackBefore.push(acked);
    const backupDir = join(scratch.dir, 'under-writes');
    const made = await runCli('backup', backupDir, sourceUrl, sourceData);
    writing = false;
    await Promise.all(writers);
    expect(made.code, made.out).toBe(0);
    expect(made.out).toMatch(/backup: done: \d+ files/);

    const restoredUrl = await scratch.newDatabase('restored');
    const restoredData = join(scratch.dir, 'restored-data');
    const restored = await runCli('restore', backupDir, restoredUrl, restoredData);
    expect(restored.code, restored.out).toBe(0);

    // The comments: each restored one is the source's, and none acknowledged before the backup is missing.
    const src = inspect(sourceUrl);
    const dst = inspect(restoredUrl);
    try {
      const srcComments = await src.rows('comments');
      const dstComments = await dst.rows('comments');
      const ours = (rows: Record<string, unknown>[]) => rows.filter((r) => JSON.stringify(r).includes('backup writer'));
      expect(ours(dstComments).length).toBeGreaterThanOrEqual(ackBefore[0]);
      expect(ours(dstComments).length).toBeLessThanOrEqual(ours(srcComments).length);
      const srcSet = new Set(srcComments.map((r) => JSON.stringify(r)));
      for (const row of dstComments) expect(srcSet.has(JSON.stringify(row)), JSON.stringify(row)).toBe(true);
    } finally {
      await src.close();
      await dst.close();
    }

    // The restored site serves, and every image it names has its original.
    const copy = await startServer({ databaseUrl: restoredUrl, dataDir: restoredData, readyTimeoutMs: 120_000 });
    running.push(copy);
    const copyToken = await login(copy.url);
    const images = inspect(restoredUrl);
    let ids: number[];
    try {
      ids = await images.ids('images', 'imageid');
    } finally {
      await images.close();
    }
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const id of ids) {
      const rec = await call(copy.url, 'GET', `/media/images/${id}`, copyToken);
      expect(rec.status, `image ${id}`).toBe(200);
      const original = new URL(rec.body.image.original);
      const served = await fetch(`${copy.url}${original.pathname}${original.search}`);
      expect(served.status, `image ${id}: ${original.pathname}`).toBe(200);
      await served.arrayBuffer();
    }
    await copy.stop();
  }, 240_000);

  it('a backup of the stopped site restores every row and every file exactly; a restore refuses a target that is not empty', async () => {
    await source.stop();
    const backupDir = join(scratch.dir, 'quiet');
    const made = await runCli('backup', backupDir, sourceUrl, sourceData);
    expect(made.code, made.out).toBe(0);
    const restoredUrl = await scratch.newDatabase('exact');
    const restoredData = join(scratch.dir, 'exact-data');
    const restored = await runCli('restore', backupDir, restoredUrl, restoredData);
    expect(restored.code, restored.out).toBe(0);

    const src = inspect(sourceUrl);
    const dst = inspect(restoredUrl);
    try {
      const tables = await src.tables();
      expect(await dst.tables()).toEqual(tables);
      for (const table of tables) expect(await dst.rows(table), table).toEqual(await src.rows(table));
    } finally {
      await src.close();
      await dst.close();
    }
    const files = filesOf(sourceData);
    expect(Object.keys(files).length).toBeGreaterThan(3);
    expect(filesOf(restoredData)).toEqual(files);
    for (const key of Object.keys(files).filter((f) => f.endsWith('.key'))) expect(statSync(join(restoredData, key)).mode & 0o077).toBe(0);

    // Again onto the restored site: nothing is overwritten.
    const again = await runCli('restore', backupDir, restoredUrl, restoredData);
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/restore failed: .*(already holds stored files|exists|has tables)/);
  }, 240_000);
});
