// Frozen in time: never edit a migration that has landed; add a new one.
// The 'search_titles' stamp in `cache_stamps`: what a suggestion answered from titles alone
// rests on (the title-prefix tier of db/search.ts filled its page). 'search' is bumped by
// every write of search_docs, so every comment and every edit of a guide's summary threw
// away every kept suggestion, though neither changes which titles start with what. This
// one is bumped by what 'search' is bumped by, except the writes of search_docs that change
// no title, visibility or target: bodies (an edit's summary, a step's text) and rows that
// are neither a candidate (no title) nor a target (a comment: it leads to another
// document). The guide records a suggestion shows still follow 'guides'.
//
// PostgreSQL: per row, noted for the commit like every stamp (cache_stamp_later, 0720);
// search_docs, wikis and wiki_translations already have the commit's flush trigger.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const KEY = 'search_titles';
/** What the title tier reads of a row of search_docs (all but `body`). */
const SHOWN = ['kind', 'docid', 'langid', 'namespace', 'title', 'visible', 'target_type', 'target_id', 'target_langid'];
/** A row the title tier may read: a candidate (titled) or a target (a document that leads to itself). */
const READ = (row: 'new' | 'old') => `(${row}.title <> '' or ${row}.kind = ${row}.target_type)`;
const CHANGED = `(${SHOWN.map((c) => `old.${c}`).join(', ')}) is distinct from (${SHOWN.map((c) => `new.${c}`).join(', ')})`;
const SQLITE_CHANGED = SHOWN.map((c) => `old.${c} is not new.${c}`).join(' or ');
const BUMP = `update cache_stamps set stamp = stamp + 1 where key = '${KEY}'`;
const ALWAYS = ['wikis', 'wiki_translations'];
const EVENTS = [['insert', 'ai'], ['delete', 'ad'], ['update', 'au']] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values({ key: KEY, stamp: 0 }).execute();
  if (isPostgres(db)) {
    await sql.raw(`create function search_titles_bump() returns trigger language plpgsql as $fn$
begin
  perform cache_stamp_later('${KEY}');
  return null;
end
$fn$`).execute(db);
    await sql.raw(`create trigger search_titles_ai after insert on search_docs for each row when ${READ('new')} execute function search_titles_bump()`).execute(db);
    await sql.raw(`create trigger search_titles_ad after delete on search_docs for each row when ${READ('old')} execute function search_titles_bump()`).execute(db);
    await sql.raw(`create trigger search_titles_au after update on search_docs for each row when (${CHANGED}) execute function search_titles_bump()`).execute(db);
    for (const table of ALWAYS) {
      await sql.raw(`create trigger search_titles_${table} after insert or update or delete on ${table} for each statement execute function search_titles_bump()`).execute(db);
    }
    return;
  }
  await sql.raw(`create trigger search_titles_ai after insert on search_docs when ${READ('new')} begin ${BUMP}; end`).execute(db);
  await sql.raw(`create trigger search_titles_ad after delete on search_docs when ${READ('old')} begin ${BUMP}; end`).execute(db);
  await sql.raw(`create trigger search_titles_au after update on search_docs when ${SQLITE_CHANGED} begin ${BUMP}; end`).execute(db);
  for (const table of ALWAYS) {
    for (const [event, suffix] of EVENTS) await sql.raw(`create trigger search_titles_${table}_${suffix} after ${event} on ${table} for each row begin ${BUMP}; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const name of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists search_titles_${name} on search_docs`).execute(db);
    for (const table of ALWAYS) await sql.raw(`drop trigger if exists search_titles_${table} on ${table}`).execute(db);
    await sql`drop function if exists search_titles_bump()`.execute(db);
  } else {
    for (const name of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists search_titles_${name}`).execute(db);
    for (const table of ALWAYS) for (const [, suffix] of EVENTS) await sql.raw(`drop trigger if exists search_titles_${table}_${suffix}`).execute(db);
  }
  await db.deleteFrom('cache_stamps').where('key', '=', KEY).execute();
}
