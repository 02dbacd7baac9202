// Frozen in time: never edit a migration that has landed; add a new one.
// PostgreSQL: the stamps of `cache_stamps` are bumped at commit, not as a write goes.
// A trigger's `update cache_stamps ... where key = 'k'` locked that row from the write's
// first statement to its commit, and almost every write bumps 'search': every other
// writer waited through the whole transaction, its round trips to the server and the
// server's event loop included (comment POSTs at 214 req/s, PATCH 126 at 100 000 guides).
// Now those triggers only note the key in a transaction-local setting
// (`cache_stamp_later`), and a deferred constraint trigger on each table they watch bumps
// the noted keys once, at COMMIT (`cache_stamps_flush`): the rows are held for the commit
// alone. Readers see no difference: the new stamps become visible with the data, in the
// same commit, as before. A rolled-back savepoint takes its notes with it (set_config is
// transactional). The key-order lock of 0710 stays: it orders the commits' bumps too.
//
// The trigger functions are rewritten in place, found by their text (every one that bumps
// a stamp, whichever migration made it), and written back by `down`. SQLite: nothing to do
// (one writer at a time).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const BUMP = /update cache_stamps set stamp = stamp \+ 1 where key = '([a-z_]+)'/g;
const LATER = /perform cache_stamp_later\('([a-z_]+)'\)/g;

async function bumpingFunctions(db: Kysely<any>, pattern: string) {
  const found = await sql<{ proname: string; prosrc: string }>`
    select p.proname, p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype and p.prosrc like ${pattern}`.execute(db);
  return found.rows;
}

/** The tables whose triggers call one of `functions`. */
async function watchedTables(db: Kysely<any>, functions: string[]) {
  const found = await sql<{ relname: string }>`
    select distinct c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
    where not t.tgisinternal and p.proname = any(${functions}) order by c.relname`.execute(db);
  return found.rows.map((r) => r.relname);
}

const rewrite = (name: string, body: string) => sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $fn$${body}$fn$`);

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create function cache_stamp_later(k text) returns void language plpgsql as $fn$
declare
  pending text := coalesce(current_setting('cache_stamps.pending', true), '');
begin
  if position(',' || k || ',' in pending) = 0 then
    perform set_config('cache_stamps.pending', (case when pending = '' then ',' else pending end) || k || ',', true);
  end if;
end
$fn$`.execute(db);
  await sql`create function cache_stamps_flush() returns trigger language plpgsql as $fn$
declare
  pending text := coalesce(current_setting('cache_stamps.pending', true), '');
begin
  if pending <> '' then
    perform set_config('cache_stamps.pending', '', true);
    update cache_stamps set stamp = stamp + 1 where key = any(string_to_array(trim(both ',' from pending), ','));
  end if;
  return null;
end
$fn$`.execute(db);
  const functions = await bumpingFunctions(db, '%update cache_stamps set stamp = stamp + 1 where key = %');
  for (const f of functions) await rewrite(f.proname, f.prosrc.replace(BUMP, "perform cache_stamp_later('$1')")).execute(db);
  for (const table of await watchedTables(db, functions.map((f) => f.proname))) {
    // Each row written queues one call for COMMIT; all but the first find nothing noted.
    await sql.raw(`create constraint trigger cache_stamps_flush after insert or update or delete on ${table} deferrable initially deferred for each row execute function cache_stamps_flush()`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  const functions = await bumpingFunctions(db, '%perform cache_stamp_later(%');
  const tables = await sql<{ relname: string }>`
    select c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid where t.tgname = 'cache_stamps_flush'`.execute(db);
  for (const { relname } of tables.rows) await sql.raw(`drop trigger cache_stamps_flush on ${relname}`).execute(db);
  for (const f of functions) await rewrite(f.proname, f.prosrc.replace(LATER, "update cache_stamps set stamp = stamp + 1 where key = '$1'")).execute(db);
  await sql`drop function if exists cache_stamps_flush()`.execute(db);
  await sql`drop function if exists cache_stamp_later(text)`.execute(db);
}
