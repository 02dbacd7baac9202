// Frozen in time: never edit a migration that has landed; add a new one.
// A stamp for the category hierarchy (`cache_stamps` row 'categories'), kept by the
// database itself like the guides' stamps (2026_11_22_1420_guide_cache): bumped by any
// write of a CATEGORY wiki (its title, display title, parent, stub flag, language...) and
// of any wiki translation (display titles), so that every server process can keep the
// built hierarchy as bytes and know at one primary-key lookup whether it still holds.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const BUMP = `update cache_stamps set stamp = stamp + 1 where key = 'categories'`;

const TRIGGERS: Array<{ name: string; event: string; table: string; when: string | null }> = [
  { name: 'category_stamp_wikis_ai', event: 'insert', table: 'wikis', when: `NEW.namespace = 'CATEGORY'` },
  { name: 'category_stamp_wikis_ad', event: 'delete', table: 'wikis', when: `OLD.namespace = 'CATEGORY'` },
  { name: 'category_stamp_wikis_au', event: 'update', table: 'wikis', when: `OLD.namespace = 'CATEGORY' or NEW.namespace = 'CATEGORY'` },
  { name: 'category_stamp_translations_ai', event: 'insert', table: 'wiki_translations', when: null },
  { name: 'category_stamp_translations_ad', event: 'delete', table: 'wiki_translations', when: null },
  { name: 'category_stamp_translations_au', event: 'update of display_title, langid, wikiid', table: 'wiki_translations', when: null },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('cache_stamps').values({ key: 'categories', stamp: 0 }).execute();
  const pg = isPostgres(db);
  for (const t of TRIGGERS) {
    if (pg) {
      await sql.raw(`create function ${t.name}() returns trigger language plpgsql as $fn$
begin
  ${BUMP};
  return null;
end
$fn$`).execute(db);
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} for each row ${t.when ? `when (${t.when})` : ''} execute function ${t.name}()`).execute(db);
    } else {
      await sql.raw(`create trigger ${t.name} after ${t.event} on ${t.table} for each row ${t.when ? `when ${t.when}` : ''} begin ${BUMP}; end`).execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const t of TRIGGERS) {
    if (pg) {
      await sql.raw(`drop trigger if exists ${t.name} on ${t.table}`).execute(db);
      await sql.raw(`drop function if exists ${t.name}()`).execute(db);
    } else await sql.raw(`drop trigger if exists ${t.name}`).execute(db);
  }
  await db.deleteFrom('cache_stamps').where('key', '=', 'categories').execute();
}
