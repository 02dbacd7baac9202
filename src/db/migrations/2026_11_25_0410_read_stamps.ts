// Frozen in time: never edit a migration that has landed; add a new one.
// Two more stamps in `cache_stamps`, kept by the database itself like the guides' and
// the categories' (2026_11_22_1420_guide_cache, 2026_11_24_1400_category_stamp), so that
// every server process can keep answers as bytes and know at one indexed lookup whether
// they still hold:
//  - 'search': bumped by every write of search_docs (what the suggester finds and ranks)
//    and of wikis and wiki translations (what its light wiki records show). The guide
//    records it shows follow the 'guides' stamp.
//  - 'comments': bumped by every write of comments and their media, and of what a
//    comment record shows of others: users (authors' summaries), teams and team members,
//    images and videos. Which guides a reader reads follows the 'guides' stamp.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const TRIGGERS: Array<{ stamp: string; table: string }> = [
  { stamp: 'search', table: 'search_docs' },
  { stamp: 'search', table: 'wikis' },
  { stamp: 'search', table: 'wiki_translations' },
  { stamp: 'comments', table: 'comments' },
  { stamp: 'comments', table: 'comment_media' },
  { stamp: 'comments', table: 'users' },
  { stamp: 'comments', table: 'teams' },
  { stamp: 'comments', table: 'team_members' },
  { stamp: 'comments', table: 'images' },
  { stamp: 'comments', table: 'videos' },
];
const EVENTS = [['insert', 'ai'], ['delete', 'ad'], ['update', 'au']] as const;
const name = (t: { stamp: string; table: string }, suffix: string) => `${t.stamp}_stamp_${t.table}_${suffix}`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values([{ key: 'search', stamp: 0 }, { key: 'comments', stamp: 0 }]).execute();
  const pg = isPostgres(db);
  for (const t of TRIGGERS) {
    const bump = `update cache_stamps set stamp = stamp + 1 where key = '${t.stamp}'`;
    if (pg) {
      // Once per statement: a bulk write bumps once, and one row of cache_stamps is not
      // locked per row written.
      await sql.raw(`create function ${name(t, 'bump')}() returns trigger language plpgsql as $fn$
begin
  ${bump};
  return null;
end
$fn$`).execute(db);
      await sql.raw(`create trigger ${name(t, 'bump')} after insert or update or delete on ${t.table} for each statement execute function ${name(t, 'bump')}()`).execute(db);
    } else {
      for (const [event, suffix] of EVENTS) {
        await sql.raw(`create trigger ${name(t, suffix)} after ${event} on ${t.table} for each row begin ${bump}; end`).execute(db);
      }
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const t of TRIGGERS) {
    if (pg) {
      await sql.raw(`drop trigger if exists ${name(t, 'bump')} on ${t.table}`).execute(db);
      await sql.raw(`drop function if exists ${name(t, 'bump')}()`).execute(db);
    } else for (const [, suffix] of EVENTS) await sql.raw(`drop trigger if exists ${name(t, suffix)}`).execute(db);
  }
  await db.deleteFrom('cache_stamps').where('key', 'in', ['search', 'comments']).execute();
}
