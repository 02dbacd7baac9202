// What spans several media tables: receiving an upload (streamed to the blob store,
// its kind sniffed from the first bytes), building library items, edits and deletes.
import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { enqueueJob } from '../../jobs/queue.js';
import { HttpError, insufficientStorage, invalidField, isOutOfSpace, notFound, unprocessable, forbidden, type FieldError } from '../../http/errors.js';
import { isAdmin, parsePrivileges, type AuthUser } from '../../http/auth.js';
import { blobStoreFor, type BlobStore } from '../../storage/blob-store.js';
import { sniff, SNIFF_BYTES, type Sniffed } from './sniff.js';
import { exifRecord, markupColor, readImageInfo, renderEdit, type Crop, type Markup } from './images.js';
import { newGuid } from './guid.js';
import { VIDEO_JOB, VIDEO_JOB_ATTEMPTS, cancelVideoWork, checkVideoUpload } from './videos.js';
import { imageDetailFromRow, loadDocuments, loadEmbeds, loadVideoDetails } from './media-records.js';
import { findMediaUses, type MediaUsageCheck, type UsageKind } from './media-usage.js';
import { isForeignKeyViolation } from '../../db/helpers.js';
import { admitUpload, quotaExceeded, type QuotaRoom } from './media.storage.js';
import type { MediaItem, MediaType } from './media.schemas.js';
import { MEDIA_TYPES } from './media.schemas.js';
import { encodingPrefix, originalKey, variantPrefix } from './media.keys.js';

export const PURGE_JOB = 'media.purge';
/** A purge that fails (storage unreachable) is tried again, with the queue's backoff, this often. */
const PURGE_ATTEMPTS = 10;

export const KIND_OF: Record<MediaType, UsageKind> = { GuideImage: 'image', GuideVideoObject: 'video', GuideEmbedObject: 'embed', Document: 'document' };
const TYPE_OF: Record<string, MediaType> = { image: 'GuideImage', video: 'GuideVideoObject', document: 'Document', embed: 'GuideEmbedObject' };

export const tooLarge = (limit: number, what = 'upload') => new HttpError(413, 'payload_too_large', `The ${what} is larger than the limit of ${limit} bytes.`);

/** The largest upload of a kind, in bytes. */
export function kindLimit(config: Config, kind: Sniffed['kind']): number {
  if (kind === 'image') return Math.min(config.mediaMaxImageBytes, config.mediaMaxBytes);
  if (kind === 'document') return Math.min(config.mediaMaxDocumentBytes, config.mediaMaxBytes);
  return config.mediaMaxBytes;
}

const KIND_NAMES = 'JPEG, PNG, GIF or WebP images; MP4, WebM or QuickTime videos; PDF documents';

/**
 * Counts, hashes and sniffs the bytes going past; fails as soon as the kind is unknown
 * or the body passes its kind's limit, so that nothing more is written.
 */
class UploadMeter extends Transform {
  bytes = 0;
  sniffed: Sniffed | null | undefined = undefined;
  private head: Buffer[] = [];
  private headLength = 0;
  private md5 = createHash('md5');

  /** `room`: the bytes the owner's quota has left (`quota` and `used` say it in the 413). */
  constructor(private config: Config, private room: QuotaRoom | null = null) {
    super();
  }

  private decide(): HttpError | null {
    this.sniffed = sniff(Buffer.concat(this.head));
    this.head = [];
    if (!this.sniffed) return invalidField('file', `The file is of a kind the service does not accept; send ${KIND_NAMES}.`, 'unsupported_type');
    return null;
  }

  private limit(): number {
    return this.sniffed ? kindLimit(this.config, this.sniffed.kind) : this.config.mediaMaxBytes;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.bytes += chunk.length;
    if (this.sniffed === undefined) {
      this.head.push(chunk);
      this.headLength += chunk.length;
      if (this.headLength >= SNIFF_BYTES) {
        const err = this.decide();
        if (err) return cb(err);
      }
    }
    if (this.bytes > this.limit()) return cb(tooLarge(this.limit(), this.sniffed ? `${this.sniffed.kind} upload` : 'upload'));
    if (this.room && this.bytes > this.room.bytes) return cb(quotaExceeded(this.room.quota, this.room.used));
    this.md5.update(chunk);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback) {
    if (this.bytes === 0) return cb(invalidField('file', 'The request body is empty; send the file\'s bytes as the body.', 'missing_field'));
    if (this.sniffed === undefined) {
      const err = this.decide();
      if (err) return cb(err);
    }
    cb();
  }

