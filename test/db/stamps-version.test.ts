// On SQLite the stamps of cache_stamps are read again only when the database's change
// version moved (byte-cache.ts, database.ts): this connection changed rows, or another
// connection committed. Every write, from this process, from another connection to the
// file, or rolled back, shows at the next read; while nothing is written, no read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { cacheStamp } from '../../src/areas/shared/byte-cache.js';
import { changeVersion } from '../../src/db/prepared.js';
import type { Database } from '../../src/db/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-stamps-version-'));
const file = join(dir, 'site.sqlite');
let handle: DatabaseHandle;
let db: Kysely<Database>;
let other: SQLite.Database;
const reads: string[] = [];

beforeAll(async () => {
  handle = openDatabase(`sqlite:${file}`);
  db = handle.db;
  await sql`create table cache_stamps (key text primary key, stamp integer not null)`.execute(db);
  await sql`create table notes (id integer primary key, body text not null)`.execute(db);
  await sql`insert into cache_stamps (key, stamp) values ('guides', 0), ('search', 0)`.execute(db);
  other = new SQLite(file);
  handle.setQueryListener!((e) => { if (/from "cache_stamps"/.test(e.query.sql)) reads.push(e.query.sql); });
});
afterAll(async () => {
  other.close();
  await handle.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** The stamp, and how many times cache_stamps was read for it. */
async function stampAndReads(key: string) {
  reads.length = 0;
  const stamp = await cacheStamp(db, key);
  return { stamp, reads: reads.length };
}

describe('stamps on SQLite, under the change version', () => {
  it('are read once while nothing is written', async () => {
    await sql`update notes set body = body`.execute(db); // whatever was read before is not trusted now
    const first = await stampAndReads('guides');
    expect(first.reads).toBe(1);
    for (let i = 0; i < 5; i++) expect(await stampAndReads('guides')).toEqual({ stamp: first.stamp, reads: 0 });
    expect(await stampAndReads('search')).toEqual({ stamp: 0, reads: 0 });
  });

  it('are read again after this connection writes anything, and show its bumps', async () => {
    const before = (await stampAndReads('guides')).stamp;
    await sql`insert into notes (body) values ('a row that bumps nothing')`.execute(db);
    expect(await stampAndReads('guides')).toEqual({ stamp: before, reads: 1 });
    await sql`update cache_stamps set stamp = stamp + 1 where key = 'guides'`.execute(db);
    expect(await stampAndReads('guides')).toEqual({ stamp: before + 1, reads: 1 });
    expect(await stampAndReads('guides')).toEqual({ stamp: before + 1, reads: 0 });
  });

  it('show a bump committed by another connection to the file (another server process) at the next read', async () => {
    const before = (await stampAndReads('search')).stamp;
    expect((await stampAndReads('search')).reads).toBe(0);
    other.prepare(`update cache_stamps set stamp = stamp + 1 where key = 'search'`).run();
    expect(await stampAndReads('search')).toEqual({ stamp: before + 1, reads: 1 });
    other.prepare(`update cache_stamps set stamp = stamp + 1 where key = 'search'`).run();
    expect(await stampAndReads('search')).toEqual({ stamp: before + 2, reads: 1 });
  });

  it('never show a bump not committed, and never keep one rolled back', async () => {
    const before = (await stampAndReads('guides')).stamp;
    let outside: Promise<number> | undefined;
    await db.transaction().execute(async (trx) => {
      await sql`update cache_stamps set stamp = stamp + 1 where key = 'guides'`.execute(trx);
      // The connection is inside a transaction: no version to go by; the read waits for it.
      expect(changeVersion(db)).toBeUndefined();
      outside = cacheStamp(db, 'guides');
      expect(await cacheStamp(trx, 'guides')).toBe(before + 1);
      throw new Error('roll back');
    }).catch((err: Error) => { if (err.message !== 'roll back') throw err; });
    expect(await outside).toBe(before);
    expect((await stampAndReads('guides')).stamp).toBe(before);
  });
});
