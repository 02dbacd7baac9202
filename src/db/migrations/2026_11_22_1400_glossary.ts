// Frozen in time: never edit a migration that has landed; add a new one.
// The translation glossary: an entry is a term in a source language with at most one
// translation per other language. Terms are unique per source language, case-insensitively.
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('translation_glossary'), 'entryid')
    .addColumn('source_langid', 'text', (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addColumn('term_lower', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addColumn('userid_modified', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .execute();
  await db.schema.createIndex('translation_glossary_term').on('translation_glossary').columns(['source_langid', 'term_lower']).unique().execute();
  await db.schema.createIndex('translation_glossary_source').on('translation_glossary').columns(['source_langid', 'entryid']).execute();

  await db.schema.createTable('translation_glossary_terms')
    .addColumn('entryid', 'integer', (c) => c.notNull().references('translation_glossary.entryid').onDelete('cascade'))
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('translation_glossary_terms_pk', ['entryid', 'langid'])
    .execute();
  await db.schema.createIndex('translation_glossary_terms_lang').on('translation_glossary_terms').columns(['langid', 'entryid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['translation_glossary_terms', 'translation_glossary']) await db.schema.dropTable(t).ifExists().execute();
}