  digest() {
    return this.md5.digest('hex');
  }
}

/** A file name safe to keep: no folders, no control characters, at most 255 characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = [...base].filter((ch) => ch.charCodeAt(0) >= 0x20 && ch !== '\u007f' && ch !== '"').join('').trim().slice(0, 255);
  return cleaned || 'upload';
}

export interface Services {
  db: Kysely<Database>;
  config: Config;
  clock: Clock;
  /** Where content uses an item: every area's `mediaUsages` slot (`app.mediaUsages`); asked by `deleteItem`. */
  mediaUsages?: readonly MediaUsageCheck[];
}

/** Runs `fn` in a transaction, or in the caller's when `db` already is one (the demo seed). */
function inTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * Receives an upload; answers the new library item's type and id. Stores nothing on
 * refusal. `room`: the bytes the uploader's quota has left (from `admitUpload`).
 */
export async function receiveUpload(s: Services, userid: number, filename: string, body: Readable, room: QuotaRoom | null = null): Promise<{ type: MediaType; id: number }> {
  const { db, config, clock } = s;
  const store = blobStoreFor(config);
  const guid = newGuid();
  const key = originalKey(guid);
  const meter = new UploadMeter(config, room);
  // Piped by hand rather than with pipeline(): a refusal must not destroy the request
  // (that would close the socket before the 413/422 is sent); the rest is discarded.
  body.on('error', (e) => meter.destroy(e));
  meter.on('error', () => {}); // reported through store.put's promise
  body.pipe(meter);
  let size: number;
  try {
    size = await store.put(key, meter);
  } catch (err) {
    body.unpipe(meter);
    body.resume();
    await store.delete(key);
    if (err instanceof HttpError) throw err;
    // The disk, not the client: a full disk ended the write (the partial file is removed above).
    if (isOutOfSpace(err)) throw insufficientStorage('the upload');
    throw new HttpError(400, 'bad_request', 'The upload was interrupted.');
  }
  const kind = meter.sniffed!;
  const md5 = meter.digest();
  const name = cleanFilename(filename);
  const now = clock.now();
  try {
    if (kind.kind === 'image') return { type: 'GuideImage', id: await storeImage(db, store, { guid, key, name, size, now, userid, sniffed: kind }) };
    if (kind.kind === 'video') {
      await checkVideoUpload(config, store, key, kind);
      const id = await db.transaction().execute(async (trx) => {
        const row = await trx.insertInto('videos').values({
          guid, userid, filename: name, created_date: now, mime: kind.mime, size, md5, blob_key: key, state: 'queued', state_reason: null, meta: null, poster_imageid: null, srcid: null,
        }).returning('videoid').executeTakeFirstOrThrow();
        await trx.insertInto('media_items').values({ userid, type: 'GuideVideoObject', objectid: row.videoid, created_date: now }).execute();
        await enqueueJob(trx, clock, VIDEO_JOB, { videoid: row.videoid }, { maxAttempts: VIDEO_JOB_ATTEMPTS });
        return row.videoid;
      });
      return { type: 'GuideVideoObject', id };
    }
    const id = await db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('documents').values({ guid, userid, filename: name, mime: kind.mime, size, md5, blob_key: key, created_date: now }).returning('documentid').executeTakeFirstOrThrow();
      await trx.insertInto('media_items').values({ userid, type: 'Document', objectid: row.documentid, created_date: now }).execute();
      return row.documentid;
    });
    return { type: 'Document', id };
  } catch (err) {
    await store.delete(key);
    throw err;
  }
}

async function storeImage(db: Kysely<Database>, store: BlobStore, o: { guid: string; key: string; name: string; size: number; now: number; userid: number; sniffed: Sniffed; srcid?: number; markup?: string }) {
  const local = await store.localFile(o.key);
  if (!local) throw new Error('stored image vanished');
  let info;
  try {
    info = await readImageInfo(local.path);
  } catch (err) {
    if (err instanceof HttpError) throw err; // 429 busy from the image queue
    if (err instanceof RangeError) throw invalidField('file', err.message, 'out_of_range');
    throw invalidField('file', `The file starts like a ${o.sniffed.format.toUpperCase()} image but cannot be read as one.`, 'invalid_value');
  } finally {
    await local.release();
  }
  const exif = exifRecord({ filename: o.name, date: o.now, size: o.size, mime: o.sniffed.mime, width: info.width, height: info.height, channels: info.channels, exif: info.exif });
  return inTransaction(db, async (trx) => {
    const row = await trx.insertInto('images').values({
      guid: o.guid, userid: o.userid, width: info.width, height: info.height, mime: o.sniffed.mime, created_date: o.now,
      srcid: o.srcid ?? null, filename: o.name, size: o.size, orientation: info.orientation, exif: JSON.stringify(exif), markup: o.markup ?? null, blob_key: o.key,
    }).returning('imageid').executeTakeFirstOrThrow();
    await trx.insertInto('media_items').values({ userid: o.userid, type: 'GuideImage', objectid: row.imageid, created_date: o.now }).execute();
    return row.imageid;
  });
}

