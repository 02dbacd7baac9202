// The image object every record embeds ({id, guid, and a URL per size variant}).
// Built in one batched query for a whole page of records, never one query per row.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ImageObject } from '../../http/schemas.js';
import type { Config } from '../../config.js';
import { imageVariantUrl, imageVariantUrls } from './media.urls.js';
import { sha1 } from '../../http/conditional.js';

export const IMAGE_VARIANTS = ['mini', 'thumbnail', '140x105', '200x150', 'standard', '440x330', 'medium', 'large', 'huge', 'original'] as const;
export type ImageVariant = (typeof IMAGE_VARIANTS)[number];

export { imageVariantUrl };

/** The image object, with a signed URL per variant (see media.urls.ts). */
export function imageObject(config: Config, row: { imageid: number; guid: string }): ImageObject {
  // One HMAC per image, not one per variant: a record of a guide carries dozens of images.
  return { id: row.imageid, guid: row.guid, ...imageVariantUrls(config, row.guid, IMAGE_VARIANTS) };
}

/** Image objects for many image ids at once. */
export async function loadImageObjects(db: Kysely<Database>, config: Config, ids: Array<number | null | undefined>): Promise<Map<number, ImageObject>> {
  const wanted = [...new Set(ids.filter((x): x is number => typeof x === 'number'))];
  const out = new Map<number, ImageObject>();
  if (wanted.length === 0) return out;
  const rows = await db.selectFrom('images').select(['imageid', 'guid']).where('imageid', 'in', wanted).execute();
  for (const r of rows) out.set(r.imageid, imageObject(config, r));
  return out;
}

/**
 * What vouches for image objects besides the stamps (an image object is its id and guid):
 * `imagesCheckOf` of the objects a record was built with, `imagesCheck` of the same ids as
 * the rows are now; equal while no image of them was removed or given another guid.
 */
export function imagesCheckOf(images: Iterable<Pick<ImageObject, 'id' | 'guid'>>): string {
  return sha1(JSON.stringify([...images].map((i) => [i.id, i.guid]).sort((a, b) => Number(a[0]) - Number(b[0]))));
}

export async function imagesCheck(db: Kysely<Database>, ids: number[]): Promise<string> {
  if (ids.length === 0) return imagesCheckOf([]);
  const rows = await db.selectFrom('images').select(['imageid', 'guid']).where('imageid', 'in', ids).execute();
  return imagesCheckOf(rows.map((r) => ({ id: r.imageid, guid: r.guid })));
}
