// The files themselves, outside /api/2.0 (their URLs are in the records):
//   /files/images/<guid>.<variant>   a size variant, made on first request and kept
//   /files/videos/<guid>.<mp4|webm|original>
//   /files/documents/<guid>.pdf
// A file of an item that public content shows is served to anyone and may be kept by
// shared caches; any other file only through a signed URL (the URLs in the API's records,
// see media.urls.ts), until it expires, and only by the browser's own cache (`private`).
// A deleted item's rows are gone, so its files answer 404 at once. Byte ranges for
// video players.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { HttpError, notFound, unauthorized } from '../../http/errors.js';
import { blobStoreFor, type BlobStore } from '../../storage/blob-store.js';
import { IMAGE_VARIANTS, type ImageVariant } from './image-object.js';
import { makeVariant, uprightOriginal, variantFormat } from './images.js';
import { isGuid } from './guid.js';
import { publicMedia, type MediaKind } from './media.access.js';
import { signatureLife, useMediaClock, type FileKind } from './media.urls.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { variantKey } from './media.keys.js';

const KIND: Record<FileKind, MediaKind> = { images: 'image', videos: 'video', documents: 'document' };

/**
 * Whether the caller may have this item's file, and the Cache-Control it goes with:
 * public content for anyone (shared caches too), else a valid signature (the browser's
 * cache only, for the signature's life). 404 without a signature, so that nobody learns
 * which GUIDs exist; 403 for a wrong or expired one.
 */
async function fileAccess(db: Kysely<Database>, config: Config, request: FastifyRequest, kind: FileKind, guid: string, id: number): Promise<string> {
  const q = request.query as Record<string, unknown>;
  // A private site: an unsigned path is for those logged in (the session cookie), and no
  // shared cache may keep what it answers them.
  const shown = !config.privateSite || request.user !== null;
  if (shown && (await publicMedia(db, KIND[kind], [id])).has(id)) return config.privateSite ? `private, max-age=${config.mediaUrlTtl}` : `public, max-age=${config.mediaUrlTtl}`;
  if (q.sig === undefined) throw notFound('File');
  const life = signatureLife(config, kind, guid, q.exp, q.sig);
  if (life === 0) throw new HttpError(403, 'expired_link', 'This link has expired or is not valid; read the record again for a fresh one.');
  return `private, max-age=${Math.min(life, config.mediaUrlTtl)}`;
}

/** Variants being made right now, so that simultaneous first requests make one. */
const making = new Map<string, Promise<void>>();

/** Makes the variant `key` once; `stored` learns its size (it counts against the owner's quota). */
async function ensureVariant(store: BlobStore, key: string, make: () => Promise<Buffer>, stored: (bytes: number) => Promise<unknown>) {
  if ((await store.size(key)) !== null) return;
  let p = making.get(key);
  if (!p) {
    p = make().then(async (data) => {
      await store.putBuffer(key, data);
      await stored(data.length);
    }).finally(() => making.delete(key));
    making.set(key, p);
  }
  await p;
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'invalid' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // several ranges or nonsense: the whole file
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'invalid';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'invalid';
  return { start, end };
}

/** How a file is answered: its bytes streamed by the app, or (MEDIA_URL_MODE=redirect) a redirect to the bucket. */
interface Sender {
  store: BlobStore;
  config: Config;
  clock: Clock;
}

/**
 * MEDIA_URL_MODE=redirect: a 302 to a presigned URL of the bucket, valid for MEDIA_URL_TTL,
 * whose answer carries the file's type, and `attachment` for anything but images and
 * video (a document is saved, not shown on the bucket's origin). Null: stream it.
 */
