// PostgreSQL: how the rows of `cache_stamps` are locked by concurrent writes.
//  - Write transactions that bump several stamps in different orders take their turn
//    instead of deadlocking (migration 2026_11_25_0710_stamps_in_order): the first
//    statement that updates the table locks every row in key order. Before, PostgreSQL
//    found the cycle after a second and failed one of them (a 500 to its client).
//  - The triggers bump stamps at COMMIT (2026_11_25_0720_stamps_at_commit): a write holds
//    the rows for its commit alone, so another writer does not wait through its whole
//    transaction; the new stamps still become visible with the data, and only then.
//  - The rows are in shards, one per group of connections, and `cache_stamps` is a view of
//    their sums (2026_11_28_0100_stamp_shards): a commit does not wait for another
//    connection's commit to reach the disk unless both are on one shard.
// SQLite writes one transaction at a time: nothing to test there.
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import * as stampsAtCommit from '../../src/db/migrations/2026_11_25_0720_stamps_at_commit.js';
import * as stampShards from '../../src/db/migrations/2026_11_28_0100_stamp_shards.js';
import { appForFile } from '../helpers/app.js';
import { makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';

const PG = Boolean(process.env.TEST_DATABASE_URL);
let author: TestUser;
let reader: TestUser;
let other: TestUser;
let guideid: number;
const t = appForFile({}, async (t) => {
  author = await makeUser(t, { privileges: ['Author', 'User'] });
  reader = await makeUser(t);
  other = await makeUser(t);
  guideid = (await makePublishedGuide(t, author, 1)).guideid;
});

const bump = (db: Kysely<Database>, key: string) => sql`update cache_stamps set stamp = stamp + 1 where key = ${key}`.execute(db);
const stamps = async () => Object.fromEntries((await t.db.selectFrom('cache_stamps').select(['key', 'stamp']).where('key', 'in', ['comments', 'search']).execute()).map((r) => [r.key, Number(r.stamp)]));

/** Until `done()` holds, or another connection waits for a lock (checked as the database sees it, not by time). */
async function untilWaitingOr(done: () => boolean) {
  for (;;) {
    if (done()) return;
    const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted and pid in (select pid from pg_stat_activity where datname = current_database())`.execute(t.db);
    if (waiting.rows[0].n > 0) return;
    await new Promise((r) => setImmediate(r));
  }
}

describe.skipIf(!PG)('stamps bumped in different orders by concurrent transactions', () => {
  it('both commit, one after the other; neither is failed as a deadlock', async () => {
    const before = await stamps();
    let firstHolds!: () => void;
    const firstMayGoOn = new Promise<void>((r) => { firstHolds = r; });
    let secondBumpedOnce = false;
    let firstBumped!: () => void;
    const firstHasBumped = new Promise<void>((r) => { firstBumped = r; });
    const first = t.db.transaction().execute(async (trx) => {
      await bump(trx, 'search');
      firstBumped();
      await firstMayGoOn;
      await bump(trx, 'comments');
    });
    await firstHasBumped;
    const second = t.db.transaction().execute(async (trx) => {
      await bump(trx, 'comments');
      secondBumpedOnce = true;
      await bump(trx, 'search');
    });
    // The second has either taken 'comments' (the order that deadlocked) or waits for the first.
    await untilWaitingOr(() => secondBumpedOnce);
    firstHolds();
    const results = await Promise.allSettled([first, second]);
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'committed'))).toEqual(['committed', 'committed']);
    expect(await stamps()).toEqual({ comments: before.comments + 2, search: before.search + 2 });
  });
});

describe.skipIf(!PG)('stamps bumped at commit', () => {
  it('a writer does not wait for another write transaction that is still open; each bumps its stamps once, when it commits', async () => {
    const before = await stamps();
    let commitNow!: () => void;
    const mayCommit = new Promise<void>((r) => { commitNow = r; });
    let written!: (inside: Record<string, number>) => void;
    const hasWritten = new Promise<Record<string, number>>((r) => { written = r; });
    // An edit of a user who wrote nothing: the user row (what comments show of users: 'comments') and its search document ('search'), two statements.
    const open = t.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ username: 'Renamed while open' }).where('userid', '=', other.userid).execute();
      await trx.updateTable('users').set({ reputation: 7 }).where('userid', '=', other.userid).execute();
      const inside = Object.fromEntries((await trx.selectFrom('cache_stamps').select(['key', 'stamp']).where('key', 'in', ['comments', 'search']).execute()).map((r) => [r.key, Number(r.stamp)]));
      written(inside);
      await mayCommit;
    });
    let commented = false;
    let comment: Promise<unknown> = Promise.resolve();
    try {
      // Not bumped yet, not even as the transaction itself sees them.
      expect(await hasWritten).toEqual(before);
      // A comment bumps 'comments' and 'search' too: it commits while the edit is open (before, it waited for the edit's commit).
      const posted = t.post(`/comments/guide/${guideid}`, { token: reader.token, body: { text: 'Written beside an open edit.' } }).then((res) => { commented = true; return res; });
      comment = posted;
      await untilWaitingOr(() => commented);
      expect(commented).toBe(true);
      expect((await posted).statusCode).toBe(201);
      expect(await stamps()).toEqual({ comments: before.comments + 1, search: before.search + 1 });
    } finally {
      commitNow();
      await open;
      await comment;
    }
    expect(await stamps()).toEqual({ comments: before.comments + 2, search: before.search + 2 });
  });

  it('a transaction rolled back, or a savepoint rolled back, bumps nothing', async () => {
    const before = await stamps();
    await expect(t.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ reputation: 9 }).where('userid', '=', other.userid).execute();
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await stamps()).toEqual(before);
    await t.db.transaction().execute(async (trx) => {
      await sql`savepoint s`.execute(trx);
      await trx.updateTable('users').set({ reputation: 10 }).where('userid', '=', other.userid).execute();
      await sql`rollback to savepoint s`.execute(trx);
    });
    expect(await stamps()).toEqual(before);
  });
});

describe.skipIf(!PG)('the migration that moves bumps to commit', () => {
  const bodies = async () => (await sql<{ proname: string; prosrc: string }>`
    select p.proname, p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prosrc like '%cache_stamp%' order by p.proname`.execute(t.db)).rows;
  const flushTriggers = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_trigger where tgname = 'cache_stamps_flush'`.execute(t.db)).rows[0].n;

  it('down writes every trigger function back as it was; up again gives the same functions', async () => {
    // The shards' migration, later, rewrote the flush: taken back first, made again last.
    await stampShards.down(t.db);
    const up = await bodies();
    expect(up.filter((f) => f.prosrc.includes('perform cache_stamp_later(')).length).toBeGreaterThan(20);
    expect(await flushTriggers()).toBeGreaterThan(10);
    await stampsAtCommit.down(t.db);
    const down = await bodies();
    expect(down.some((f) => f.prosrc.includes('cache_stamp_later'))).toBe(false);
    expect(down.filter((f) => f.prosrc.includes("update cache_stamps set stamp = stamp + 1 where key = '")).length).toBe(up.filter((f) => f.prosrc.includes('perform cache_stamp_later(')).length);
    expect(await flushTriggers()).toBe(0);
    await stampsAtCommit.up(t.db);
    expect(await bodies()).toEqual(up);
    await stampShards.up(t.db);
  });
});

