// The media endpoints: GET /media/images/{id|GUID}, GET /media/videos/{id|GUID}, and the
// user's library under /user/media (uploads, lists, items, edits, constraints).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses } from '../../http/schemas.js';
import { HttpError, invalidField, notFound } from '../../http/errors.js';
import { reauthorizing, requireUser, type AuthUser } from '../../http/auth.js';
import { readableMedia } from './media.access.js';
import { useMediaClock } from './media.urls.js';
import { admitUpload, uploadStanding } from './media.storage.js';
import {
  Constraint, ConstraintsQuery, EditBody, EmbedBody, ImageDetail, ItemParams, KindListQuery, MediaItem, MediaListQuery, MEDIA_TYPES, UploadQuery, VideoDetail,
} from './media.schemas.js';
import { addEmbed, checkType, deleteItem, editImage, findOwnItem, kindLimit, loadMediaItems, receiveUpload, tooLarge } from './media.service.js';
import { findByIdOrGuid, libraryObjectIds, listMediaItems } from './media.queries.js';
import { loadImageDetails, loadVideoDetails } from './media-records.js';
import { ACCEPTED_FORMATS } from './sniff.js';
import { VARIANT_BOXES, MAX_IMAGE_SIDE, MARKUP_COLORS, configureImageWork } from './images.js';
import { ENCODING_FORMATS, ENCODING_MAX } from './videos.js';
import { IMAGE_VARIANTS } from './image-object.js';
import type { Readable } from 'node:stream';

const MEDIA_TAG = ['Media'];
const READ_RULE = 'Answered to the item\'s owner, to Admins, and to anyone who may read content that shows it (a guide, a step, a wiki, a comment, an avatar, a team); 404 to anyone else, as for an unknown id.';
const USER_TAG = ['User media'];
const IdOrGuid = (name: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 64, description: 'A numeric id or a GUID.' }) });


