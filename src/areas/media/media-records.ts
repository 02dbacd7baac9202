// The image detail record and the video detail record (and the library's document and
// embed records), built in batches: one query per table for a whole page of records.
// Other areas (guide steps, wikis, comments) call loadImageDetails / loadVideoDetails.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { imageObject } from './image-object.js';
import { documentFileUrl, videoFileUrl } from './media.urls.js';
import type { DocumentRecord, EmbedRecord, ImageDetail, VideoDetail } from './media.schemas.js';

export { videoFileUrl, documentFileUrl };

/** jpeg, png, gif or webp, from a mime type. */
export const imageEncoding = (mime: string) => mime.replace(/^image\//, '');

type ImageRow = Pick<Database['images'], 'guid' | 'width' | 'height' | 'mime'> & { imageid: number; srcid: number | null; exif: string | null; markup: string | null };

export function imageDetailFromRow(config: Config, r: ImageRow, opts: { forComments?: boolean } = {}): ImageDetail {
  let exif: unknown = [];
  if (r.exif) {
    try {
      exif = JSON.parse(r.exif);
    } catch {
      exif = [];
    }
  }
  const out: ImageDetail = {
    image: imageObject(config, r),
    srcid: r.srcid ?? null,
    width: r.width,
    height: r.height,
    ratio: r.width > 0 && r.width * 3 === r.height * 4 ? 'FOUR_THREE' : 'VARIABLE',
    markup: r.markup ?? null,
    exif,
  };
  if (opts.forComments) {
    out.markupState = null;
    out.encoding = imageEncoding(r.mime);
  }
  return out;
}

const IMAGE_COLUMNS = ['imageid', 'guid', 'width', 'height', 'mime', 'srcid', 'exif', 'markup'] as const;

/**
 * Image detail records by imageid (unknown ids are absent from the map).
 * `forComments` adds `markupState` and `encoding`, as comment media carry them.
 */
export async function loadImageDetails(db: Kysely<Database>, config: Config, ids: Array<number | null | undefined>, opts: { forComments?: boolean } = {}): Promise<Map<number, ImageDetail>> {
  const out = new Map<number, ImageDetail>();
  const wanted = [...new Set(ids.filter((x): x is number => typeof x === 'number'))];
  if (wanted.length === 0) return out;
  const rows = await db.selectFrom('images').select(IMAGE_COLUMNS).where('imageid', 'in', wanted).execute();
  for (const r of rows) out.set(r.imageid, imageDetailFromRow(config, r, opts));
  return out;
}

interface StoredMeta {
  audio_bitrate_in_kbps: number | null;
  audio_codec: string | null;
  audio_sample_rate: number | null;
  channels: number | null;
  duration_in_ms: number | null;
  format: string | null;
  frame_rate: number | null;
  height: number | null;
  total_bitrate_in_kbps: number | null;
  video_bitrate_in_kbps: number | null;
  video_codec: string | null;
  width: number | null;
  /** While processing only: the percent encoded (videos.ts `encodeProgress`). */
  progress: number;
}

function parseMeta(s: string | null): Partial<StoredMeta> {
  if (!s) return {};
  try {
    return JSON.parse(s) as Partial<StoredMeta>;
  } catch {
    return {};
  }
}

/** Video detail records by videoid (unknown ids are absent from the map). */
export async function loadVideoDetails(db: Kysely<Database>, config: Config, ids: Array<number | null | undefined>): Promise<Map<number, VideoDetail>> {
  const out = new Map<number, VideoDetail>();
  const wanted = [...new Set(ids.filter((x): x is number => typeof x === 'number'))];
  if (wanted.length === 0) return out;
  const rows = await db.selectFrom('videos').selectAll().where('videoid', 'in', wanted).execute();
  if (rows.length === 0) return out;
  const videoids = rows.map((r) => r.videoid);
  const [posters, encodings] = await Promise.all([
    loadImageDetails(db, config, rows.map((r) => r.poster_imageid)),
    db.selectFrom('video_encodings').selectAll().where('videoid', 'in', videoids).orderBy('videoid').orderBy('encodingid').execute(),
  ]);
  const byVideo = new Map<number, typeof encodings>();
  for (const e of encodings) {
    const list = byVideo.get(e.videoid) ?? [];
    list.push(e);
    byVideo.set(e.videoid, list);
  }
  for (const r of rows) {
    const m = parseMeta(r.meta);
    out.set(r.videoid, {
      videoid: r.videoid,
      filename: r.filename,
      duration: r.duration_ms,
      width: r.width,
      height: r.height,
      srcid: r.srcid ?? null,
      image: (r.poster_imageid != null ? posters.get(r.poster_imageid) : undefined) ?? null,
      meta: {
        audio_bitrate_in_kbps: m.audio_bitrate_in_kbps ?? null,
        audio_codec: m.audio_codec ?? null,
        audio_sample_rate: m.audio_sample_rate ?? null,
        channels: m.channels ?? null,
        duration_in_ms: m.duration_in_ms ?? null,
        file_size_in_bytes: r.size || null,
        format: m.format ?? null,
        frame_rate: m.frame_rate ?? null,
        height: m.height ?? null,
        id: r.videoid,
        md5_checksum: r.md5 ?? null,
        state: r.state,
        progress: r.state === 'finished' ? 100 : r.state === 'failed' ? null : r.state === 'processing' ? Math.max(0, Math.min(100, Number(m.progress) || 0)) : 0,
        total_bitrate_in_kbps: m.total_bitrate_in_kbps ?? null,
        video_bitrate_in_kbps: m.video_bitrate_in_kbps ?? null,
        video_codec: m.video_codec ?? null,
        width: m.width ?? null,
      },
      encodings: (byVideo.get(r.videoid) ?? []).map((e) => ({
        codecs: e.codecs,
        format: e.format,
        height: e.height,
        width: e.width,
        mime: e.mime,
        url: videoFileUrl(config, r.guid, e.format),
      })),
    });
  }
  return out;
}

export async function loadDocuments(db: Kysely<Database>, config: Config, ids: number[]): Promise<Map<number, DocumentRecord>> {
  const out = new Map<number, DocumentRecord>();
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('documents').selectAll().where('documentid', 'in', [...new Set(ids)]).execute();
  for (const r of rows) {
    out.set(r.documentid, { documentid: r.documentid, guid: r.guid, filename: r.filename, mime: r.mime, size: r.size, url: documentFileUrl(config, r.guid), created_date: r.created_date });
  }
  return out;
}

export async function loadEmbeds(db: Kysely<Database>, ids: number[]): Promise<Map<number, EmbedRecord>> {
  const out = new Map<number, EmbedRecord>();
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('embeds').selectAll().where('embedid', 'in', [...new Set(ids)]).execute();
  for (const r of rows) out.set(r.embedid, { embedid: r.embedid, guid: r.guid, url: r.url, title: r.title, provider: r.provider, width: r.width, height: r.height, created_date: r.created_date });
  return out;
}
