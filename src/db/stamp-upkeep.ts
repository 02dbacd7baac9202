// PostgreSQL: the cache stamps' table kept small. Every write bumps a row of
// `cache_stamp_shards` at its commit (migration 2026_11_28_0100_stamp_shards), a new
// version of the row each time. PostgreSQL prunes the old versions as it goes, unless a
// transaction older than them is still open (a pg_dump, a long report, a seeding): then
// every version stays, the table grows by a page every hundred or so writes, and when the
// transaction ends VACUUM empties those pages but cannot give them back, because the live
// rows, written last, sit in the last pages. The table stays that size for good, and
// every read of all the stamps (`cache_stamps`, a view of the shards' sums: every list
// page, the hierarchy) scans all of it: 91 pages after 7 000 comments written beside one
// 25-second transaction on the 1 000-guide bench database, where 7 did before.
//
// So each server process looks at the table's size when it starts and now and then; past
// MAX_PAGES it runs a plain VACUUM first, and if that left no dead row it could not remove
// (no old transaction holds them any more), rewrites the table (VACUUM FULL: a few dozen
// rows, about a millisecond). The rewrite takes the table's exclusive lock, so it waits at most
// LOCK_TIMEOUT_MS for it and otherwise gives up until the next look; meanwhile requests
// that read or bump the stamps wait behind it, at most that long, once. Several processes
// may look at once: the second finds the table small.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Past this size the table is compacted: a fresh one holds its rows in 1 or 2 pages, one in use in a few. */
export const MAX_PAGES = 32;
/** The longest a rewrite waits for the table's lock, and so the longest a request waits for the rewrite to begin. */
export const LOCK_TIMEOUT_MS = 50;
/** Between two looks, in each server process (wall clock: upkeep of the database, not the app's time). */
export const UPKEEP_INTERVAL_MS = 30_000;

export type StampUpkeep =
  /** Small enough: nothing done. */
  | { action: 'none'; pages: number }
  /** VACUUM brought it back under MAX_PAGES (its last pages were empty). */
  | { action: 'vacuumed'; pages: number }
  /** Dead rows remain that an older transaction may still read: compacting now would copy them; tried again later. */
  | { action: 'held'; pages: number; dead: number }
  /** Rewritten: `pages` after, `before` before. */
  | { action: 'compacted'; pages: number; before: number }
  /** The lock was not had within LOCK_TIMEOUT_MS; tried again later. */
  | { action: 'busy'; pages: number };

/** The table's size in pages. */
export const stampTablePages = async (db: Kysely<Database>) => (await sql<{ pages: number }>`select (pg_relation_size('cache_stamp_shards') / current_setting('block_size')::int)::int as pages`.execute(db)).rows[0].pages;

/** One look at the stamps' table (PostgreSQL only), compacting it when it has grown and can be. */
export async function keepStampTableSmall(db: Kysely<Database>, maxPages = MAX_PAGES): Promise<StampUpkeep> {
  const pages = await stampTablePages(db);
  if (pages <= maxPages) return { action: 'none', pages };
  await sql`vacuum cache_stamp_shards`.execute(db);
  const vacuumed = await stampTablePages(db);
  if (vacuumed <= maxPages) return { action: 'vacuumed', pages: vacuumed };
  // VACUUM leaves the count of dead rows it could not remove in the statistics it reports.
  const dead = (await sql<{ dead: number }>`select coalesce(n_dead_tup, 0)::int as dead from pg_stat_user_tables where relid = 'cache_stamp_shards'::regclass`.execute(db)).rows[0]?.dead ?? 0;
  if (dead > 0) return { action: 'held', pages: vacuumed, dead };
  return db.connection().execute(async (conn) => {
    await sql.raw(`set lock_timeout = ${LOCK_TIMEOUT_MS}`).execute(conn);
    try {
      await sql`vacuum full cache_stamp_shards`.execute(conn);
      return { action: 'compacted' as const, pages: await stampTablePages(conn), before: vacuumed };
    } catch (err) {
      // 55P03: lock_not_available (the lock timeout).
      if ((err as { code?: string }).code === '55P03') return { action: 'busy' as const, pages: vacuumed };
      throw err;
    } finally {
      await sql`reset lock_timeout`.execute(conn);
    }
  });
}

/** Looks now and every `intervalMs` in the background until stopped (stop awaits a look under way); a failed look is reported and the next one goes on. */
export function startStampUpkeep(db: Kysely<Database>, onError: (err: unknown) => void, intervalMs = UPKEEP_INTERVAL_MS): { stop(): Promise<void> } {
  let current: Promise<void> | null = null;
  const look = () => { current ??= keepStampTableSmall(db).then(() => undefined, onError).finally(() => { current = null; }); };
  // A first look at once: a process started after a seeding or a restore finds the table as they left it.
  look();
  const timer = setInterval(look, intervalMs);
  timer.unref();
  return { stop: async () => { clearInterval(timer); await current; } };
}