/** A connection of its own to the test's database, and the shard its commits bump. */
async function connection() {
  const client = new pg.Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ shard: number }>('select 1 + pg_backend_pid() % 8 as shard');
  return { client, shard: rows[0].shard };
}

describe.skipIf(!PG)('stamps in shards', () => {
  const shardRows = async () => new Map((await sql<{ shard: number; stamp: number }>`select shard, stamp from cache_stamp_shards where key = 'comments'`.execute(t.db)).rows.map((r) => [r.shard, r.stamp]));

  it('a commit does not wait for another connection\'s commit that holds its own shard\'s rows; each bumps its own shard', async () => {
    const before = await stamps();
    const rowsBefore = await shardRows();
    const first = await connection();
    const others: pg.Client[] = [];
    let second = await connection();
    while (second.shard === first.shard) {
      others.push(second.client);
      second = await connection();
    }
    try {
      // The first bumps 'comments' and 'search' (a user's row) and runs its commit's flush
      // now: it holds its shard's rows of both stamps until it commits.
      await first.client.query('begin');
      await first.client.query('update users set reputation = reputation + 1 where userid = $1', [other.userid]);
      await first.client.query('set constraints all immediate');
      // The second bumps the same stamps and commits while the first is open (before the
      // shards, it waited on the rows the first held).
      let committed = false;
      const write = (async () => {
        await second.client.query('begin');
        await second.client.query('update users set reputation = reputation + 1 where userid = $1', [reader.userid]);
        await second.client.query('commit');
        committed = true;
      })();
      await untilWaitingOr(() => committed);
      expect(committed).toBe(true);
      await write;
      expect(await stamps()).toEqual({ comments: before.comments + 1, search: before.search + 1 });
      await first.client.query('commit');
      expect(await stamps()).toEqual({ comments: before.comments + 2, search: before.search + 2 });
    } finally {
      await Promise.all([first.client, second.client, ...others].map((c) => c.end()));
    }
    const rowsAfter = await shardRows();
    // Every shard's row was there before (a write adds none); the two writers' moved by one each.
    expect([...rowsAfter.keys()].sort()).toEqual([...rowsBefore.keys()].sort());
    expect(rowsBefore.size).toBe(9);
    for (const [shard, stamp] of rowsAfter) expect(stamp - rowsBefore.get(shard)!, `shard ${shard}`).toBe(shard === first.shard || shard === second.shard ? 1 : 0);
  });

  it('a stamp read is the sum of its shards; written through the view, it moves as written', async () => {
    const before = await stamps();
    await Promise.all(Array.from({ length: 6 }, (_, i) => t.post(`/comments/guide/${guideid}`, { token: reader.token, body: { text: `Comment ${i} among concurrent ones.` } })));
    const after = await stamps();
    expect(after.comments).toBe(before.comments + 6);
    const sum = await sql<{ total: number }>`select sum(stamp)::int as total from cache_stamp_shards where key = 'comments'`.execute(t.db);
    expect(sum.rows[0].total).toBe(after.comments);
    await bump(t.db, 'comments');
    await t.db.updateTable('cache_stamps').set({ stamp: after.comments + 10 }).where('key', '=', 'search').execute();
    expect(await stamps()).toEqual({ comments: after.comments + 1, search: after.comments + 10 });
    // A stamp made through the view has every shard's row, the value in shard 0; removed, none.
    await t.db.insertInto('cache_stamps').values({ key: 'probe', stamp: 5 }).execute();
    const probe = await sql<{ shard: number; stamp: number }>`select shard, stamp from cache_stamp_shards where key = 'probe' order by shard`.execute(t.db);
    expect(probe.rows).toEqual(Array.from({ length: 9 }, (_, shard) => ({ shard, stamp: shard === 0 ? 5 : 0 })));
    await t.db.deleteFrom('cache_stamps').where('key', '=', 'probe').execute();
    expect((await sql<{ n: number }>`select count(*)::int as n from cache_stamp_shards where key = 'probe'`.execute(t.db)).rows[0].n).toBe(0);
  });

  it('down puts each stamp\'s sum back into one row of a table; up spreads them again', async () => {
    const before = await stamps();
    await stampShards.down(t.db);
    try {
      const kind = await sql<{ relkind: string }>`select relkind from pg_class where relname = 'cache_stamps'`.execute(t.db);
      expect(kind.rows[0].relkind).toBe('r');
      expect(await stamps()).toEqual(before);
    } finally {
      await stampShards.up(t.db);
    }
    expect(await stamps()).toEqual(before);
    await t.post(`/comments/guide/${guideid}`, { token: reader.token, body: { text: 'After the shards came back.' } });
    expect((await stamps()).comments).toBe(before.comments + 1);
  });
});
