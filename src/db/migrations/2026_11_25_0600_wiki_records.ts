// Frozen in time: never edit a migration that has landed; add a new one.
// Stored wiki records (src/areas/wikis/wikis.cache.ts), like the guides' (2026_11_25_0500):
//
//  - `wikis.cache_stamp`: bumped by the database itself whenever something a wiki's full
//    record shows changes: its own row (any column), its translations (their texts, which
//    languages exist), its tags (and a tag's name), its author's summary (name, image,
//    reputation, privileges, teams), for a USER wiki the user's and for a TEAM wiki the
//    team's summary (its row, members, image), its image, and the images and videos its
//    texts embed (an image's guid, a video's row and encodings; deleted). A record is valid
//    while the wiki's (revisionid, cache_stamp) are what they were when it was built. What
//    it shows of guides follows stamps of `cache_stamps`: 'guide_titles' (titles of linked
//    guides), and for a CATEGORY 'categories' (parent's and children's titles) and 'guides'
//    (the light records of its guides).
//  - `wiki_records`: the serialized bytes of each wiki's current record per language, the
//    part that is the same for every caller (`can_edit` false: what a caller may do is laid
//    over at read time), one row per wiki and language, overwritten in place; a deleted
//    wiki's rows go with it (wikiids may be used again on SQLite).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

type Row = 'NEW' | 'OLD';
const bump = (where: string) => `update wikis set cache_stamp = cache_stamp + 1 where ${where}`;
/** Wikis whose texts (source or a translation) may embed `[image|id]` / `[video|id]` (the id as digits anywhere: a superset). */
const embedding = (id: string) => `contents_raw like '%' || ${id} || '%' or identification_raw like '%' || ${id} || '%'
  or wikiid in (select t.wikiid from wiki_translations t where t.contents_raw like '%' || ${id} || '%' or t.identification_raw like '%' || ${id} || '%')`;
/** Wikis that show user `id`'s summary: as author, or as the USER wiki of that user. */
const showingUser = (id: string) => `userid = ${id} or (namespace = 'USER' and title = cast(${id} as text))`;
const showingTeam = (id: string) => `namespace = 'TEAM' and title = cast(${id} as text)`;

interface Rule {
  name: string;
  table: string;
  /** insert, delete, or update (optionally `update of a, b`). */
  event: string;
  when?: string;
  body: string[];
}

const USER_COLUMNS = 'username, unique_username, join_date, imageid, reputation, privileges, enabled, banned';
const onRows = (events: string[], make: (r: Row, event: string) => Omit<Rule, 'event'>) =>
  events.map((event) => ({ event, ...make(event.startsWith('delete') ? 'OLD' : 'NEW', event) }));

