// PostgreSQL: the cache stamps' table, grown while an old transaction was open, is
// compacted again (db/stamp-upkeep.ts). Without it the table stays at its largest size for
// good and every read of all the stamps scans it. SQLite has no such table (its stamps are
// one row each, written in place): nothing to test there.
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { keepStampTableSmall, LOCK_TIMEOUT_MS, MAX_PAGES, stampTablePages, startStampUpkeep } from '../../src/db/stamp-upkeep.js';
import { appForFile } from '../helpers/app.js';
import { makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';

const PG = Boolean(process.env.TEST_DATABASE_URL);
let reader: TestUser;
let guideid: number;
const t = appForFile({}, async (t) => {
  reader = await makeUser(t);
  guideid = (await makePublishedGuide(t, await makeUser(t, { privileges: ['Author', 'User'] }), 1)).guideid;
});

const pages = () => stampTablePages(t.db);
const stamps = async () => Object.fromEntries((await t.db.selectFrom('cache_stamps').select(['key', 'stamp']).execute()).map((r) => [r.key, Number(r.stamp)]));

/** A connection of its own, in a transaction that has read something (its snapshot keeps every row version written after it). */
async function oldTransaction() {
  const client = new pg.Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  await client.query('begin isolation level repeatable read');
  await client.query('select count(*) from guides');
  return { end: async () => { await client.query('commit'); await client.end(); } };
}

/** `n` commits that bump the comments' stamp (each one a new version of a shard's row), as the writes of a busy site do. */
async function bumps(n: number) {
  await sql.raw(`do $$ begin for i in 1..${n} loop update cache_stamp_shards set stamp = stamp + 1 where key = 'comments' and shard = 2; commit; end loop; end $$`).execute(t.db);
}

/** Grown past MAX_PAGES beside an old transaction, which has ended since; answers the stamps as they are. */
async function grownTable() {
  const old = await oldTransaction();
  try {
    await bumps(8000);
  } finally {
    await old.end();
  }
  expect(await pages()).toBeGreaterThan(MAX_PAGES);
  return stamps();
}

describe.skipIf(!PG)('the cache stamps\' table, kept small', () => {
  it('is left alone at its usual size', async () => {
    expect(await keepStampTableSmall(t.db)).toEqual({ action: 'none', pages: await pages() });
  });

  it('grown beside an old transaction, is left as it is while that transaction is open, and compacted after; every stamp keeps its value', async () => {
    const before = await stamps();
    const old = await oldTransaction();
    try {
      await bumps(8000);
      expect(await pages()).toBeGreaterThan(MAX_PAGES);
      // Compacting now would copy every version the old transaction may still read.
      const held = await keepStampTableSmall(t.db);
      expect(held).toMatchObject({ action: 'held' });
      expect(held.action === 'held' && held.dead).toBeGreaterThan(0);
    } finally {
      await old.end();
    }
    const grown = await pages();
    expect(grown).toBeGreaterThan(MAX_PAGES);
    // A plain VACUUM now removes the old versions but keeps the pages (the live rows are in the last ones).
    const done = await keepStampTableSmall(t.db);
    expect(done).toEqual({ action: 'compacted', pages: expect.any(Number), before: grown });
    expect(await pages()).toBeLessThanOrEqual(2);
    expect(await stamps()).toEqual({ ...before, comments: before.comments + 8000 });
    // Writes and reads go on as before.
    const res = await t.post(`/comments/guide/${guideid}`, { token: reader.token, body: { text: 'After the compaction.' } });
    expect(res.statusCode).toBe(201);
    expect((await stamps()).comments).toBe(before.comments + 8001);
    expect(await keepStampTableSmall(t.db)).toMatchObject({ action: 'none' });
  });

  it('gives up when it cannot have the table\'s lock soon, and compacts at a later look', async () => {
    const before = await grownTable();
    // A transaction that has read the stamps holds the table (a shared lock) until it ends.
    const reading = new pg.Client({ connectionString: t.config.databaseUrl });
    await reading.connect();
    try {
      await reading.query('begin');
      await reading.query('select * from cache_stamps');
      const started = performance.now();
      expect(await keepStampTableSmall(t.db)).toMatchObject({ action: 'busy' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS * 0.9);
      // The connection it used does not keep the short lock timeout (pg's pool hands out the
      // connection released last: the one it used).
      expect((await sql<{ lock_timeout: string }>`show lock_timeout`.execute(t.db)).rows[0].lock_timeout).toBe('0');
    } finally {
      await reading.query('commit');
      await reading.end();
    }
    expect(await keepStampTableSmall(t.db)).toMatchObject({ action: 'compacted' });
    expect(await stamps()).toEqual(before);
  });

  it('is looked at by each server process when it starts and then in the background, until stopped', async () => {
    const before = await grownTable();
    const errors: unknown[] = [];
    const upkeep = startStampUpkeep(t.db, (err) => errors.push(err), 5);
    try {
      // Waits for the state, not for a time: the vitest timeout bounds it.
      while (await pages() > MAX_PAGES) await new Promise((r) => setImmediate(r));
    } finally {
      await upkeep.stop();
    }
    expect(errors).toEqual([]);
    expect(await stamps()).toEqual(before);
  });
});
