// Frozen in time: never edit a migration that has landed; add a new one.
// Wikis in every namespace: the minimal `wikis` table (shared_content) gains its
// source-language content and the namespace fields; translations, every revision,
// releases, and a cache of machine-translated texts.
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  const add = (name: string, type: 'text' | 'integer' | 'bigint', build?: (c: any) => any) =>
    db.schema.alterTable('wikis').addColumn(name, type, build ?? ((c) => c)).execute();
  // Source language and its content (translations live in wiki_translations).
  await add('langid', 'text', (c) => c.notNull().defaultTo('en'));
  await add('display_title', 'text', (c) => c.notNull().defaultTo(''));
  await add('summary', 'text', (c) => c.notNull().defaultTo(''));
  await add('contents_raw', 'text', (c) => c.notNull().defaultTo(''));
  await add('identification_raw', 'text', (c) => c.notNull().defaultTo(''));
  // Language-independent fields.
  await add('imageid', 'integer');
  await add('table_of_contents', 'integer', boolColumn);
  /** Current revision of the source language; 0 for a row another area inserted bare. */
  await add('revisionid', 'integer', (c) => c.notNull().defaultTo(0));
  /** CATEGORY: the parent category's wikiid. */
  await add('parentid', 'integer');
  await add('stub', 'integer', boolColumn);
  /** ITEM: part or tool. */
  await add('item_type', 'text');
  /** ITEM: JSON array of suppliers. */
  await add('suppliers', 'text', (c) => c.notNull().defaultTo('[]'));
  await add('userid', 'integer');
  await add('created_date', 'bigint', (c) => c.notNull().defaultTo(0));
  await add('modified_date', 'bigint', (c) => c.notNull().defaultTo(0));

  await db.schema.createIndex('wikis_namespace_id').on('wikis').columns(['namespace', 'wikiid']).execute();
  await db.schema.createIndex('wikis_namespace_modified').on('wikis').columns(['namespace', 'modified_date', 'wikiid']).execute();
  await db.schema.createIndex('wikis_parent').on('wikis').columns(['parentid', 'title']).execute();

  await db.schema.createTable('wiki_translations')
    .addColumn('wikiid', 'integer', (c) => c.notNull().references('wikis.wikiid').onDelete('cascade'))
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('display_title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('contents_raw', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('identification_raw', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('wiki_translations_pk', ['wikiid', 'langid'])
    .execute();
  await db.schema.createIndex('wiki_translations_lang').on('wiki_translations').columns(['langid', 'wikiid']).execute();

  // Every revision of every language, kept: a snapshot of the language's texts and of
  // the language-independent fields (JSON), so that revert restores either.
  await withId(db, db.schema.createTable('wiki_revisions'), 'revisionid')
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('display_title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('contents_raw', 'text', (c) => c.notNull())
    .addColumn('identification_raw', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('wiki_revisions_wiki').on('wiki_revisions').columns(['wikiid', 'langid', 'revisionid']).execute();

  await withId(db, db.schema.createTable('wiki_releases'), 'releaseid')
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('init_date', 'bigint', (c) => c.notNull())
    .addColumn('release_date', 'bigint')
    .execute();
  await db.schema.createIndex('wiki_releases_wiki').on('wiki_releases').columns(['wikiid', 'releaseid']).execute();

  // Machine translations are slow and may cost money: each distinct text is asked once.
  await db.schema.createTable('translation_cache')
    .addColumn('source_lang', 'text', (c) => c.notNull())
    .addColumn('target_lang', 'text', (c) => c.notNull())
    .addColumn('source_text', 'text', (c) => c.notNull())
    .addColumn('translated_text', 'text', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('translation_cache_pk', ['target_lang', 'source_lang', 'source_text'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['translation_cache', 'wiki_releases', 'wiki_revisions', 'wiki_translations']) await db.schema.dropTable(t).ifExists().execute();
  for (const i of ['wikis_namespace_id', 'wikis_namespace_modified', 'wikis_parent']) await db.schema.dropIndex(i).ifExists().execute();
  for (const c of ['modified_date', 'created_date', 'userid', 'suppliers', 'item_type', 'stub', 'parentid', 'revisionid', 'table_of_contents', 'imageid', 'identification_raw', 'contents_raw', 'summary', 'display_title', 'langid']) {
    await db.schema.alterTable('wikis').dropColumn(c).execute();
  }
}
