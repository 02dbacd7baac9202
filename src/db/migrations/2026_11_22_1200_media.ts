// The media area: extends the minimal images and videos tables (file, owner, EXIF,
// edits, storage keys, video metadata and state), adds video encodings, documents
// (PDF), embeds, and the user's library (one row per uploaded item, of any kind).
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  const imageColumns: Array<[string, 'text' | 'integer' | 'bigint', ((c: any) => any)?]> = [
    ['srcid', 'integer'],
    ['filename', 'text', (c) => c.notNull().defaultTo('')],
    ['size', 'bigint', (c) => c.notNull().defaultTo(0)],
    ['orientation', 'integer', (c) => c.notNull().defaultTo(1)],
    ['exif', 'text'],
    ['markup', 'text'],
    ['blob_key', 'text'],
  ];
  for (const [name, type, build] of imageColumns) {
    await db.schema.alterTable('images').addColumn(name, type, build ?? ((c) => c)).execute();
  }

  const videoColumns: Array<[string, 'text' | 'integer' | 'bigint', ((c: any) => any)?]> = [
    ['mime', 'text', (c) => c.notNull().defaultTo('')],
    ['size', 'bigint', (c) => c.notNull().defaultTo(0)],
    ['md5', 'text'],
    ['blob_key', 'text'],
    ['state', 'text', (c) => c.notNull().defaultTo('queued')],
    ['state_reason', 'text'],
    ['duration_ms', 'integer', (c) => c.notNull().defaultTo(0)],
    ['width', 'integer', (c) => c.notNull().defaultTo(0)],
    ['height', 'integer', (c) => c.notNull().defaultTo(0)],
    ['meta', 'text'],
    ['poster_imageid', 'integer', (c) => c.references('images.imageid').onDelete('set null')],
    ['srcid', 'integer'],
  ];
  for (const [name, type, build] of videoColumns) {
    await db.schema.alterTable('videos').addColumn(name, type, build ?? ((c) => c)).execute();
  }

  await withId(db, db.schema.createTable('video_encodings'), 'encodingid')
    .addColumn('videoid', 'integer', (c) => c.notNull().references('videos.videoid').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('codecs', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addUniqueConstraint('video_encodings_video_format', ['videoid', 'format'])
    .execute();

  await withId(db, db.schema.createTable('documents'), 'documentid')
    .addColumn('guid', 'text', (c) => c.notNull().unique())
    .addColumn('userid', 'integer')
    .addColumn('filename', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('md5', 'text')
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('documents_user').on('documents').columns(['userid', 'documentid']).execute();

  await withId(db, db.schema.createTable('embeds'), 'embedid')
    .addColumn('guid', 'text', (c) => c.notNull().unique())
    .addColumn('userid', 'integer')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('provider', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('embeds_user').on('embeds').columns(['userid', 'embedid']).execute();

  // The library: what a user uploaded (or made by an edit), of every kind, in one
  // ordered list. `objectid` is the imageid, videoid, documentid or embedid.
  await withId(db, db.schema.createTable('media_items'), 'itemid')
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('objectid', 'integer', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('media_items_object', ['type', 'objectid'])
    .execute();
  await db.schema.createIndex('media_items_user').on('media_items').columns(['userid', 'itemid']).execute();
  // The delete check looks for avatars and team images that use an image.
  await db.schema.createIndex('users_imageid').on('users').columns(['imageid']).execute();
  await db.schema.createIndex('teams_imageid').on('teams').columns(['imageid']).execute();
  await db.schema.createIndex('media_items_user_type').on('media_items').columns(['userid', 'type', 'itemid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['media_items', 'embeds', 'documents', 'video_encodings']) await db.schema.dropTable(t).ifExists().execute();
}
