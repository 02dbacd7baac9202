// Frozen in time: never edit a migration that has landed; add a new one.
// The 'comments' stamp (2026_11_25_0410_read_stamps) no longer moves when a user, an image
// or a video is inserted. It follows what a comment record shows of other rows (its
// author's summary, its media), and no comment can show a row that did not exist when it
// was written: ids are never reused (AUTOINCREMENT on SQLite, identity on PostgreSQL), and a
// comment that takes new media inserts its comment_media rows, which bump the stamp. So a
// registration, an upload or a new avatar (the users row's imageid is an update: it still
// bumps) made every kept page of comments be built again for nothing. Updates and deletes
// of those rows bump it as before (images: of the columns a record shows, 2026_11_28_1000).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Every column of images but `variant_bytes` (as 2026_11_28_1000 lists them). */
const SHOWN = 'imageid, guid, userid, width, height, mime, created_date, srcid, filename, size, orientation, exif, markup, blob_key';

/** PostgreSQL: each table's statement trigger, its events without and with inserts. */
const PG = [
  { table: 'users', events: 'delete or update' },
  { table: 'videos', events: 'delete or update' },
  { table: 'images', events: `delete or update of ${SHOWN}` },
];

async function pgTriggers(db: Kysely<any>, withInserts: boolean) {
  for (const { table, events } of PG) {
    const name = `comments_stamp_${table}_bump`;
    await sql.raw(`drop trigger ${name} on ${table}`).execute(db);
    await sql.raw(`create trigger ${name} after ${withInserts ? 'insert or ' : ''}${events} on ${table} for each statement execute function ${name}()`).execute(db);
  }
}

const SQLITE_TABLES = ['users', 'images', 'videos'];

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return pgTriggers(db, false);
  for (const table of SQLITE_TABLES) await sql.raw(`drop trigger comments_stamp_${table}_ai`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return pgTriggers(db, true);
  for (const table of SQLITE_TABLES) {
    await sql.raw(`create trigger comments_stamp_${table}_ai after insert on ${table} for each row begin update cache_stamps set stamp = stamp + 1 where key = 'comments'; end`).execute(db);
  }
}
