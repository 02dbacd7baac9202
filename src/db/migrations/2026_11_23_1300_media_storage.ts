// Media storage and access: the bytes of an image's size variants (counted against the
// owner's quota with the originals and video encodings), the log of upload times (the
// hourly upload rate), and the indexes the "content that shows an item" lookups use.
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').addColumn('variant_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await withId(db, db.schema.createTable('media_uploads'), 'uploadid')
    .addColumn('userid', 'integer', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_uploads_user').on('media_uploads').columns(['userid', 'created_date']).execute();
  await db.schema.createIndex('wikis_imageid').on('wikis').columns(['imageid']).execute();
  await db.schema.createIndex('comment_media_media').on('comment_media').columns(['media_type', 'mediaid']).execute();
  await db.schema.createIndex('videos_poster').on('videos').columns(['poster_imageid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('videos_poster').execute();
  await db.schema.dropIndex('comment_media_media').execute();
  await db.schema.dropIndex('wikis_imageid').execute();
  await db.schema.dropTable('media_uploads').execute();
  await db.schema.alterTable('images').dropColumn('variant_bytes').execute();
}
