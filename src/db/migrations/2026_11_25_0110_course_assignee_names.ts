// Frozen in time: never edit a migration that has landed; add a new one.
// `course_assignees.username` copies the user's `username_lower` so that assignee lists
// sort and search by name from an index; a rename must reach the copy, whoever renames
// (the users area, an Admin, SQL by hand): a trigger keeps it, in the rename's transaction.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const SET = 'update course_assignees set username = NEW.username_lower where userid = NEW.userid';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`create function course_assignee_names() returns trigger language plpgsql as $fn$
begin
  ${SET};
  return null;
end
$fn$`).execute(db);
    await sql.raw('create trigger course_assignee_names after update of username_lower on users for each row when (OLD.username_lower is distinct from NEW.username_lower) execute function course_assignee_names()').execute(db);
  } else {
    await sql.raw(`create trigger course_assignee_names after update of username_lower on users for each row when OLD.username_lower is not NEW.username_lower begin ${SET}; end`).execute(db);
  }
  // Copies already stale when this runs.
  await sql`update course_assignees set username = (select u.username_lower from users u where u.userid = course_assignees.userid)
    where username <> (select u.username_lower from users u where u.userid = course_assignees.userid)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw('drop trigger if exists course_assignee_names on users').execute(db);
    await sql.raw('drop function if exists course_assignee_names()').execute(db);
  } else await sql.raw('drop trigger if exists course_assignee_names').execute(db);
}
