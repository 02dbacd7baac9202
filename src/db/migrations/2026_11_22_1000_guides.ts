// Frozen in time: never edit a migration that has landed; add a new one.
// Guides, keyed by (guideid, langid): a guide's translations share its guideid, which is
// allocated by inserting a row into `guide_ids` (an auto-increment counter on both
// databases, safe under concurrency). Steps and lines hold the current state; every
// revision of a guide and of each step is kept as a JSON snapshot, so any revision can
// be read back and released. Completions, favorites, collaborators, flags, releases.
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('guide_ids'), 'guideid')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.createTable('guides')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('introduction', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('conclusion', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('difficulty', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('time_required', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('time_required_min', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('time_required_max', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('public', 'integer', boolColumn)
    .addColumn('deleted', 'integer', boolColumn)
    .addColumn('deleted_date', 'bigint')
    .addColumn('imageid', 'integer')
    .addColumn('step_imageid', 'integer')
    .addColumn('parts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('tools', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('documents', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addColumn('published_date', 'bigint')
    .addPrimaryKeyConstraint('guides_pk', ['guideid', 'langid'])
    .execute();
  await db.schema.createIndex('guides_list').on('guides').columns(['deleted', 'public', 'guideid', 'langid']).execute();
  await db.schema.createIndex('guides_type').on('guides').columns(['type', 'guideid']).execute();
  await db.schema.createIndex('guides_user').on('guides').columns(['userid', 'created_date']).execute();
  await db.schema.createIndex('guides_category').on('guides').columns(['category', 'guideid']).execute();
  await db.schema.createIndex('guides_modified').on('guides').columns(['modified_date', 'guideid']).execute();

  await db.schema.createTable('guide_prereqs')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('prereq_guideid', 'integer', (c) => c.notNull())
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('guide_prereqs_pk', ['guideid', 'langid', 'prereq_guideid'])
    .execute();
  await db.schema.createIndex('guide_prereqs_reverse').on('guide_prereqs').columns(['prereq_guideid', 'guideid']).execute();

  await withId(db, db.schema.createTable('guide_steps'), 'stepid')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('media_type', 'text')
    .addColumn('videoid', 'integer')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guide_steps_guide').on('guide_steps').columns(['guideid', 'langid', 'orderby']).execute();

  await db.schema.createTable('guide_step_images')
    .addColumn('stepid', 'integer', (c) => c.notNull().references('guide_steps.stepid').onDelete('cascade'))
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('imageid', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('guide_step_images_pk', ['stepid', 'orderby'])
    .execute();
  await db.schema.createIndex('guide_step_images_image').on('guide_step_images').columns(['imageid', 'stepid']).execute();

  await withId(db, db.schema.createTable('guide_bullet_styles'), 'bullet_styleid')
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', boolColumn)
    .addColumn('color_locked', 'integer', boolColumn)
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_disabled', 'integer', boolColumn)
    .addColumn('bullet_color', 'text')
    .addColumn('size', 'integer')
    .addColumn('imageid', 'integer')
    .addColumn('char', 'text')
    .addColumn('last_modified', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('userid_modified', 'integer')
    .execute();

  await withId(db, db.schema.createTable('guide_lines'), 'lineid')
    .addColumn('stepid', 'integer', (c) => c.notNull().references('guide_steps.stepid').onDelete('cascade'))
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('bullet', 'text', (c) => c.notNull())
    .addColumn('bullet_styleid', 'integer')
    .addColumn('level', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('guide_lines_step').on('guide_lines').columns(['stepid', 'orderby']).execute();

  await withId(db, db.schema.createTable('guide_revisions'), 'revisionid')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guide_revisions_guide').on('guide_revisions').columns(['guideid', 'langid', 'revisionid']).execute();
  await db.schema.createIndex('guide_revisions_user').on('guide_revisions').columns(['userid', 'guideid', 'langid']).execute();

  await withId(db, db.schema.createTable('guide_step_revisions'), 'revisionid')
    .addColumn('stepid', 'integer', (c) => c.notNull())
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guide_step_revisions_step').on('guide_step_revisions').columns(['stepid', 'revisionid']).execute();

  await withId(db, db.schema.createTable('guide_releases'), 'releaseid')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'text')
    .addColumn('init_date', 'bigint', (c) => c.notNull())
    .addColumn('release_date', 'bigint')
    .execute();
  await db.schema.createIndex('guide_releases_guide').on('guide_releases').columns(['guideid', 'langid', 'releaseid']).execute();

  for (const table of ['guide_completions', 'guide_favorites']) {
    await db.schema.createTable(table)
      .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
      .addColumn('guideid', 'integer', (c) => c.notNull())
      .addColumn('langid', 'text', (c) => c.notNull())
      .addColumn('date', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['userid', 'guideid', 'langid'])
      .execute();
    await db.schema.createIndex(`${table}_user_date`).on(table).columns(['userid', 'date', 'guideid']).execute();
    await db.schema.createIndex(`${table}_guide`).on(table).columns(['guideid', 'langid']).execute();
  }

  await db.schema.createTable('guide_collaborators')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    /** user | team */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('memberid', 'integer', (c) => c.notNull())
    .addColumn('added_by', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('guide_collaborators_pk', ['guideid', 'kind', 'memberid'])
    .execute();
  await db.schema.createIndex('guide_collaborators_member').on('guide_collaborators').columns(['kind', 'memberid', 'guideid']).execute();

  await db.schema.createTable('guide_flags')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('flagid', 'text', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('guide_flags_pk', ['guideid', 'flagid'])
    .execute();
  await db.schema.createIndex('guide_flags_flag').on('guide_flags').columns(['flagid', 'guideid']).execute();

  // The site's bullet styles: colours and icons, as existing guide editors offer them.
  const styles: Array<[string, string, string, string | null, string | null]> = [
    ['black', 'color', 'Black', '#000000', null],
    ['red', 'color', 'Red', '#d62d20', null],
    ['orange', 'color', 'Orange', '#f18f00', null],
    ['yellow', 'color', 'Yellow', '#f7d000', null],
    ['green', 'color', 'Green', '#2da44e', null],
    ['light_blue', 'color', 'Light blue', '#5bc0eb', null],
    ['blue', 'color', 'Blue', '#1f6feb', null],
    ['violet', 'color', 'Violet', '#8250df', null],
    ['icon_note', 'icon', 'Note', null, 'i'],
    ['icon_caution', 'icon', 'Caution', null, '!'],
    ['icon_reminder', 'icon', 'Reminder', null, '*'],
  ];
  for (const [name, type, label, color, char] of styles) {
    await db.insertInto('guide_bullet_styles').values({
      name, type, is_default: name === 'black' ? 1 : 0, color_locked: type === 'icon' ? 1 : 0, label,
      description: type === 'icon' ? `${label} bullet` : `${label} bullet point`, is_disabled: 0,
      bullet_color: color, size: null, imageid: null, char, last_modified: 0, userid_modified: null,
    }).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['guide_flags', 'guide_collaborators', 'guide_favorites', 'guide_completions', 'guide_releases', 'guide_step_revisions',
    'guide_revisions', 'guide_lines', 'guide_bullet_styles', 'guide_step_images', 'guide_steps', 'guide_prereqs', 'guides', 'guide_ids']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
