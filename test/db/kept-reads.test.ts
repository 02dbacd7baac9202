// On SQLite, reads kept while the database's change version holds (db/kept-reads.ts: the
// stamps of cache_stamps, guide heads) are read again only when it moved: this connection
// changed rows, or another connection committed. Every write, from this process, from
// another connection to the file, or rolled back, shows at the next read; while nothing is
// written, no read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { cacheStamp } from '../../src/areas/shared/byte-cache.js';
import { changeVersion } from '../../src/db/prepared.js';
import { keptWhileUnchanged } from '../../src/db/kept-reads.js';
import { walHeaderReader, walHeaderVersion } from '../../src/db/wal-header.js';
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

describe('keptWhileUnchanged', () => {
  const noteOf = async (d: Kysely<Database>, id: number) => {
    reads.push('note');
    return (await sql<{ body: string }>`select body from notes where id = ${id}`.execute(d)).rows[0]?.body ?? null;
  };
  const keptNote = keptWhileUnchanged(2, (id: number) => String(id), noteOf);
  const readNote = async (id: number) => {
    reads.length = 0;
    const body = await keptNote(db, id);
    return { body, reads: reads.length };
  };

  it('keeps each key\'s value (a missing row too) until a write, at most `max` of them, the oldest dropped first', async () => {
    const ids: number[] = [];
    for (const body of ['one', 'two']) ids.push((await sql<{ id: number }>`insert into notes (body) values (${body}) returning id`.execute(db)).rows[0].id);
    expect(await readNote(ids[0])).toEqual({ body: 'one', reads: 1 });
    expect(await readNote(ids[0])).toEqual({ body: 'one', reads: 0 });
    expect(await readNote(-1)).toEqual({ body: null, reads: 1 });
    expect(await readNote(-1)).toEqual({ body: null, reads: 0 });
    expect(await readNote(ids[1])).toEqual({ body: 'two', reads: 1 }); // the third key: the first is dropped
    expect(await readNote(-1)).toEqual({ body: null, reads: 0 });
    expect(await readNote(ids[0])).toEqual({ body: 'one', reads: 1 });
  });

  it('reads again after a write by this connection or another one, and shows it', async () => {
    const id = (await sql<{ id: number }>`select max(id) as id from notes`.execute(db)).rows[0].id;
    await readNote(id);
    expect((await readNote(id)).reads).toBe(0);
    await sql`update notes set body = 'changed here' where id = ${id}`.execute(db);
    expect(await readNote(id)).toEqual({ body: 'changed here', reads: 1 });
    other.prepare('update notes set body = ? where id = ?').run('changed by another process', id);
    expect(await readNote(id)).toEqual({ body: 'changed by another process', reads: 1 });
    expect(await readNote(id)).toEqual({ body: 'changed by another process', reads: 0 });
  });

  it('a value read while a write lands is not kept past it', async () => {
    const id = (await sql<{ id: number }>`select max(id) as id from notes`.execute(db)).rows[0].id;
    await sql`update notes set body = 'before' where id = ${id}`.execute(db);
    // The read and a write of this connection, at once: whichever value the read saw, the next read sees the write.
    await Promise.all([keptNote(db, id), sql`update notes set body = 'after' where id = ${id}`.execute(db)]);
    expect((await readNote(id)).body).toBe('after');
  });
});

describe('the change version on SQLite', () => {
  /** The version's part that other connections move, as the -shm file holds it now. */
  const headerNow = () => walHeaderVersion(readFileSync(`${file}-shm`).subarray(0, 96));

  it('is the WAL index header, read from the -shm file without a statement', async () => {
    await sql`select 1`.execute(db);
    const version = changeVersion(db)!;
    expect(headerNow()).toBeDefined();
    expect(version.endsWith(`:${headerNow()}`)).toBe(true);
    expect(changeVersion(db)).toBe(version);
  });

  it('moves with every commit of another connection, and only then', async () => {
    const before = changeVersion(db);
    expect(changeVersion(db)).toBe(before);
    other.prepare(`update cache_stamps set stamp = stamp + 1 where key = 'guides'`).run();
    const after = changeVersion(db);
    expect(after).not.toBe(before);
    expect(after!.endsWith(`:${headerNow()}`)).toBe(true);
    // A statement that changes nothing commits nothing.
    other.prepare(`update notes set body = body where id = -1`).run();
    expect(changeVersion(db)).toBe(after);
  });

  it('cannot be told while a commit is writing the header (its two copies differ) or before it is built', () => {
    const bytes = readFileSync(`${file}-shm`).subarray(0, 96);
    const version = walHeaderVersion(bytes);
    expect(version).toBeDefined();
    const torn = Buffer.from(bytes);
    torn[16] ^= 1; // the first copy's frame count, as a commit writes it (the second copy first)
    expect(walHeaderVersion(torn)).toBeUndefined();
    const unbuilt = Buffer.from(bytes);
    unbuilt[12] = 0;
    unbuilt[48 + 12] = 0;
    expect(walHeaderVersion(unbuilt)).toBeUndefined();
    expect(walHeaderVersion(bytes.subarray(0, 48))).toBeUndefined();
  });

  it('is asked of SQLite where the -shm file cannot be read', () => {
    const reader = walHeaderReader(join(dir, 'no such file.sqlite'));
    expect(reader.read()).toBeNull();
    reader.close();
  });
});
