// Frozen in time: never edit a migration that has landed; add a new one.
// A new language of a guide (a translation) changes what the guides that require it
// show: the prerequisite is shown in the requiring guide's language when it has one, and
// counts for prereq_modified_date (guides.access.ts `preferredRow`). Migration 1420
// bumped the dependents' cache stamps on updates and deletes of a guide row only; this
// adds the insert.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const NAME = 'guide_cache_guides_dependents_ai';
const BODY = `update guides set cache_stamp = cache_stamp + 1 where guideid in (select guideid from guide_prereqs where prereq_guideid = NEW.guideid
  union select p2.guideid from guide_prereqs p2 join guide_prereqs p1 on p1.guideid = p2.prereq_guideid where p1.prereq_guideid = NEW.guideid)`;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`create function ${NAME}() returns trigger language plpgsql as $fn$
begin
  ${BODY};
  return null;
end
$fn$`).execute(db);
    await sql.raw(`create trigger ${NAME} after insert on guides for each row execute function ${NAME}()`).execute(db);
  } else {
    await sql.raw(`create trigger ${NAME} after insert on guides for each row begin ${BODY}; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger if exists ${NAME} on guides`).execute(db);
    await sql.raw(`drop function if exists ${NAME}()`).execute(db);
  } else await sql.raw(`drop trigger if exists ${NAME}`).execute(db);
}
