// Frozen in time: never edit a migration that has landed; add a new one.
// The 'guide_titles' stamp in `cache_stamps`: bumped by every change of what a link to a
// guide shows in another guide's rendered text (a guide's title, whether it is public or
// deleted, a guide added or removed), so that stored guide records and rendered texts
// (guides.stored.ts) can be kept for as long as their media URLs live instead of a few
// minutes: one indexed lookup says whether any linked title may have changed. Coarse (any
// title anywhere) but exact, and titles change rarely next to reads.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const CHANGED = `old.title is distinct from new.title or old.public is distinct from new.public or old.deleted is distinct from new.deleted or old.guideid is distinct from new.guideid or old.langid is distinct from new.langid`;
const BUMP = `update cache_stamps set stamp = stamp + 1 where key = 'guide_titles'`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values({ key: 'guide_titles', stamp: 0 }).execute();
  if (isPostgres(db)) {
    await sql.raw(`create function guide_titles_bump() returns trigger language plpgsql as $fn$
begin
  ${BUMP};
  return null;
end
$fn$`).execute(db);
    // Insert and delete once per statement (a bulk load bumps once); an update per changed row.
    await sql.raw(`create trigger guide_titles_insdel after insert or delete on guides for each statement execute function guide_titles_bump()`).execute(db);
    await sql.raw(`create trigger guide_titles_update after update on guides for each row when (${CHANGED.replaceAll('old.', 'OLD.').replaceAll('new.', 'NEW.')}) execute function guide_titles_bump()`).execute(db);
  } else {
    const changed = CHANGED.replaceAll('is distinct from', 'is not');
    await sql.raw(`create trigger guide_titles_ai after insert on guides for each row begin ${BUMP}; end`).execute(db);
    await sql.raw(`create trigger guide_titles_ad after delete on guides for each row begin ${BUMP}; end`).execute(db);
    await sql.raw(`create trigger guide_titles_au after update on guides for each row when ${changed} begin ${BUMP}; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger if exists guide_titles_insdel on guides`).execute(db);
    await sql.raw(`drop trigger if exists guide_titles_update on guides`).execute(db);
    await sql.raw(`drop function if exists guide_titles_bump()`).execute(db);
  } else for (const t of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists guide_titles_${t}`).execute(db);
  await db.deleteFrom('cache_stamps').where('key', '=', 'guide_titles').execute();
}
