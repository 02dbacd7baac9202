// Frozen in time: never edit a migration that has landed; add a new one.
// Stamps for the read cache of guides (src/areas/guides/guides.cache.ts), kept by the
// database itself so that every writer (any area, any server process, SQL by hand) keeps
// every process's cache correct:
//
//  - `guides.cache_stamp`: bumped when something a guide's full record shows changes
//    without a new revision of the guide: its comments (guide and step contexts) and
//    their authors (name, image, reputation, teams), its flags, its owner's name, its prerequisites (their rows, flags, owners), its images
//    and videos, the ITEM wikis its parts and tools name, the bullet styles. A cached
//    record is valid while the guide's (revisionid, cache_stamp) are what they were when
//    it was built: checked on the row every read looks up anyway.
//  - `cache_stamps` row 'guides': bumped by every change a list of guides shows (a
//    guides row, flags, owners' names, images): the list cache's one indexed lookup.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Columns of guides whose change shows in lists (all but cache_stamp). */
const GUIDE_COLUMNS = ['guideid', 'langid', 'revisionid', 'userid', 'type', 'category', 'title', 'subject', 'summary', 'introduction', 'conclusion', 'difficulty',
  'time_required', 'time_required_min', 'time_required_max', 'public', 'deleted', 'deleted_date', 'imageid', 'step_imageid', 'parts', 'tools', 'documents',
  'created_date', 'modified_date', 'published_date'];
/** Columns of a guide that its dependents (the guides that require it) show. */
const PREREQ_COLUMNS = ['revisionid', 'userid', 'type', 'category', 'title', 'subject', 'summary', 'difficulty', 'time_required_max', 'public', 'deleted', 'imageid', 'step_imageid', 'modified_date'];

const BUMP_LIST = `update cache_stamps set stamp = stamp + 1 where key = 'guides'`;
/** Guides that show guide `id` as a prerequisite, or show a prerequisite that does. */
const dependents = (id: string) => `select guideid from guide_prereqs where prereq_guideid = ${id}
  union select p2.guideid from guide_prereqs p2 join guide_prereqs p1 on p1.guideid = p2.prereq_guideid where p1.prereq_guideid = ${id}`;
/** Guides on which, or on whose steps, user `id` commented. */
const commented = (id: string) => `select c.contextid from comments c where c.userid = ${id} and c.context = 'guide'
  union select s.guideid from comments c join guide_steps s on s.stepid = c.contextid where c.userid = ${id} and c.context = 'step'`;
const bump = (where: string) => `update guides set cache_stamp = cache_stamp + 1 where ${where}`;

interface Rule {
  name: string;
  table: string;
  /** insert, delete, or update (optionally `update of a, b`). */
  events: string[];
  /** Statements, with NEW/OLD standing for the row (NEW on insert and update, OLD on delete). */
  body: (row: 'NEW' | 'OLD') => string[];
  /** SQL condition on the row (NEW/OLD) for the statements to run. */
  when?: (row: 'NEW' | 'OLD') => string;
}