/** Stores a generated image (demo content) as a library item of `userid`. */
export async function storeGeneratedImage(db: Kysely<Database>, config: Config, now: number, userid: number, filename: string, data: Buffer): Promise<number> {
  const store = blobStoreFor(config);
  const sniffed = sniff(data.subarray(0, SNIFF_BYTES));
  if (!sniffed || sniffed.kind !== 'image') throw new Error('not an image');
  const guid = newGuid();
  const key = originalKey(guid);
  await store.putBuffer(key, data);
  try {
    return await storeImage(db, store, { guid, key, name: filename, size: data.length, now, userid, sniffed });
  } catch (err) {
    await store.delete(key);
    throw err;
  }
}

// ---------------------------------------------------------------- library items

export function checkType(type: string): MediaType {
  if ((MEDIA_TYPES as readonly string[]).includes(type)) return type as MediaType;
  throw invalidField('type', `type must be one of: ${MEDIA_TYPES.join(', ')}.`);
}

/** Library items for (type, id) pairs, in the order given; unknown ones are left out. */
export async function loadMediaItems(db: Kysely<Database>, config: Config, refs: Array<{ type: string; objectid: number }>): Promise<MediaItem[]> {
  const ids = (t: MediaType) => refs.filter((r) => r.type === t).map((r) => r.objectid);
  const imageIds = ids('GuideImage');
  const videoIds = ids('GuideVideoObject');
  const [images, videos, videoDetails, documents, embeds] = await Promise.all([
    imageIds.length ? db.selectFrom('images').selectAll().where('imageid', 'in', imageIds).execute() : [],
    videoIds.length ? db.selectFrom('videos').select(['videoid', 'guid', 'filename', 'mime', 'size', 'created_date', 'state']).where('videoid', 'in', videoIds).execute() : [],
    loadVideoDetails(db, config, videoIds),
    loadDocuments(db, config, ids('Document')),
    loadEmbeds(db, ids('GuideEmbedObject')),
  ]);
  const imageById = new Map(images.map((r) => [r.imageid, r]));
  const videoById = new Map(videos.map((r) => [r.videoid, r]));
  const out: MediaItem[] = [];
  for (const ref of refs) {
    if (ref.type === 'GuideImage') {
      const r = imageById.get(ref.objectid);
      if (r) out.push({ id: r.imageid, type: 'GuideImage', kind: 'image', guid: r.guid, filename: r.filename, mime: r.mime, size: r.size, created_date: r.created_date, isReady: true, state: 'ready', image: imageDetailFromRow(config, r) });
    } else if (ref.type === 'GuideVideoObject') {
      const r = videoById.get(ref.objectid);
      const d = videoDetails.get(ref.objectid);
      if (r && d) out.push({ id: r.videoid, type: 'GuideVideoObject', kind: 'video', guid: r.guid, filename: r.filename, mime: r.mime, size: r.size, created_date: r.created_date, isReady: r.state === 'finished', state: r.state, video: d });
    } else if (ref.type === 'Document') {
      const d = documents.get(ref.objectid);
      if (d) out.push({ id: d.documentid, type: 'Document', kind: 'document', guid: d.guid, filename: d.filename, mime: d.mime, size: d.size, created_date: d.created_date, isReady: true, state: 'ready', document: d });
    } else if (ref.type === 'GuideEmbedObject') {
      const e = embeds.get(ref.objectid);
      if (e) out.push({ id: e.embedid, type: 'GuideEmbedObject', kind: 'embed', guid: e.guid, filename: e.title || e.url, mime: 'text/html', size: 0, created_date: e.created_date, isReady: true, state: 'ready', embed: e });
    }
  }
  return out;
}

