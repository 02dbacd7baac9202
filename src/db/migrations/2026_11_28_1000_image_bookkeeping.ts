// Frozen in time: never edit a migration that has landed; add a new one.
// An image's bookkeeping moves no stamp. The first fetch of each size variant of an image
// adds the variant's bytes to `images.variant_bytes` (media.files.ts: they count against
// the owner's quota), and every update of an images row bumped the `cache_stamp` of each
// guide showing the image, the 'guides' stamp of the lists (2026_11_22_1420_guide_cache)
// and the 'comments' stamp (2026_11_25_0410_read_stamps): the first views of a guide's
// pictures (three or four variants each) made every process rebuild that guide's record,
// every kept list page check its rows and every kept page of comments be built again,
// though none of them shows the bytes. Now those triggers fire on an update of the other
// columns only (what records show, and the rest, as before); an insert or a delete fires
// them as before. The wikis' trigger already fired on `update of guid` only.
// A column added to images later bumps nothing when it alone is updated: add it here anew.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Every column of images but `variant_bytes`. */
const SHOWN = ['imageid', 'guid', 'userid', 'width', 'height', 'mime', 'created_date', 'srcid', 'filename', 'size', 'orientation', 'exif', 'markup', 'blob_key'];

/** SQLite: the row triggers on updates of images, by name. */
const SQLITE_TRIGGERS = ['guide_cache_images_au', 'comments_stamp_images_au'];

/** SQLite: `name` made again with `from` in its head replaced by `to` (its body as it is now). */
async function retrigger(db: Kysely<any>, name: string, from: string, to: string) {
  const row = await sql<{ sql: string }>`select sql from sqlite_master where type = 'trigger' and name = ${name}`.execute(db);
  const text = row.rows[0]?.sql;
  if (!text) throw new Error(`trigger ${name} not found`);
  const head = text.slice(0, text.search(/\bbegin\b/i));
  if (!head.includes(from)) throw new Error(`trigger ${name}: unexpected head ${head}`);
  await sql.raw(`drop trigger ${name}`).execute(db);
  await sql.raw(head.replace(from, to) + text.slice(head.length)).execute(db);
}

const UPDATE_OF_SHOWN = `after update of ${SHOWN.join(', ')} on images`;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger guide_cache_images_au on images`).execute(db);
    await sql.raw(`create trigger guide_cache_images_au ${UPDATE_OF_SHOWN} for each row execute function guide_cache_images_au()`).execute(db);
    // Once per statement (2026_11_25_0410): for an insert, a delete, or an update of those columns.
    await sql.raw(`drop trigger comments_stamp_images_bump on images`).execute(db);
    await sql.raw(`create trigger comments_stamp_images_bump after insert or delete or update of ${SHOWN.join(', ')} on images for each statement execute function comments_stamp_images_bump()`).execute(db);
    return;
  }
  for (const name of SQLITE_TRIGGERS) await retrigger(db, name, 'after update on images', UPDATE_OF_SHOWN);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger guide_cache_images_au on images`).execute(db);
    await sql.raw(`create trigger guide_cache_images_au after update on images for each row execute function guide_cache_images_au()`).execute(db);
    await sql.raw(`drop trigger comments_stamp_images_bump on images`).execute(db);
    await sql.raw(`create trigger comments_stamp_images_bump after insert or update or delete on images for each statement execute function comments_stamp_images_bump()`).execute(db);
    return;
  }
  for (const name of SQLITE_TRIGGERS) await retrigger(db, name, UPDATE_OF_SHOWN, 'after update on images');
}
