// The specification's image detail record and video detail record.
import { Type, type Static } from '@sinclair/typebox';
import { ImageObject, MAX_ID, Nullable, OffsetLimit, StringEnum } from '../../http/schemas.js';

export const ImageDetail = Type.Object({
  image: ImageObject,
  srcid: Nullable(Type.Integer({ description: 'The image this one was edited from.' })),
  width: Type.Integer(),
  height: Type.Integer(),
  ratio: Type.String({ description: 'FOUR_THREE when 4:3, else VARIABLE.' }),
  markup: Nullable(Type.String()),
  markupState: Type.Optional(Nullable(Type.String())),
  exif: Type.Unknown({ description: 'EXIF object (file name, date, size, type, mime type, sections, computed) or an empty array.' }),
  encoding: Type.Optional(Type.String({ description: 'png, jpeg... (in comment media).' })),
});
export type ImageDetail = Static<typeof ImageDetail>;

export const Encoding = Type.Object({
  codecs: Type.String(),
  format: Type.String({ description: 'mp4, webm or ogg.' }),
  height: Type.Integer(),
  width: Type.Integer(),
  mime: Type.String(),
  url: Type.String(),
  max_video_bitrate: Type.Optional(Type.Integer()),
  column: Type.Optional(Type.String()),
  label: Type.Optional(Type.String()),
  ffmpeg_args: Type.Optional(Type.String()),
  always_generate: Type.Optional(Type.Boolean()),
});

export const VideoMeta = Type.Object({
  audio_bitrate_in_kbps: Nullable(Type.Number()),
  audio_codec: Nullable(Type.String()),
  audio_sample_rate: Nullable(Type.Number()),
  channels: Nullable(Type.Number()),
  duration_in_ms: Nullable(Type.Number()),
  file_size_in_bytes: Nullable(Type.Number()),
  format: Nullable(Type.String()),
  frame_rate: Nullable(Type.Number()),
  height: Nullable(Type.Number()),
  id: Nullable(Type.Integer()),
  md5_checksum: Nullable(Type.String()),
  state: Type.String({ description: 'queued, processing, finished or failed.' }),
  progress: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'Extension: percent of the encoding done: 0 while queued, growing while processing (from ffmpeg\'s progress), 100 when finished, null when failed.' })),
  total_bitrate_in_kbps: Nullable(Type.Number()),
  video_bitrate_in_kbps: Nullable(Type.Number()),
  video_codec: Nullable(Type.String()),
  width: Nullable(Type.Number()),
});

export const VideoDetail = Type.Object({
  videoid: Type.Integer(),
  objectid: Type.Optional(Type.Integer()),
  filename: Type.String(),
  duration: Type.Integer({ description: 'Milliseconds.' }),
  width: Type.Integer(),
  height: Type.Integer(),
  srcid: Nullable(Type.Integer()),
  image: Nullable(ImageDetail),
  meta: Nullable(VideoMeta),
  encodings: Type.Array(Encoding),
});
export type VideoDetail = Static<typeof VideoDetail>;

// ---------------------------------------------------------------- the user's library
// The specification names the user media endpoints but not their records; these are
// the shapes this server answers (documented in the OpenAPI descriptions).

