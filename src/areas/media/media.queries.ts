// Row loaders of the media library: an item by id or GUID, pages of a user's items.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { MAX_ID } from './media.schemas.js';
import { isGuid } from './guid.js';

type Page = { offset: number; limit: number; order?: 'ASC' | 'DESC' };

/** The id of the image or video named by its numeric id or its GUID, or null when there is none. */
export async function findByIdOrGuid(db: Kysely<Database>, table: 'images' | 'videos', value: string): Promise<number | null> {
  const idCol = table === 'images' ? 'imageid' : 'videoid';
  if (/^\d+$/.test(value)) {
    const id = Number(value);
    if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return null;
    const row = await (db.selectFrom(table) as any).select(idCol).where(idCol, '=', id).executeTakeFirst();
    return row ? id : null;
  }
  if (!isGuid(value)) return null;
  const row = await (db.selectFrom(table) as any).select(idCol).where('guid', '=', value).executeTakeFirst();
  return row ? (row[idCol] as number) : null;
}

/** A page of the user's library items (of one type when given), newest first unless `order=ASC`. */
export function listMediaItems(db: Kysely<Database>, userid: number, q: Page & { type?: string }) {
  let sel = db.selectFrom('media_items').select(['type', 'objectid']).where('userid', '=', userid);
  if (q.type) sel = sel.where('type', '=', q.type);
  return sel.orderBy('itemid', q.order === 'ASC' ? 'asc' : 'desc').limit(q.limit).offset(q.offset).execute();
}

/** The object ids of a page of the user's library items of one type, newest first unless `order=ASC`. */
export async function libraryObjectIds(db: Kysely<Database>, userid: number, type: 'GuideImage' | 'GuideVideoObject', q: Page): Promise<number[]> {
  const rows = await db.selectFrom('media_items').select('objectid').where('userid', '=', userid).where('type', '=', type)
    .orderBy('itemid', q.order === 'ASC' ? 'asc' : 'desc').limit(q.limit).offset(q.offset).execute();
  return rows.map((r) => r.objectid);
}