/** The library item (type, id), checked: 404 when unknown, 403 unless the owner or an Admin. */
export async function findOwnItem(db: Kysely<Database>, user: AuthUser, type: MediaType, id: number) {
  const item = await db.selectFrom('media_items').selectAll().where('type', '=', type).where('objectid', '=', id).executeTakeFirst();
  if (!item) throw notFound('Media item');
  if (item.userid !== user.userid && !isAdmin(user)) throw forbidden('Only the item\'s owner or an Admin may see or change it.');
  return item;
}

/**
 * Deletes a library item. Refused (422, code `in_use`) while content its owner may edit
 * uses it, as the areas' usage checks (`s.mediaUsages`) say. The rows go at once (the quota
 * counts rows, so the space is free at once); the files are deleted by a job queued in the
 * same transaction to run after MEDIA_DELETE_GRACE_S, so that a backup of the database
 * taken meanwhile finds every file it names (the job is retried when storage fails).
 */
export async function deleteItem(s: Services, user: AuthUser, type: MediaType, id: number): Promise<void> {
  const { db, clock } = s;
  const item = await findOwnItem(db, user, type, id);
  const kind = KIND_OF[type];
  try {
    await db.transaction().execute(async (trx) => {
      const owner = await trx.selectFrom('users').select(['userid', 'privileges']).where('userid', '=', item.userid).executeTakeFirst();
      const uses = await findMediaUses(s.mediaUsages ?? [], trx, kind, id, owner ? { userid: owner.userid, privileges: parsePrivileges(owner.privileges) } : null);
      if (uses.length) throw inUse(uses);
      const keys: string[] = [];
      const prefixes: string[] = [];
      if (kind === 'image') {
        const img = await trx.selectFrom('images').select(['guid', 'blob_key']).where('imageid', '=', id).executeTakeFirst();
        if (img) {
          if (img.blob_key) keys.push(img.blob_key);
          prefixes.push(variantPrefix(img.guid));
        }
        await trx.deleteFrom('media_items').where('itemid', '=', item.itemid).execute();
        await trx.deleteFrom('images').where('imageid', '=', id).execute();
      } else if (kind === 'video') {
        const v = await trx.selectFrom('videos').select(['guid', 'blob_key', 'poster_imageid']).where('videoid', '=', id).executeTakeFirst();
        await trx.deleteFrom('media_items').where('itemid', '=', item.itemid).execute();
        if (v) {
          if (v.blob_key) keys.push(v.blob_key);
          prefixes.push(encodingPrefix(v.guid));
          await trx.deleteFrom('video_encodings').where('videoid', '=', id).execute();
          await trx.deleteFrom('videos').where('videoid', '=', id).execute();
          if (v.poster_imageid) {
            const p = await trx.selectFrom('images').select(['guid', 'blob_key']).where('imageid', '=', v.poster_imageid).executeTakeFirst();
            if (p) {
              if (p.blob_key) keys.push(p.blob_key);
              prefixes.push(variantPrefix(p.guid));
              await trx.deleteFrom('images').where('imageid', '=', v.poster_imageid).execute();
            }
          }
        }
      } else if (kind === 'document') {
        const d = await trx.selectFrom('documents').select(['blob_key']).where('documentid', '=', id).executeTakeFirst();
        if (d) keys.push(d.blob_key);
        await trx.deleteFrom('media_items').where('itemid', '=', item.itemid).execute();
        await trx.deleteFrom('documents').where('documentid', '=', id).execute();
      } else {
        await trx.deleteFrom('media_items').where('itemid', '=', item.itemid).execute();
        await trx.deleteFrom('embeds').where('embedid', '=', id).execute();
      }
      if (keys.length || prefixes.length) await enqueueJob(trx, clock, PURGE_JOB, { keys, prefixes }, { runAt: clock.now() + s.config.mediaDeleteGraceS, maxAttempts: PURGE_ATTEMPTS });
    });
    if (kind === 'video') cancelVideoWork(id);
  } catch (err) {
    // A table that refers to the item by a foreign key and registered no check.
    if (isForeignKeyViolation(err)) throw inUse([]);
    throw err;
  }
}

function inUse(uses: Array<{ type: string; id: number }>) {
  const list = uses.map((u) => `${u.type} ${u.id}`).join(', ');
  const message = `The item is still used${list ? ` (by ${list})` : ''}; remove it from there first.`;
  return unprocessable([{ field: 'itemId', code: 'in_use', message }], message);
}

export function purgeJobHandler(config: Config) {
  return async (payload: { keys?: string[]; prefixes?: string[] }) => {
    const store = blobStoreFor(config);
    for (const k of payload.keys ?? []) await store.delete(k);
    for (const p of payload.prefixes ?? []) await store.deletePrefix(p);
  };
}