const RULES: Rule[] = [
  // Its own row: any update that does not set the stamp itself (which also stops the trigger's own update; on PostgreSQL a BEFORE trigger sets it in the row written).
  { name: 'self', table: 'wikis', event: 'update', when: 'NEW.cache_stamp = OLD.cache_stamp', body: [bump('wikiid = NEW.wikiid')] },
  { name: 'gone', table: 'wikis', event: 'delete', body: ['delete from wiki_records where wikiid = OLD.wikiid'] },
  ...onRows(['insert', 'delete'], (r) => ({ name: 'translations', table: 'wiki_translations', body: [bump(`wikiid = ${r}.wikiid`)] })),
  { name: 'translations', table: 'wiki_translations', event: 'update', body: [bump('wikiid = NEW.wikiid or wikiid = OLD.wikiid')] },
  ...onRows(['insert', 'delete'], (r) => ({ name: 'doc_tags', table: 'doc_tags', when: `${r}.doctype = 'wiki'`, body: [bump(`wikiid = ${r}.docid`)] })),
  { name: 'doc_tags', table: 'doc_tags', event: 'update', body: [bump(`(NEW.doctype = 'wiki' and wikiid = NEW.docid) or (OLD.doctype = 'wiki' and wikiid = OLD.docid)`)] },
  { name: 'tags', table: 'tags', event: 'update of tag', body: [bump(`wikiid in (select d.docid from doc_tags d where d.tagid = NEW.tagid and d.doctype = 'wiki')`)] },
  ...onRows([`update of ${USER_COLUMNS}`, 'delete'], (r) => ({ name: 'users', table: 'users', body: [bump(showingUser(`${r}.userid`))] })),
  ...onRows(['insert', 'delete'], (r) => ({ name: 'team_members', table: 'team_members', body: [bump(`${showingUser(`${r}.userid`)} or (${showingTeam(`${r}.teamid`)})`)] })),
  {
    name: 'team_members', table: 'team_members', event: 'update',
    body: [bump(`${showingUser('NEW.userid')} or ${showingUser('OLD.userid')} or (${showingTeam('NEW.teamid')}) or (${showingTeam('OLD.teamid')})`)],
  },
  ...onRows(['insert', 'update', 'delete'], (r) => ({ name: 'teams', table: 'teams', body: [bump(showingTeam(`${r}.teamid`))] })),
  // What an image object shows is its id and guid (signed URLs); embeds of videos show their poster image.
  ...onRows(['update of guid', 'delete'], (r) => ({
    name: 'images', table: 'images',
    body: [bump(`imageid = ${r}.imageid or userid in (select u.userid from users u where u.imageid = ${r}.imageid)
      or (namespace = 'USER' and title in (select cast(u.userid as text) from users u where u.imageid = ${r}.imageid))
      or (namespace = 'TEAM' and title in (select cast(m.teamid as text) from teams m where m.imageid = ${r}.imageid))
      or ${embedding(`${r}.imageid`)} or contents_raw like '%[video%' or wikiid in (select t.wikiid from wiki_translations t where t.contents_raw like '%[video%')`)],
  })),
  ...onRows(['update', 'delete'], (r) => ({ name: 'videos', table: 'videos', body: [bump(embedding(`${r}.videoid`))] })),
  ...onRows(['insert', 'update', 'delete'], (r) => ({ name: 'video_encodings', table: 'video_encodings', body: [bump(embedding(`${r}.videoid`))] })),
];

const suffixOf = (event: string) => (event.startsWith('insert') ? 'ai' : event.startsWith('delete') ? 'ad' : 'au');
const nameOf = (rule: Rule) => `wiki_cache_${rule.name}_${suffixOf(rule.event)}`;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema.alterTable('wikis').addColumn('cache_stamp', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // What the triggers look up: a user's wikis.
  await db.schema.createIndex('wikis_userid').on('wikis').columns(['userid']).execute();
  await db.schema.createTable('wiki_records')
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('cache_stamp', 'integer', (c) => c.notNull())
    // The stamps of `cache_stamps` it was built under (wikis.cache.ts `stampsOf`).
    .addColumn('stamps', 'text', (c) => c.notNull())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    .addColumn('built_by', 'text', (c) => c.notNull())
    .addColumn('body', pg ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addPrimaryKeyConstraint('wiki_records_pk', ['wikiid', 'langid'])
    .execute();
  for (const rule of RULES) {
    const name = nameOf(rule);
    if (pg && rule.name === 'self') {
      // PostgreSQL sets the new stamp in the row being written: no second update of it.
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $fn$
begin
  NEW.cache_stamp := OLD.cache_stamp + 1;
  return NEW;
end
$fn$`).execute(db);
      await sql.raw(`create trigger ${name} before update on wikis for each row when (${rule.when}) execute function ${name}()`).execute(db);
    } else if (pg) {
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $fn$
begin
  ${rule.body.join(';\n  ')};
  return null;
end
$fn$`).execute(db);
      await sql.raw(`create trigger ${name} after ${rule.event} on ${rule.table} for each row ${rule.when ? `when (${rule.when})` : ''} execute function ${name}()`).execute(db);
    } else {
      await sql.raw(`create trigger ${name} after ${rule.event} on ${rule.table} for each row ${rule.when ? `when ${rule.when}` : ''} begin ${rule.body.join('; ')}; end`).execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const rule of RULES) {
    const name = nameOf(rule);
    if (pg) {
      await sql.raw(`drop trigger if exists ${name} on ${rule.table}`).execute(db);
      await sql.raw(`drop function if exists ${name}()`).execute(db);
    } else await sql.raw(`drop trigger if exists ${name}`).execute(db);
  }
  await db.schema.dropTable('wiki_records').ifExists().execute();
  await db.schema.dropIndex('wikis_userid').ifExists().execute();
  await db.schema.alterTable('wikis').dropColumn('cache_stamp').execute();
}
