// Frozen in time: never edit a migration that has landed; add a new one.
// The triggers that bump the cache stamps of the guides requiring a guide (migrations
// 1420 and 1510: `guide_cache_guides_dependents_*`) now run their update only when some
// guide requires it. Most guides are nobody's prerequisite, and the update (a union of
// two lookups into a list, then an update of no row) cost a guide edit on SQLite about
// 0.1 to 0.2 ms of its 3 ms, commit included; the guard is one probe of the same index.
// Both branches of the union start from a row whose prereq_guideid is the guide's id, so
// without one the update touches nothing: what the triggers do is unchanged. SQLite: a
// WHEN clause (the body does not run at all); PostgreSQL, which allows no subquery in a
// trigger's WHEN, the same test in the function.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Columns of a guide that its dependents show (as migration 1420 watched them). */
const PREREQ_COLUMNS = ['revisionid', 'userid', 'type', 'category', 'title', 'subject', 'summary', 'difficulty', 'time_required_max', 'public', 'deleted', 'imageid', 'step_imageid', 'modified_date'];

const TRIGGERS = [
  { name: 'guide_cache_guides_dependents_ai', event: 'insert', row: 'NEW' },
  { name: 'guide_cache_guides_dependents_au', event: `update of ${PREREQ_COLUMNS.join(', ')}`, row: 'NEW' },
  { name: 'guide_cache_guides_dependents_ad', event: 'delete', row: 'OLD' },
] as const;

const bump = (row: string) => `update guides set cache_stamp = cache_stamp + 1 where guideid in (select guideid from guide_prereqs where prereq_guideid = ${row}.guideid
  union select p2.guideid from guide_prereqs p2 join guide_prereqs p1 on p1.guideid = p2.prereq_guideid where p1.prereq_guideid = ${row}.guideid)`;
const required = (row: string) => `exists (select 1 from guide_prereqs where prereq_guideid = ${row}.guideid)`;

async function write(db: Kysely<any>, guarded: boolean): Promise<void> {
  for (const t of TRIGGERS) {
    if (isPostgres(db)) {
      const body = guarded ? `if ${required(t.row)} then\n    ${bump(t.row)};\n  end if` : bump(t.row);
      await sql.raw(`create or replace function ${t.name}() returns trigger language plpgsql as $fn$
begin
  ${body};
  return null;
end
$fn$`).execute(db);
    } else {
      await sql.raw(`drop trigger if exists ${t.name}`).execute(db);
      await sql.raw(`create trigger ${t.name} after ${t.event} on guides for each row ${guarded ? `when ${required(t.row)}` : ''} begin ${bump(t.row)}; end`).execute(db);
    }
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await write(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await write(db, false);
}