export const MEDIA_TYPES = ['GuideImage', 'GuideVideoObject', 'GuideEmbedObject', 'Document'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const MediaTypeSchema = StringEnum(MEDIA_TYPES, { description: 'GuideImage, GuideVideoObject, GuideEmbedObject or Document.' });

export const DocumentRecord = Type.Object({
  documentid: Type.Integer(),
  guid: Type.String(),
  filename: Type.String(),
  mime: Type.String(),
  size: Type.Integer({ description: 'Bytes.' }),
  url: Type.String({ description: 'Where the file is served.' }),
  created_date: Type.Integer(),
});
export type DocumentRecord = Static<typeof DocumentRecord>;

export const EmbedRecord = Type.Object({
  embedid: Type.Integer(),
  guid: Type.String(),
  url: Type.String(),
  title: Type.String(),
  provider: Type.String({ description: 'The host name of the URL.' }),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
  created_date: Type.Integer(),
});
export type EmbedRecord = Static<typeof EmbedRecord>;

export const MediaItem = Type.Object({
  id: Type.Integer({ description: 'The imageid, videoid, embedid or documentid: the `itemId` of /user/media/{type}/{itemId}.' }),
  type: MediaTypeSchema,
  kind: StringEnum(['image', 'video', 'embed', 'document'] as const),
  guid: Type.String(),
  filename: Type.String(),
  mime: Type.String(),
  size: Type.Integer({ description: 'Bytes of the uploaded file.' }),
  created_date: Type.Integer(),
  isReady: Type.Boolean({ description: 'True when the item can be shown: always for images, documents and embeds; for videos once encoded.' }),
  state: Type.String({ description: 'ready; for videos queued, processing, finished or failed.' }),
  image: Type.Optional(ImageDetail),
  video: Type.Optional(VideoDetail),
  document: Type.Optional(DocumentRecord),
  embed: Type.Optional(EmbedRecord),
}, { description: 'An item of the user\'s media library; the detail record of its kind in `image`, `video`, `document` or `embed`.' });
export type MediaItem = Static<typeof MediaItem>;

export const MediaListQuery = Type.Object({
  type: Type.Optional(MediaTypeSchema),
  order: Type.Optional(StringEnum(['ASC', 'DESC'] as const, { description: 'By upload order; default DESC (newest first).' })),
  ...OffsetLimit,
});

export const KindListQuery = Type.Object({
  order: Type.Optional(StringEnum(['ASC', 'DESC'] as const, { description: 'By upload order; default DESC (newest first).' })),
  ...OffsetLimit,
});

export { MAX_ID };
/** Markup coordinates and sizes stay within this many pixels. */
const COORD = { minimum: -100_000, maximum: 100_000 };
const SIZE = { exclusiveMinimum: 0, maximum: 100_000 };

export const ItemParams = Type.Object({
  type: MediaTypeSchema,
  itemId: Type.Integer({ minimum: 1, maximum: MAX_ID }),
});

export const UploadQuery = Type.Object({
  file: Type.String({ minLength: 1, maxLength: 255, description: 'The file\'s name (kept for display and the EXIF record; the kind is decided from the bytes).' }),
});

const PointSchema = Type.Object({ x: Type.Number(COORD), y: Type.Number(COORD) }, { additionalProperties: false });
const ColorSchema = Type.String({ maxLength: 20, description: 'red, orange, yellow, green, blue, violet, black, white, or #rgb / #rrggbb. Default red.' });
const StrokeSchema = Type.Integer({ minimum: 1, maximum: 200, description: 'Line width in pixels of the original; default about 0.8% of its longer side.' });

export const EditBody = Type.Object({
  imageid: Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'The image to edit; it stays as it is.' }),
  crop: Type.Optional(Type.Object({
    x: Type.Integer({ minimum: 0, maximum: 100_000 }),
    y: Type.Integer({ minimum: 0, maximum: 100_000 }),
    width: Type.Integer({ minimum: 1, maximum: 100_000 }),
    height: Type.Integer({ minimum: 1, maximum: 100_000 }),
  }, { additionalProperties: false, description: 'The rectangle to keep, in pixels of the (upright) original.' })),
  markup: Type.Optional(Type.Object({
    circles: Type.Optional(Type.Array(Type.Object({ x: Type.Number(COORD), y: Type.Number(COORD), radius: Type.Number(SIZE), color: Type.Optional(ColorSchema), stroke: Type.Optional(StrokeSchema) }, { additionalProperties: false }), { maxItems: 100 })),
    rectangles: Type.Optional(Type.Array(Type.Object({ x: Type.Number(COORD), y: Type.Number(COORD), width: Type.Number(SIZE), height: Type.Number(SIZE), color: Type.Optional(ColorSchema), stroke: Type.Optional(StrokeSchema) }, { additionalProperties: false }), { maxItems: 100 })),
    arrows: Type.Optional(Type.Array(Type.Object({ from: PointSchema, to: PointSchema, color: Type.Optional(ColorSchema), stroke: Type.Optional(StrokeSchema) }, { additionalProperties: false }), { maxItems: 100 })),
    lines: Type.Optional(Type.Array(Type.Object({ from: PointSchema, to: PointSchema, color: Type.Optional(ColorSchema), stroke: Type.Optional(StrokeSchema) }, { additionalProperties: false }), { maxItems: 100 })),
  }, { additionalProperties: false, description: 'Shapes drawn onto the image, in pixels of the (upright) original; circles by centre and radius, rectangles by top-left corner and size (outlines), arrows and lines from one point to another.' })),
}, { additionalProperties: false });

export const EmbedBody = Type.Object({
  url: Type.String({ minLength: 8, maxLength: 2000, description: 'An http(s) URL.' }),
  title: Type.Optional(Type.String({ maxLength: 255 })),
  width: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
  height: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
}, { additionalProperties: false });

export const VariantInfo = Type.Object({
  name: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  fit: Type.String({ description: 'cover: exactly this size, cut to the centre; inside: fits inside, never enlarged; original: as uploaded.' }),
});

export const Constraint = Type.Object({
  name: MediaTypeSchema,
  kind: Type.String(),
  mimeTypes: Type.Array(Type.String()),
  extensions: Type.Array(Type.String()),
  maxBytes: Nullable(Type.Integer({ description: 'Largest upload in bytes; null where nothing is uploaded (embeds).' })),
  minWidth: Type.Optional(Type.Integer()),
  minHeight: Type.Optional(Type.Integer()),
  maxWidth: Type.Optional(Type.Integer()),
  maxHeight: Type.Optional(Type.Integer()),
  variants: Type.Optional(Type.Array(VariantInfo)),
  encodings: Type.Optional(Type.Array(Type.String())),
  maxSeconds: Type.Optional(Type.Integer({ description: 'Videos: the longest an upload may last (VIDEO_MAX_SECONDS).' })),
  maxDimension: Type.Optional(Type.Integer({ description: 'Videos: the largest width or height of an upload, in pixels (VIDEO_MAX_DIMENSION); maxWidth/maxHeight are the encodings\' box.' })),
  maxStreams: Type.Optional(Type.Integer({ description: 'Videos: the most streams an upload may hold (VIDEO_MAX_STREAMS).' })),
  account: Type.Optional(Type.Object({
    quotaBytes: Nullable(Type.Integer({ description: 'The caller\'s storage quota in bytes (MEDIA_QUOTA_BYTES, MEDIA_ADMIN_QUOTA_BYTES); null: no limit.' })),
    usedBytes: Type.Integer({ description: 'Bytes the caller\'s media take (originals, variants, encodings).' }),
    remainingBytes: Nullable(Type.Integer({ description: 'What the quota leaves; null: no limit.' })),
    uploadsPerHour: Nullable(Type.Integer({ description: 'Uploads and image edits the caller may make per hour (MEDIA_UPLOADS_PER_HOUR); null: no limit.' })),
    uploadsLastHour: Type.Integer({ description: 'Uploads counted against that rate in the last hour.' }),
  }, { description: 'The caller\'s storage and upload rate, shared by every kind that is uploaded.' })),
});

export const ConstraintsQuery = Type.Object({
  name: Type.Optional(Type.String({ description: 'Comma-separated media item names (GuideImage, GuideVideoObject, GuideEmbedObject, Document); default all.' })),
});
