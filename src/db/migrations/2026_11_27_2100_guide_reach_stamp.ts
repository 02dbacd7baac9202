// Frozen in time: never edit a migration that has landed; add a new one.
// The 'guide_reach' stamp in `cache_stamps`: which guides, languages and steps exist and
// whom they reach (guides' `public` and `deleted`), what decides which guide and step
// comments a reader is shown (comments.queries.ts, `onReadableGuides`, for the readers
// whose pages are kept: anonymous ones and those who read every guide). Pages of comments
// followed the 'guides' stamp for it, which every edit of a guide's text bumps: in the
// mixed load every PATCH threw the kept page of comments away, and the next reader built
// it again (five statements and twenty comments rendered and serialized).
//
// Bumped by:
//  - guides: a new or removed row (a guide or a language of one), or an update of its key,
//    `public` or `deleted`;
//  - guide_steps: a new or removed step, or an update of its key or guide.
//
// PostgreSQL: once per statement, noted for the commit like every stamp (cache_stamp_later,
// 2026_11_25_0720). guides has the commit's flush trigger since 0720 (the 'guides' stamp
// watches it); guide_steps, which had none, gets one (`cache_stamps_flush`, by that name, so
// that 0720's `down` finds it, as 0400's).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const KEY = 'guide_reach';
const WATCHED: Array<{ table: string; columns: string[] }> = [
  { table: 'guides', columns: ['guideid', 'langid', 'public', 'deleted'] },
  { table: 'guide_steps', columns: ['stepid', 'guideid', 'langid'] },
];
const BUMP = `update cache_stamps set stamp = stamp + 1 where key = '${KEY}'`;

/** The events of a table's triggers, with the suffix of their names. */
const events = (w: (typeof WATCHED)[number]): Array<[string, string]> => [['insert', 'ai'], ['delete', 'ad'], [`update of ${w.columns.join(', ')}`, 'au']];

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values({ key: KEY, stamp: 0 }).execute();
  if (isPostgres(db)) {
    await sql.raw(`create function guide_reach_bump() returns trigger language plpgsql as $fn$
begin
  perform cache_stamp_later('${KEY}');
  return null;
end
$fn$`).execute(db);
    for (const w of WATCHED) {
      const on = events(w).map(([event]) => event).join(' or ');
      await sql.raw(`create trigger guide_reach_${w.table} after ${on} on ${w.table} for each statement execute function guide_reach_bump()`).execute(db);
    }
    await sql.raw(`create constraint trigger cache_stamps_flush after ${events(WATCHED[1]).map(([event]) => event).join(' or ')} on guide_steps deferrable initially deferred for each row execute function cache_stamps_flush()`).execute(db);
    return;
  }
  for (const w of WATCHED) {
    for (const [event, suffix] of events(w)) await sql.raw(`create trigger guide_reach_${w.table}_${suffix} after ${event} on ${w.table} for each row begin ${BUMP}; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const w of WATCHED) await sql.raw(`drop trigger if exists guide_reach_${w.table} on ${w.table}`).execute(db);
    await sql.raw('drop trigger if exists cache_stamps_flush on guide_steps').execute(db);
    await sql`drop function if exists guide_reach_bump()`.execute(db);
  } else {
    for (const w of WATCHED) for (const [, suffix] of events(w)) await sql.raw(`drop trigger if exists guide_reach_${w.table}_${suffix}`).execute(db);
  }
  await db.deleteFrom('cache_stamps').where('key', '=', KEY).execute();
}