const RULES: Rule[] = [
  { name: 'guides_list', table: 'guides', events: ['insert', 'delete', `update of ${GUIDE_COLUMNS.join(', ')}`], body: () => [BUMP_LIST] },
  { name: 'guides_dependents', table: 'guides', events: ['delete', `update of ${PREREQ_COLUMNS.join(', ')}`], body: (r) => [bump(`guideid in (${dependents(`${r}.guideid`)})`)] },
  {
    name: 'comments', table: 'comments', events: ['insert', 'delete', 'update'],
    when: (r) => `${r}.context in ('guide', 'step')`,
    body: (r) => [bump(`guideid = case when ${r}.context = 'guide' then ${r}.contextid else (select s.guideid from guide_steps s where s.stepid = ${r}.contextid) end`)],
  },
  { name: 'guide_flags', table: 'guide_flags', events: ['insert', 'delete', 'update'], body: (r) => [bump(`guideid = ${r}.guideid or guideid in (${dependents(`${r}.guideid`)})`), BUMP_LIST] },
  { name: 'guide_prereqs', table: 'guide_prereqs', events: ['insert', 'delete', 'update'], body: (r) => [bump(`guideid = ${r}.guideid`)] },
  {
    name: 'users', table: 'users', events: ['update of username'],
    body: (r) => [bump(`userid = ${r}.userid or guideid in (select p.guideid from guide_prereqs p join guides g on g.guideid = p.prereq_guideid where g.userid = ${r}.userid)
      or guideid in (${commented(`${r}.userid`)})`), BUMP_LIST],
  },
  // Comments on steps carry a summary of their author (image, reputation, teams).
  { name: 'commenters', table: 'users', events: ['update of imageid, reputation'], body: (r) => [bump(`guideid in (${commented(`${r}.userid`)})`)] },
  { name: 'commenter_teams', table: 'team_members', events: ['insert', 'delete'], body: (r) => [bump(`guideid in (${commented(`${r}.userid`)})`)] },
  {
    name: 'images', table: 'images', events: ['delete', 'update'],
    body: (r) => [bump(`imageid = ${r}.imageid or step_imageid = ${r}.imageid or guideid in (select s.guideid from guide_step_images i join guide_steps s on s.stepid = i.stepid where i.imageid = ${r}.imageid)`), BUMP_LIST],
  },
  { name: 'videos', table: 'videos', events: ['delete', 'update'], body: (r) => [bump(`guideid in (select s.guideid from guide_steps s where s.videoid = ${r}.videoid)`)] },
  {
    name: 'item_wikis', table: 'wikis', events: ['insert', 'delete', 'update of namespace, title'],
    when: (r) => `${r}.namespace = 'ITEM'`,
    body: (r) => [bump(`parts like '%' || ${r}.title || '%' or tools like '%' || ${r}.title || '%'`)],
  },
  { name: 'bullet_styles', table: 'guide_bullet_styles', events: ['insert', 'delete', 'update'], body: () => [bump('true')] },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('guides').addColumn('cache_stamp', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createTable('cache_stamps')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('stamp', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.insertInto('cache_stamps').values({ key: 'guides', stamp: 0 }).execute();
  // What the triggers look up.
  await db.schema.createIndex('guide_steps_video').on('guide_steps').columns(['videoid']).execute();
  await db.schema.createIndex('guides_image').on('guides').columns(['imageid']).execute();
  await db.schema.createIndex('guides_step_image').on('guides').columns(['step_imageid']).execute();

  const pg = isPostgres(db);
  for (const rule of RULES) {
    for (const event of rule.events) {
      const kind = event.split(' ')[0];
      const suffix = kind === 'insert' ? 'ai' : kind === 'delete' ? 'ad' : 'au';
      const row = kind === 'delete' ? 'OLD' : 'NEW';
      const when = rule.when ? rule.when(row) : null;
      const body = rule.body(row);
      const name = `guide_cache_${rule.name}_${suffix}`;
      if (pg) {
        await sql.raw(`create function ${name}() returns trigger language plpgsql as $fn$
begin
  ${body.join(';\n  ')};
  return null;
end
$fn$`).execute(db);
        await sql.raw(`create trigger ${name} after ${event} on ${rule.table} for each row ${when ? `when (${when})` : ''} execute function ${name}()`).execute(db);
      } else {
        await sql.raw(`create trigger ${name} after ${event} on ${rule.table} for each row ${when ? `when ${when}` : ''} begin ${body.join('; ')}; end`).execute(db);
      }
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  for (const rule of RULES) {
    for (const event of rule.events) {
      const kind = event.split(' ')[0];
      const name = `guide_cache_${rule.name}_${kind === 'insert' ? 'ai' : kind === 'delete' ? 'ad' : 'au'}`;
      if (pg) {
        await sql.raw(`drop trigger if exists ${name} on ${rule.table}`).execute(db);
        await sql.raw(`drop function if exists ${name}()`).execute(db);
      } else await sql.raw(`drop trigger if exists ${name}`).execute(db);
    }
  }
  for (const i of ['guide_steps_video', 'guides_image', 'guides_step_image']) await db.schema.dropIndex(i).ifExists().execute();
  await db.schema.dropTable('cache_stamps').ifExists().execute();
  await db.schema.alterTable('guides').dropColumn('cache_stamp').execute();
}