export async function mediaRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const services = { db, config, clock, mediaUsages: fastify.mediaUsages };
  configureImageWork(config);
  useMediaClock(config, clock);

  /** The id when the caller may read the item, else null (answered as unknown: 404). */
  async function findReadable(user: AuthUser | null, kind: 'image' | 'video', id: number | null): Promise<number | null> {
    return id != null && (await readableMedia(db, user, kind, [id])).has(id) ? id : null;
  }

  // ------------------------------------------------------------ public records

  app.get('/media/images/:imageid', {
    config: { auth: 'none' },
    schema: {
      tags: MEDIA_TAG,
      summary: 'An image detail record',
      description: 'The path is an imageid or the image\'s GUID. ' + READ_RULE + ' Variant URLs in `image` are served outside /api/2.0 and signed (see docs/media.md).',
      params: IdOrGuid('imageid'),
      response: { 200: ImageDetail, ...errorResponses(404) },
    },
  }, async (request) => {
    const id = await findReadable(request.user, 'image', await findByIdOrGuid(db, 'images', request.params.imageid));
    const detail = id == null ? undefined : (await loadImageDetails(db, config, [id])).get(id);
    if (!detail) throw notFound('Image');
    return detail;
  });

  app.get('/media/videos/:videoid', {
    config: { auth: 'none' },
    schema: {
      tags: MEDIA_TAG,
      summary: 'A video detail record',
      description: 'The path is a videoid or the video\'s GUID. `meta.state` is `queued` or `processing` while the encodings are made, `finished` when `encodings` (MP4 H.264 and WebM) and the poster `image` are ready, `failed` when the file could not be encoded. ' + READ_RULE,
      params: IdOrGuid('videoid'),
      response: { 200: VideoDetail, ...errorResponses(404) },
    },
  }, async (request) => {
    const id = await findReadable(request.user, 'video', await findByIdOrGuid(db, 'videos', request.params.videoid));
    const detail = id == null ? undefined : (await loadVideoDetails(db, config, [id])).get(id);
    if (!detail) throw notFound('Video');
    return detail;
  });

  // ------------------------------------------------------------ uploads
  // Raw bodies: in their own scope, every content type reaches the handler as the
  // unread request stream, so that the handler can refuse a wrong type with 422 and
  // stream a right one to storage without holding it in memory.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const parentCompiler = scope.validatorCompiler;

    scope.withTypeProvider<TypeBoxTypeProvider>().post('/user/media/uploads', {
      config: { auth: 'user' },
      // The body is a stream, not JSON: only the query string is validated.
      validatorCompiler: (ctx) => (ctx.httpPart === 'body' ? () => true : parentCompiler!(ctx)),
      schema: {
        tags: USER_TAG,
        summary: 'Upload a file to the user\'s media library',
        description:
          'The file is the raw request body with `Content-Type: application/octet-stream` (422 otherwise); `file` names it. ' +
          'The kind is decided from the bytes: JPEG, PNG, GIF or WebP images (GuideImage); MP4, WebM or QuickTime videos (GuideVideoObject); PDF documents (Document). ' +
          'A video is kept only when ffprobe finds a video stream in it within the limits (VIDEO_MAX_SECONDS, VIDEO_MAX_DIMENSION, VIDEO_MAX_STREAMS). ' +
          'Anything else or an empty body: 422. Larger than the limit (MEDIA_MAX_BYTES, and per kind, see GET /user/media/constraints): 413. ' +
          'More than the uploader\'s storage quota has left (MEDIA_QUOTA_BYTES; originals, size variants and video encodings count): 413 `quota_exceeded`. More uploads in an hour than MEDIA_UPLOADS_PER_HOUR (Admins: no limit): 429 `rate_limited` with Retry-After. The server\'s disk full: 507 `insufficient_storage`. Nothing is stored on refusal. ' +
          'Answers 200 (as existing clients expect) with the new library item: its `id`, `type`, `kind` and detail record. A video is encoded in the background: `isReady` is false until `state` is `finished`.',
        querystring: UploadQuery,
        consumes: ['application/octet-stream'],
        body: Type.Unsafe({ type: 'string', format: 'binary', description: 'The file\'s bytes.' }),
        response: { 200: MediaItem, ...errorResponses(401, 413, 422, 507) },
      },
    }, async (request, reply) => {
      const user = requireUser(request);
      const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/octet-stream') {
        reply.header('connection', 'close');
        throw invalidField('Content-Type', 'Send the file as the raw body with Content-Type: application/octet-stream.');
      }
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > config.mediaMaxBytes) {
        reply.header('connection', 'close');
        throw tooLarge(config.mediaMaxBytes);
      }
      const body = request.body as Readable | undefined;
      if (!body || typeof (body as Readable).pipe !== 'function') throw invalidField('file', 'The request body is empty; send the file\'s bytes as the body.', 'missing_field');
      let created;
      try {
        const admission = await admitUpload(services, user);
        try {
          created = await receiveUpload({ ...services, db: reauthorizing(request, db) }, user.userid, request.query.file, body, admission.room);
        } catch (err) {
          await admission.release();
          throw err;
        }
      } catch (err) {
        if (err instanceof HttpError) reply.header('connection', 'close');
        throw err;
      }
      const [item] = await loadMediaItems(db, config, [{ type: created.type, objectid: created.id }]);
      return item;
    });
  });

  // ------------------------------------------------------------ the library

  app.get('/user/media/current', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'The user\'s media items',
      description: 'Every kind in one list, newest first (`order=ASC` for oldest first), filterable by `type`; `offset` and `limit` page through it.',
      querystring: MediaListQuery,
      response: { 200: Type.Array(MediaItem), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    return loadMediaItems(db, config, await listMediaItems(db, user.userid, request.query));
  });

  app.get('/user/media/images', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'The user\'s images (extension)',
      description: 'Image detail records of the user\'s library images, newest first (`order=ASC` for oldest first).',
      querystring: KindListQuery,
      response: { 200: Type.Array(ImageDetail), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const ids = await libraryObjectIds(db, user.userid, 'GuideImage', request.query);
    const details = await loadImageDetails(db, config, ids);
    return ids.map((id) => details.get(id)).filter((d) => d !== undefined);
  });

  app.get('/user/media/videos', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'The user\'s videos (extension)',
      description: 'Video detail records (with encodings once finished) of the user\'s library videos, newest first (`order=ASC` for oldest first).',
      querystring: KindListQuery,
      response: { 200: Type.Array(VideoDetail), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const ids = await libraryObjectIds(db, user.userid, 'GuideVideoObject', request.query);
    const details = await loadVideoDetails(db, config, ids);
    return ids.map((id) => details.get(id)).filter((d) => d !== undefined);
  });

  app.get('/user/media/constraints', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'Media constraints of the service',
      description: 'Per media item name (GuideImage, GuideVideoObject, GuideEmbedObject, Document): accepted types, the largest upload in bytes, image dimensions, the image size variants (box and fit), the video encodings made and the video upload limits (maxSeconds, maxDimension, maxStreams); on every uploaded kind, `account`: the caller\'s quota, what their media use of it and their hourly upload rate. `name` filters (comma-separated).',
      querystring: ConstraintsQuery,
      response: { 200: Type.Record(Type.String(), Constraint), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const names = (request.query.name ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    for (const n of names) if (!(MEDIA_TYPES as readonly string[]).includes(n)) throw invalidField('name', `name must be one of: ${MEDIA_TYPES.join(', ')}.`);
    const account = await uploadStanding(services, requireUser(request));
    const all = {
      GuideImage: {
        name: 'GuideImage' as const, kind: 'image',
        mimeTypes: ACCEPTED_FORMATS.image.map((f) => f.mime), extensions: ACCEPTED_FORMATS.image.flatMap((f) => [...f.extensions]),
        maxBytes: kindLimit(config, 'image'), account, minWidth: 1, minHeight: 1, maxWidth: MAX_IMAGE_SIDE, maxHeight: MAX_IMAGE_SIDE,
        variants: [
          ...IMAGE_VARIANTS.filter((v) => v !== 'original').map((v) => ({ name: v, ...VARIANT_BOXES[v as keyof typeof VARIANT_BOXES] })),
          { name: 'original', width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'original' },
        ],
      },
      GuideVideoObject: {
        name: 'GuideVideoObject' as const, kind: 'video',
        mimeTypes: ACCEPTED_FORMATS.video.map((f) => f.mime), extensions: ACCEPTED_FORMATS.video.flatMap((f) => [...f.extensions]),
        maxBytes: kindLimit(config, 'video'), account, maxWidth: ENCODING_MAX.width, maxHeight: ENCODING_MAX.height, encodings: [...ENCODING_FORMATS],
        maxSeconds: config.videoMaxSeconds, maxDimension: config.videoMaxDimension, maxStreams: config.videoMaxStreams,
      },
      GuideEmbedObject: { name: 'GuideEmbedObject' as const, kind: 'embed', mimeTypes: ['text/html'], extensions: [], maxBytes: null },
      Document: {
        name: 'Document' as const, kind: 'document',
        mimeTypes: ACCEPTED_FORMATS.document.map((f) => f.mime), extensions: ACCEPTED_FORMATS.document.flatMap((f) => [...f.extensions]),
        maxBytes: kindLimit(config, 'document'), account,
      },
    };
    const out: Record<string, Static<typeof Constraint>> = {};
    for (const [k, v] of Object.entries(all)) if (names.length === 0 || names.includes(k)) out[k] = v;
    return out;
  });

  app.post('/user/media/images/edits', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'Edit an image by crop and markup',
      description:
        'Makes a NEW image from `imageid` (which stays as it is): cut to `crop` (x, y, width, height) and with `markup` drawn onto it ' +
        '(circles, rectangles, arrows and lines in colours: ' + Object.keys(MARKUP_COLORS).join(', ') + ' or #rrggbb). ' +
        'All coordinates are pixels of the upright original. The new image\'s `srcid` is `imageid` and its `markup` the JSON of what was applied. ' +
        'The owner of the image or an Admin. Answers 201 with the new library item. An edit may produce at most `IMAGE_MAX_EDIT_PIXELS` pixels (422 on `crop` otherwise); ' +
        'when the server\'s image work is queued full it answers 429 (`busy`) with `Retry-After`.',
      body: EditBody,
      response: { 201: MediaItem, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const created = await editImage({ ...services, db: reauthorizing(request, db) }, user, request.body);
    const [item] = await loadMediaItems(db, config, [{ type: created.type, objectid: created.id }]);
    return reply.status(201).send(item);
  });

  app.post('/user/media/embeds', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'Add an embed to the user\'s library (extension)',
      description: 'A GuideEmbedObject: an http(s) URL of content shown in a frame (a video host, a 3D viewer...), with an optional title and size. Nothing is fetched. Answers 201 with the new library item.',
      body: EmbedBody,
      response: { 201: MediaItem, ...errorResponses(401, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    let url: URL;
    try {
      url = new URL(request.body.url);
    } catch {
      throw invalidField('url', 'url must be an absolute http(s) URL.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidField('url', 'url must be an absolute http(s) URL.');
    const id = await addEmbed(db, clock.now(), user.userid, { url, title: request.body.title?.trim() ?? '', width: request.body.width ?? null, height: request.body.height ?? null });
    const [item] = await loadMediaItems(db, config, [{ type: 'GuideEmbedObject', objectid: id }]);
    return reply.status(201).send(item);
  });

  app.get('/user/media/:type/:itemId', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'A media item and its readiness',
      description: '`type` is GuideImage, GuideVideoObject, GuideEmbedObject or Document (422 otherwise); `itemId` the imageid, videoid, embedid or documentid. `isReady` says whether it can be shown. The owner or an Admin.',
      params: ItemParams,
      response: { 200: MediaItem, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const type = checkType(request.params.type);
    const item = await findOwnItem(db, user, type, request.params.itemId);
    const [out] = await loadMediaItems(db, config, [item]);
    if (!out) throw notFound('Media item');
    return out;
  });

  app.delete('/user/media/:type/:itemId', {
    config: { auth: 'user' },
    schema: {
      tags: USER_TAG,
      summary: 'Delete a media item',
      description:
        'Answers 204. Refused with 422 (code `in_use`, naming the uses) while content the item\'s owner can change still uses it (their avatar, a team they lead, a guide they may edit that is not deleted): remove it there first. ' +
        'A use someone else made elsewhere never blocks the delete; it shows nothing afterwards. The files are removed at once and their URLs answer 404; the space counts as free for the quota. `type` as for GET. The owner or an Admin.',
      params: ItemParams,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const type = checkType(request.params.type);
    await deleteItem(services, user, type, request.params.itemId);
    return reply.status(204).send(null);
  });
}
