// Frozen in time: never edit a migration that has landed; add a new one.
// PostgreSQL: each stamp of `cache_stamps` is kept in shards, one per group of connections,
// and read as their sum. Every write bumped the same rows at commit ('search' by nearly
// every write, 'comments' by every comment), and a transaction holds the rows it updated
// until its commit record is flushed to disk: each writer waited for the one before it to
// reach the disk, and no two commits shared a flush. Measured with pgbench (the comment's
// insert and its triggers, 8 clients, a 1 000-guide site): 580 to 940 transactions per
// second; 3 200 to 3 500 with `synchronous_commit = off`, which showed it was the disk
// waited for in line; about 1 500 to 2 100 with the rows in shards.
//
// The rows are `cache_stamp_shards (key, shard, stamp)`; `cache_stamps` is a view of
// their sums, so every reader (the app, the tests, a tool) reads what it read before, and
// a stamp still moves when, and only when, a write that bumps it commits: a sum of
// counters that only grow cannot come back to a value it had. The commit's flush
// (`cache_stamps_flush`, 0720) bumps the rows of its connection's shard (1 + the backend's
// pid modulo 8) in key order, so that two writers on one shard take them in the same order
// and never deadlock. Every stamp has all its shards' rows from the start (a write adds no
// row: the tables' row counts stay what the requests made). Shard 0 holds what the table held, and the
// view's writes (a test or an operator's `update cache_stamps ...`: no trigger writes the
// table directly since 0720) go there through INSTEAD OF triggers, each write taking every
// shard-0 row in key order first, the rule of 0710 (whose trigger on the table is dropped:
// the flush orders its own rows, and locking every stamp's row put every writer back in one
// line).
//
// Readers pay the sum: a few dozen rows instead of a dozen. SQLite: nothing to do (one
// writer at a time).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Shards a stamp is spread over (besides shard 0): a pool of ten connections per process mostly lands on different ones. */
const SHARDS = 8;

const FLUSH_0720 = `
declare
  pending text := coalesce(current_setting('cache_stamps.pending', true), '');
begin
  if pending <> '' then
    perform set_config('cache_stamps.pending', '', true);
    update cache_stamps set stamp = stamp + 1 where key = any(string_to_array(trim(both ',' from pending), ','));
  end if;
  return null;
end
`;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger cache_stamps_in_order on cache_stamps`.execute(db);
  await sql`drop function cache_stamps_in_order()`.execute(db);
  await sql`alter table cache_stamps rename to cache_stamp_shards`.execute(db);
  await sql`alter table cache_stamp_shards add column shard integer not null default 0`.execute(db);
  await sql`alter table cache_stamp_shards drop constraint cache_stamps_pkey`.execute(db);
  await sql`alter table cache_stamp_shards add constraint cache_stamp_shards_pkey primary key (key, shard)`.execute(db);
  await sql`insert into cache_stamp_shards (key, shard, stamp) select key, s, 0 from cache_stamp_shards, generate_series(1, ${sql.lit(SHARDS)}) as s`.execute(db);
  await sql`create view cache_stamps as select key, sum(stamp)::integer as stamp from cache_stamp_shards group by key`.execute(db);
  await sql.raw(`create function cache_stamps_write() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'INSERT' then
    insert into cache_stamp_shards (key, shard, stamp) select NEW.key, s, case when s = 0 then NEW.stamp else 0 end from generate_series(0, ${SHARDS}) as s;
    return NEW;
  end if;
  if tg_op = 'DELETE' then
    delete from cache_stamp_shards where key = OLD.key;
    return OLD;
  end if;
  if NEW.key is distinct from OLD.key then
    raise exception 'a stamp''s key does not change (% to %)', OLD.key, NEW.key;
  end if;
  perform 1 from cache_stamp_shards where shard = 0 order by key for update;
  update cache_stamp_shards set stamp = stamp + (NEW.stamp - OLD.stamp) where key = OLD.key and shard = 0;
  return NEW;
end
$fn$`).execute(db);
  // Reads NEW and OLD: planned once per connection, as 0800 sets for every such function.
  await sql`alter function cache_stamps_write() set plan_cache_mode = force_generic_plan`.execute(db);
  await sql`create trigger cache_stamps_write instead of insert or update or delete on cache_stamps for each row execute function cache_stamps_write()`.execute(db);
  await sql.raw(`create or replace function cache_stamps_flush() returns trigger language plpgsql as $fn$
declare
  pending text := coalesce(current_setting('cache_stamps.pending', true), '');
begin
  if pending <> '' then
    perform set_config('cache_stamps.pending', '', true);
    -- An upsert, whose rows are taken in the order given (an UPDATE takes them in the order
    -- its plan finds them); a key with no row (none is noted that has none) gets one.
    insert into cache_stamp_shards as s (key, shard, stamp)
      select k, 1 + pg_backend_pid() % ${SHARDS}, 1 from unnest(string_to_array(trim(both ',' from pending), ',')) as k order by k
      on conflict (key, shard) do update set stamp = s.stamp + 1;
  end if;
  return null;
end
$fn$`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql.raw(`create or replace function cache_stamps_flush() returns trigger language plpgsql as $fn$${FLUSH_0720}$fn$`).execute(db);
  await sql`drop view cache_stamps`.execute(db);
  await sql`drop function cache_stamps_write()`.execute(db);
  // Each stamp's sum into one row of shard 0.
  await sql`insert into cache_stamp_shards (key, shard, stamp) select key, -1, sum(stamp)::integer from cache_stamp_shards group by key`.execute(db);
  await sql`delete from cache_stamp_shards where shard <> -1`.execute(db);
  await sql`alter table cache_stamp_shards drop constraint cache_stamp_shards_pkey`.execute(db);
  await sql`alter table cache_stamp_shards drop column shard`.execute(db);
  await sql`alter table cache_stamp_shards add constraint cache_stamps_pkey primary key (key)`.execute(db);
  await sql`alter table cache_stamp_shards rename to cache_stamps`.execute(db);
  await sql`create function cache_stamps_in_order() returns trigger language plpgsql as $fn$
begin
  perform 1 from cache_stamps order by key for update;
  return null;
end
$fn$`.execute(db);
  await sql`create trigger cache_stamps_in_order before update on cache_stamps for each statement execute function cache_stamps_in_order()`.execute(db);
}
