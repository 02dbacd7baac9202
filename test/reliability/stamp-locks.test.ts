// PostgreSQL: write transactions that bump several stamps of `cache_stamps` in different
// orders (a comment: 'comments' then 'search'; a user's edit: 'search' then 'comments')
// take their turn instead of deadlocking (migration 2026_11_25_0710_stamps_in_order): the
// first statement that updates the table locks every row in key order. Before, PostgreSQL
// found the cycle after a second and failed one of them (a 500 to its client). SQLite
// writes one transaction at a time: nothing to test there.
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { appForFile } from '../helpers/app.js';

const PG = Boolean(process.env.TEST_DATABASE_URL);
const t = appForFile();

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
