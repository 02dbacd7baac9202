// Frozen in time: never edit a migration that has landed; add a new one.
// Comments (contexts guide, step, wiki, info and post; one level of replies), their
// media, and discussion posts (the `post` context).
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('posts'), 'postid')
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text_raw', 'text', (c) => c.notNull())
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('posts_lang').on('posts').columns(['langid', 'postid']).execute();

  await withId(db, db.schema.createTable('comments'), 'commentid')
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('contextid', 'integer', (c) => c.notNull())
    .addColumn('parentid', 'integer', (c) => c.references('comments.commentid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('text_raw', 'text', (c) => c.notNull())
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('status_reason', 'text', (c) => c.notNull().defaultTo('manual'))
    .execute();
  await db.schema.createIndex('comments_context').on('comments').columns(['context', 'contextid', 'commentid']).execute();
  await db.schema.createIndex('comments_parent').on('comments').columns(['parentid', 'commentid']).execute();
  await db.schema.createIndex('comments_user').on('comments').columns(['userid', 'commentid']).execute();
  await db.schema.createIndex('comments_modified').on('comments').columns(['modified_date', 'commentid']).execute();
  await db.schema.createIndex('comments_date').on('comments').columns(['date', 'commentid']).execute();

  await db.schema.createTable('comment_media')
    .addColumn('commentid', 'integer', (c) => c.notNull().references('comments.commentid').onDelete('cascade'))
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('mediaid', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('comment_media_pk', ['commentid', 'orderby'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['comment_media', 'comments', 'posts']) await db.schema.dropTable(t).ifExists().execute();
}
