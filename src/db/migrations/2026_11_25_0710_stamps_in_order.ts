// Frozen in time: never edit a migration that has landed; add a new one.
// PostgreSQL: the rows of `cache_stamps` are locked in one order. Triggers bump stamps as a
// write goes (a comment bumps 'comments', then 'search'; a user's edit 'search' through the
// search index, then 'comments'; a video's encodings 'search' through the wikis that show
// it), so two or three concurrent write transactions could each hold one stamp's row and
// wait for another's: PostgreSQL found the deadlock after a second and failed one of them
// (a 500 to its client, seen in the crash test's concurrent writers). Now, before any
// statement updates the table, it locks every row in key order (a statement-level trigger:
// it runs before the statement locks a row of its own), so the transaction that bumps first
// goes first and the others wait their turn. They waited for each other anyway, from their
// first bump to their commit: almost every write bumps 'search'. SQLite: nothing to do (one
// writer at a time).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create function cache_stamps_in_order() returns trigger language plpgsql as $fn$
begin
  perform 1 from cache_stamps order by key for update;
  return null;
end
$fn$`.execute(db);
  await sql`create trigger cache_stamps_in_order before update on cache_stamps for each statement execute function cache_stamps_in_order()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger if exists cache_stamps_in_order on cache_stamps`.execute(db);
  await sql`drop function if exists cache_stamps_in_order()`.execute(db);
}