async function redirectTo(s: Sender, key: string, o: { mime: string; filename?: string }): Promise<string | null> {
  if (s.config.mediaUrlMode !== 'redirect') return null;
  const inline = o.mime.startsWith('image/') || o.mime.startsWith('video/');
  const name = (o.filename ?? key.split('/').pop()!).replace(/[^\x20-\x7e]|"/g, '_');
  return s.store.presignedUrl(key, {
    expiresIn: s.config.mediaUrlTtl, contentType: o.mime, signedAt: s.clock.now(),
    ...(inline ? {} : { contentDisposition: `attachment; filename="${name}"` }),
  });
}

async function sendBlob(request: FastifyRequest, reply: FastifyReply, sender: Sender, key: string, o: { mime: string; etag: string; cache: string; filename?: string; ranges?: boolean }) {
  const { store } = sender;
  const to = await redirectTo(sender, key, o);
  if (to) {
    // The redirect names a URL that expires: no cache keeps it.
    return reply.status(302).header('location', to).header('cache-control', 'no-store').send();
  }
  const size = await store.size(key);
  if (size === null) throw notFound('File');
  reply.header('cache-control', o.cache);
  reply.header('etag', `"${o.etag}"`);
  reply.header('content-type', o.mime);
  if (o.filename) reply.header('content-disposition', `inline; filename="${o.filename.replace(/[^\x20-\x7e]|"/g, '_')}"`);
  if (request.headers['if-none-match'] === `"${o.etag}"`) return reply.status(304).send();
  let stream: Readable | null;
  if (o.ranges) {
    reply.header('accept-ranges', 'bytes');
    const range = parseRange(request.headers.range, size);
    if (range === 'invalid') {
      reply.header('content-range', `bytes */${size}`);
      throw new HttpError(416, 'range_not_satisfiable', 'The requested range is outside the file.');
    }
    if (range) {
      reply.status(206);
      reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      reply.header('content-length', String(range.end - range.start + 1));
      stream = await store.get(key, range);
      return reply.send(stream);
    }
  }
  reply.header('content-length', String(size));
  stream = await store.get(key);
  if (!stream) throw notFound('File');
  return reply.send(stream);
}

export async function mediaFileRoutes(app: FastifyInstance) {
  const { db, config, clock } = app;
  const store = blobStoreFor(config);
  const sender: Sender = { store, config, clock };
  useMediaClock(config, clock);
  // A private site: an unsigned path answers nobody without a session, whether or not the file exists.
  if (config.privateSite) {
    app.addHook('preHandler', async (request) => {
      if (!request.user && (request.query as Record<string, unknown>).sig === undefined) throw unauthorized('This site is private: log in, or use the signed URL of a record.');
    });
  }

  app.get<{ Params: { file: string } }>('/files/images/:file', { schema: { hide: true }, config: { session: true } }, async (request, reply) => {
    const m = /^([A-Za-z0-9]+)\.([A-Za-z0-9]+)$/.exec(request.params.file);
    if (!m || !isGuid(m[1]) || !(IMAGE_VARIANTS as readonly string[]).includes(m[2])) throw notFound('Image');
    const [, guid, variant] = m as unknown as [string, string, ImageVariant];
    const img = await db.selectFrom('images').select(['imageid', 'width', 'height', 'mime', 'orientation', 'blob_key']).where('guid', '=', guid).executeTakeFirst();
    if (!img || !img.blob_key) throw notFound('Image');
    const cache = await fileAccess(db, config, request, 'images', guid, img.imageid);
    const original = img.blob_key;
    const out = variantFormat(img.mime);
    if (variant === 'original' && img.orientation === 1) {
      return sendBlob(request, reply, sender, original, { mime: img.mime, etag: `${guid}.original`, cache });
    }
    const key = variantKey(guid, variant);
    await ensureVariant(store, key, async () => {
      const local = await store.localFile(original);
      if (!local) throw notFound('Image');
      try {
        return variant === 'original' ? await uprightOriginal(local.path, img.mime) : await makeVariant(local.path, img.mime, variant, img.width, img.height);
      } finally {
        await local.release();
      }
    }, (bytes) => db.updateTable('images').set((eb) => ({ variant_bytes: eb('variant_bytes', '+', bytes) })).where('imageid', '=', img.imageid).execute());
    return sendBlob(request, reply, sender, key, { mime: out.mime, etag: `${guid}.${variant}`, cache });
  });

  app.get<{ Params: { file: string } }>('/files/videos/:file', { schema: { hide: true }, config: { session: true } }, async (request, reply) => {
    const m = /^([A-Za-z0-9]+)\.([a-z0-9]+)$/.exec(request.params.file);
    if (!m || !isGuid(m[1])) throw notFound('Video');
    const [, guid, name] = m;
    const video = await db.selectFrom('videos').select(['videoid', 'mime', 'blob_key', 'filename']).where('guid', '=', guid).executeTakeFirst();
    if (!video) throw notFound('Video');
    const cache = await fileAccess(db, config, request, 'videos', guid, video.videoid);
    if (name === 'original') {
      if (!video.blob_key) throw notFound('Video');
      return sendBlob(request, reply, sender, video.blob_key, { mime: video.mime, etag: `${guid}.original`, cache, ranges: true, filename: video.filename });
    }
    const enc = await db.selectFrom('video_encodings').select(['blob_key', 'mime']).where('videoid', '=', video.videoid).where('format', '=', name).executeTakeFirst();
    if (!enc) throw notFound('Video encoding');
    return sendBlob(request, reply, sender, enc.blob_key, { mime: enc.mime, etag: `${guid}.${name}`, cache, ranges: true });
  });

  app.get<{ Params: { file: string } }>('/files/documents/:file', { schema: { hide: true }, config: { session: true } }, async (request, reply) => {
    const m = /^([A-Za-z0-9]+)\.pdf$/.exec(request.params.file);
    if (!m || !isGuid(m[1])) throw notFound('Document');
    const doc = await db.selectFrom('documents').select(['documentid', 'blob_key', 'mime', 'filename']).where('guid', '=', m[1]).executeTakeFirst();
    if (!doc) throw notFound('Document');
    const cache = await fileAccess(db, config, request, 'documents', m[1], doc.documentid);
    return sendBlob(request, reply, sender, doc.blob_key, { mime: doc.mime, etag: `${m[1]}.pdf`, cache, ranges: true, filename: doc.filename });
  });
}
