// Frozen in time: never edit a migration that has landed; add a new one.
// The 'course_reach' stamp in `cache_stamps`: what decides which users a course's
// assignments reach and which assignee rows are stored for them (course-progress.ts,
// `planSync`). Every read of a course's assignees compared the two first (two joins over
// the assignments, their teams' members and the users, and every stored row of the course:
// about 1.2 of a read's 1.7 ms with 200 assignees), though nearly always nothing had
// changed; team membership changes without any write of the courses area, so the read
// cannot just trust what the writes did. Now a read that found nothing to change notes the
// stamp it read before comparing, and the next read with the same stamp skips the comparison.
//
// Bumped by what the comparison reads:
//  - course_assignments: any write (who, cancelled, created_date, due_within);
//  - team_members: any write;
//  - courses: a new or removed row, or `deleted` set;
//  - users: a new or removed row (a user's name is copied at insert only);
//  - course_assignees: a new or removed row, or one of the columns compared (`active`,
//    the assignment, its dates; not status or progress, which completions rewrite).
//
// PostgreSQL: once per statement, noted for the commit like every stamp (cache_stamp_later,
// 2026_11_25_0720). The commit's flush trigger (`cache_stamps_flush`, by that name, so that
// 0720's `down` finds it) is added to the three tables that had none: team_members and users
// have had one since 0720 (the 'comments' stamp watches them).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const KEY = 'course_reach';
/** Per table: what bumps the stamp (all of it, or the update of these columns and any insert or delete). */
const WATCHED: Array<{ table: string; columns?: string[] }> = [
  { table: 'course_assignments' },
  { table: 'team_members' },
  { table: 'courses', columns: ['deleted'] },
  { table: 'users', columns: [] },
  { table: 'course_assignees', columns: ['wikiid', 'userid', 'active', 'course_assignmentid', 'assignment_date', 'due_date'] },
];
const BUMP = `update cache_stamps set stamp = stamp + 1 where key = '${KEY}'`;
/** PostgreSQL: the watched tables without the commit's flush trigger before this migration. */
const NEW_FLUSH = ['course_assignments', 'courses', 'course_assignees'];

/** The events of a table's triggers, with the suffix of their names. */
function events(w: (typeof WATCHED)[number]): Array<[string, string]> {
  const update: Array<[string, string]> = !w.columns ? [['update', 'au']] : w.columns.length ? [[`update of ${w.columns.join(', ')}`, 'au']] : [];
  return [['insert', 'ai'], ['delete', 'ad'], ...update];
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values({ key: KEY, stamp: 0 }).execute();
  if (isPostgres(db)) {
    await sql.raw(`create function course_reach_bump() returns trigger language plpgsql as $fn$
begin
  perform cache_stamp_later('${KEY}');
  return null;
end
$fn$`).execute(db);
    for (const w of WATCHED) {
      const on = events(w).map(([event]) => event).join(' or ');
      await sql.raw(`create trigger course_reach_${w.table} after ${on} on ${w.table} for each statement execute function course_reach_bump()`).execute(db);
      // Once per row written, at COMMIT: only for the events that note something.
      if (NEW_FLUSH.includes(w.table)) await sql.raw(`create constraint trigger cache_stamps_flush after ${on} on ${w.table} deferrable initially deferred for each row execute function cache_stamps_flush()`).execute(db);
    }
    return;
  }
  for (const w of WATCHED) {
    for (const [event, suffix] of events(w)) await sql.raw(`create trigger course_reach_${w.table}_${suffix} after ${event} on ${w.table} for each row begin ${BUMP}; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const w of WATCHED) await sql.raw(`drop trigger if exists course_reach_${w.table} on ${w.table}`).execute(db);
    for (const table of NEW_FLUSH) await sql.raw(`drop trigger if exists cache_stamps_flush on ${table}`).execute(db);
    await sql`drop function if exists course_reach_bump()`.execute(db);
  } else {
    for (const w of WATCHED) for (const [, suffix] of events(w)) await sql.raw(`drop trigger if exists course_reach_${w.table}_${suffix}`).execute(db);
  }
  await db.deleteFrom('cache_stamps').where('key', '=', KEY).execute();
}