// ---------------------------------------------------------------- edits

export interface EditRequest {
  imageid: number;
  crop?: Crop;
  markup?: Markup;
}

function checkMarkup(markup: Markup | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (!markup) return errors;
  for (const kind of ['circles', 'rectangles', 'arrows', 'lines'] as const) {
    (markup[kind] ?? []).forEach((shape, i) => {
      if (shape.color !== undefined && !markupColor(shape.color)) {
        errors.push({ field: `markup.${kind}[${i}].color`, code: 'invalid_value', message: `markup.${kind}[${i}].color must be a colour name (red, orange, yellow, green, blue, violet, black, white) or #rrggbb.`, index: i });
      }
    });
  }
  return errors;
}

/** Crops and marks up an image into a NEW image (srcid = the edited image); the original stays. */
export async function editImage(s: Services, user: AuthUser, req: EditRequest): Promise<{ type: MediaType; id: number }> {
  const { db } = s;
  const src = await db.selectFrom('images').selectAll().where('imageid', '=', req.imageid).executeTakeFirst();
  if (!src) throw notFound('Image');
  if (src.userid !== user.userid && !isAdmin(user)) throw forbidden('Only the image\'s owner or an Admin may edit it.');
  const shapes = req.markup ? (['circles', 'rectangles', 'arrows', 'lines'] as const).reduce((n, k) => n + (req.markup![k]?.length ?? 0), 0) : 0;
  if (!req.crop && shapes === 0) throw unprocessable([{ field: 'crop', code: 'missing_field', message: 'Send a crop rectangle, markup shapes, or both.' }]);
  const errors = checkMarkup(req.markup);
  if (req.crop) {
    const c = req.crop;
    if (c.x + c.width > src.width || c.y + c.height > src.height) {
      errors.unshift({ field: 'crop', code: 'out_of_range', message: `The crop rectangle must lie inside the ${src.width}x${src.height} image.` });
    }
  }
  if (errors.length) throw unprocessable(errors);
  if (!src.blob_key) throw invalidField('imageid', 'The image has no stored file to edit.');
  // An edit stores a new image: it counts as an upload, against the rate and the quota
  // (admitted before the rendering, the expensive part).
  const admission = await admitUpload(s, user);
  try {
    return await storeEdit(s, user, src, req, admission.room);
  } catch (err) {
    await admission.release();
    throw err;
  }
}

async function storeEdit(s: Services, user: AuthUser, src: Selectable<Database['images']>, req: EditRequest, room: QuotaRoom | null): Promise<{ type: MediaType; id: number }> {
  const { db, config, clock } = s;
  const store = blobStoreFor(config);
  const local = await store.localFile(src.blob_key!);
  if (!local) throw invalidField('imageid', 'The image has no stored file to edit.');
  let rendered;
  try {
    rendered = await renderEdit(local.path, src.mime, src.width, src.height, req.crop, req.markup);
  } finally {
    await local.release();
  }
  if (room && rendered.data.length > room.bytes) throw quotaExceeded(room.quota, room.used);
  const guid = newGuid();
  const key = originalKey(guid);
  await store.putBuffer(key, rendered.data);
  const sniffed = sniff(rendered.data.subarray(0, SNIFF_BYTES))!;
  const markup = JSON.stringify({ ...(req.crop ? { crop: req.crop } : {}), ...(req.markup ?? {}) });
  const filename = src.mime === rendered.mime ? src.filename : src.filename.replace(/\.[^.]*$/, '') + '.' + sniffed.ext;
  try {
    const id = await storeImage(db, store, { guid, key, name: filename || 'edit.' + sniffed.ext, size: rendered.data.length, now: clock.now(), userid: user.userid, sniffed, srcid: src.imageid, markup });
    return { type: 'GuideImage', id };
  } catch (err) {
    await store.delete(key);
    throw err;
  }
}

export { TYPE_OF };

/** Adds an embedded page (a URL) to the user's library, in one transaction; answers its embedid. */
export async function addEmbed(db: Kysely<Database>, now: number, userid: number, e: { url: URL; title: string; width: number | null; height: number | null }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('embeds').values({
      guid: newGuid(), userid, url: e.url.toString(), title: e.title, provider: e.url.hostname, width: e.width, height: e.height, created_date: now,
    }).returning('embedid').executeTakeFirstOrThrow();
    await trx.insertInto('media_items').values({ userid, type: 'GuideEmbedObject', objectid: row.embedid, created_date: now }).execute();
    return row.embedid;
  });
}
