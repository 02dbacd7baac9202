// Frozen in time: never edit a migration that has landed; add a new one.
// PostgreSQL: every trigger function plans its statements once per connection, not at every
// call. PL/pgSQL keeps a plan per statement, but a statement that names NEW or OLD has
// parameters, and the plan cache re-planned such a statement for each row when a plan for
// the row's values looked cheaper than the generic one. It nearly always does when a CASE
// picks a subquery by a column of NEW: the search index's triggers (search_comments_sync
// and its kin) were planned again at every comment, their subqueries included: a fifth of
// PostgreSQL's CPU per comment (perf: GetCachedPlan 10 % of the machine's samples under
// the comment load, planning 8 %; 821 -> 646 µs of PostgreSQL's CPU per comment, measured
// by bench/cpu-per-request.ts). The generic plans are what the triggers need: index
// lookups by a key of NEW or OLD, and a CASE evaluated per row.
//
// Set on each PL/pgSQL trigger function that reads NEW or OLD (only their statements have
// parameters; a setting of the function costs every call a save and restore of the
// setting, about 10 µs: set on all 81, a comment cost 45 µs more than with the 54). A
// later migration that creates or replaces such a function sets it too:
// `test/db/generic-plans.test.ts` checks every one. SQLite: nothing to do (no plan cache).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** The schema's PL/pgSQL trigger functions that read the row (NEW or OLD), by signature. */
async function triggerFunctions(db: Kysely<any>): Promise<string[]> {
  const rows = await sql<{ signature: string }>`
    select p.oid::regprocedure::text as signature from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype
      and p.prolang = (select oid from pg_language where lanname = 'plpgsql') and p.prosrc ~* '\\m(new|old)\\.'
    order by 1`.execute(db);
  return rows.rows.map((r) => r.signature);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const f of await triggerFunctions(db)) await sql.raw(`alter function ${f} set plan_cache_mode = force_generic_plan`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const f of await triggerFunctions(db)) await sql.raw(`alter function ${f} reset plan_cache_mode`).execute(db);
}
