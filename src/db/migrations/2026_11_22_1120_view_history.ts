// Frozen in time: never edit a migration that has landed; add a new one.
// Views of guides and wikis by logged-in users, written in batches.
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('view_history'), 'viewid')
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    /** guide | wiki */
    .addColumn('doc_type', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('view_history_user').on('view_history').columns(['userid', 'date', 'viewid']).execute();
  await db.schema.createIndex('view_history_doc').on('view_history').columns(['doc_type', 'docid', 'date', 'viewid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('view_history').ifExists().execute();
}
