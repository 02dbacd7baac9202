// Tables several content areas share, created up front so that the areas can be built
// in parallel: the minimal wiki table (the wikis area extends it), tag storage (owned
// by guides, used by wikis), and the minimal videos table (the media area extends it).
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('wikis'), 'wikiid')
    .addColumn('namespace', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addUniqueConstraint('wikis_namespace_title', ['namespace', 'title'])
    .execute();

  await withId(db, db.schema.createTable('tags'), 'tagid')
    .addColumn('tag', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema.createTable('doc_tags')
    .addColumn('tagid', 'integer', (c) => c.notNull().references('tags.tagid').onDelete('cascade'))
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('doc_tags_pk', ['doctype', 'docid', 'tagid'])
    .execute();
  await db.schema.createIndex('doc_tags_tag').on('doc_tags').columns(['tagid', 'doctype', 'docid']).execute();

  await withId(db, db.schema.createTable('videos'), 'videoid')
    .addColumn('guid', 'text', (c) => c.notNull().unique())
    .addColumn('userid', 'integer')
    .addColumn('filename', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('videos_user').on('videos').columns(['userid', 'videoid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['videos', 'doc_tags', 'tags', 'wikis']) await db.schema.dropTable(t).ifExists().execute();
}
