// Video processing in a background job: ffprobe for the metadata, ffmpeg for an MP4
// (H.264/AAC) and a WebM (VP9/Opus) encoding and a poster image. Runs through the jobs
// table, so it survives restarts and is shared by several server processes.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { JobHandler } from '../../jobs/queue.js';
import { blobStoreFor } from './blob-store.js';
import { exifRecord, readImageInfo } from './images.js';
import { newGuid } from './guid.js';

export const VIDEO_JOB = 'media.video.process';
/** Attempts before a video is marked failed (ffmpeg missing, a crash...). */
export const VIDEO_JOB_ATTEMPTS = 5;
/** Encodings fit inside this box (never enlarged). */
export const ENCODING_MAX = { width: 1280, height: 720 };

const available = new Map<string, boolean>();

/** True when the program runs (checked once per path and process). */
export function hasProgram(path: string): boolean {
  let ok = available.get(path);
  if (ok === undefined) {
    const r = spawnSync(path, ['-version'], { stdio: 'ignore', timeout: 10_000 });
    ok = r.status === 0;
    available.set(path, ok);
  }
  return ok;
}

export const hasFfmpeg = (config: Config) => hasProgram(config.ffmpegPath) && hasProgram(config.ffprobePath);

/** Runs a program; answers its standard output; rejects with its standard error's tail. */
function run(cmd: string, args: string[], onTick?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err = (err + d).slice(-4000); });
    const tick = onTick ? setInterval(onTick, 60_000) : null;
    child.on('error', (e) => { if (tick) clearInterval(tick); reject(e); });
    child.on('close', (code) => {
      if (tick) clearInterval(tick);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} exited with ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

interface ProbeStream {
  codec_type?: string; codec_name?: string; profile?: string; level?: number; width?: number; height?: number;
  bit_rate?: string; sample_rate?: string; channels?: number; avg_frame_rate?: string; r_frame_rate?: string; duration?: string;
  tags?: Record<string, string>; side_data_list?: Array<{ rotation?: number }>;
}
interface Probe { streams?: ProbeStream[]; format?: { format_name?: string; duration?: string; bit_rate?: string; size?: string } }

export async function probe(config: Config, path: string): Promise<Probe> {
  return JSON.parse(await run(config.ffprobePath, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path])) as Probe;
}

const kbps = (s: string | undefined) => (s && Number(s) > 0 ? Math.round(Number(s) / 1000) : null);

function rate(s: string | undefined): number | null {
  if (!s) return null;
  const [n, d] = s.split('/').map(Number);
  if (!n || !d) return null;
  return Math.round((n / d) * 1000) / 1000;
}

/** The container's name as the meta record gives it (mpeg4, quicktime, webm). */
function containerName(probeFormat: string | undefined, mime: string): string | null {
  if (mime === 'video/quicktime') return 'quicktime';
  if (mime === 'video/webm') return 'webm';
  if (mime === 'video/mp4') return 'mpeg4';
  return probeFormat ?? null;
}

function rotationOf(s: ProbeStream): number {
  const r = Number(s.tags?.rotate ?? s.side_data_list?.find((x) => x.rotation !== undefined)?.rotation ?? 0);
  return Math.abs(r) % 180 === 90 ? 90 : 0;
}

/** The meta record's fields (all but id, size, md5 and state) from an ffprobe answer. */
export function metaFromProbe(p: Probe, mime: string) {
  const v = p.streams?.find((s) => s.codec_type === 'video');
  const a = p.streams?.find((s) => s.codec_type === 'audio');
  const seconds = Number(p.format?.duration ?? v?.duration ?? 0);
  const turned = v ? rotationOf(v) === 90 : false;
  return {
    audio_bitrate_in_kbps: kbps(a?.bit_rate),
    audio_codec: a?.codec_name ?? null,
    audio_sample_rate: a?.sample_rate ? Number(a.sample_rate) : null,
    channels: a?.channels ?? null,
    duration_in_ms: Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null,
    format: containerName(p.format?.format_name, mime),
    frame_rate: rate(v?.avg_frame_rate) ?? rate(v?.r_frame_rate),
    height: v ? ((turned ? v.width : v.height) ?? null) : null,
    total_bitrate_in_kbps: kbps(p.format?.bit_rate),
    video_bitrate_in_kbps: kbps(v?.bit_rate),
    video_codec: v?.codec_name ?? null,
    width: v ? ((turned ? v.height : v.width) ?? null) : null,
  };
}

const AVC_PROFILES: Record<string, number> = { Baseline: 0x42, 'Constrained Baseline': 0x42, Main: 0x4d, Extended: 0x58, High: 0x64, 'High 10': 0x6e, 'High 4:2:2': 0x7a, 'High 4:4:4 Predictive': 0xf4 };
const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/** The RFC 6381 `codecs` value of an encoding, from ffprobe's view of it. */
export function codecsOf(p: Probe): string {
  const parts: string[] = [];
  for (const s of p.streams ?? []) {
    if (s.codec_name === 'h264') {
      const profile = AVC_PROFILES[s.profile ?? ''] ?? 0x64;
      const constraints = s.profile === 'Constrained Baseline' ? 0xe0 : 0;
      parts.push(`avc1.${hex2(profile)}${hex2(constraints)}${hex2(s.level && s.level > 0 ? s.level : 30)}`);
    } else if (s.codec_name === 'aac') parts.push('mp4a.40.2');
    else if (s.codec_name === 'vp9' || s.codec_name === 'vp8' || s.codec_name === 'opus' || s.codec_name === 'vorbis') parts.push(s.codec_name);
  }
  return parts.join(', ');
}

const SCALE = `scale='min(${ENCODING_MAX.width},iw)':'min(${ENCODING_MAX.height},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2`;

const ENCODINGS = [
  {
    format: 'mp4', mime: 'video/mp4', ext: 'mp4',
    video: ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high', '-pix_fmt', 'yuv420p'],
    audio: ['-c:a', 'aac', '-b:a', '128k'],
    extra: ['-movflags', '+faststart'],
  },
  {
    format: 'webm', mime: 'video/webm', ext: 'webm',
    video: ['-c:v', 'libvpx-vp9', '-b:v', '0', '-crf', '34', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-pix_fmt', 'yuv420p'],
    audio: ['-c:a', 'libopus', '-b:a', '96k'],
    extra: [],
  },
] as const;

export const ENCODING_FORMATS = ENCODINGS.map((e) => e.format);

/** Marks a video failed for good (no video stream, ffmpeg refuses it...). */
async function fail(db: Kysely<Database>, videoid: number, reason: string) {
  await db.updateTable('videos').set({ state: 'failed', state_reason: reason.slice(0, 1000) }).where('videoid', '=', videoid).execute();
}

export function videoJobHandler(config: Config): JobHandler {
  return async (payload: { videoid: number }, ctx) => {
    const { db } = ctx;
    const store = blobStoreFor(config);
    const video = await db.selectFrom('videos').selectAll().where('videoid', '=', payload.videoid).executeTakeFirst();
    if (!video || !video.blob_key || video.state === 'finished') return;
    const last = ctx.attempt >= VIDEO_JOB_ATTEMPTS;
    if (!hasFfmpeg(config)) {
      const reason = `ffmpeg is not installed (looked for ${config.ffmpegPath} and ${config.ffprobePath})`;
      if (last) await fail(db, video.videoid, reason);
      throw new Error(reason);
    }
    const local = await store.localFile(video.blob_key);
    if (!local) {
      await fail(db, video.videoid, 'the uploaded file is missing');
      return;
    }
    // Keep the job's lease while ffmpeg works, so no other worker takes it over.
    const heartbeat = () => void db.updateTable('jobs').set((eb) => ({ locked_until: eb('locked_until', '+', 60) })).where('jobid', '=', ctx.jobid).execute().catch(() => {});
    const dir = await mkdtemp(join(tmpdir(), 'cp-video-'));
    const written: string[] = [];
    try {
      await db.updateTable('videos').set({ state: 'processing' }).where('videoid', '=', video.videoid).execute();
      let info: Probe;
      try {
        info = await probe(config, local.path);
      } catch (err) {
        await fail(db, video.videoid, `not a readable video: ${(err as Error).message}`);
        return;
      }
      const meta = metaFromProbe(info, video.mime);
      if (!meta.video_codec || !meta.width || !meta.height) {
        await fail(db, video.videoid, 'the file has no video stream');
        return;
      }
      const hasAudio = !!meta.audio_codec;
      const encodings: Array<{ format: string; codecs: string; mime: string; width: number; height: number; size: number; blob_key: string }> = [];
      for (const e of ENCODINGS) {
        const out = join(dir, `out.${e.ext}`);
        const args = ['-hide_banner', '-nostdin', '-y', '-i', local.path, '-map', '0:v:0', ...(hasAudio ? ['-map', '0:a:0', ...e.audio] : ['-an']), '-vf', SCALE, ...e.video, ...e.extra, '-threads', '2', out];
        await run(config.ffmpegPath, args, heartbeat);
        const p = await probe(config, out);
        const vs = p.streams?.find((s) => s.codec_type === 'video');
        const key = `videos/${video.guid}/${e.format}`;
        const size = await store.put(key, createReadStream(out));
        written.push(key);
        encodings.push({ format: e.format, codecs: codecsOf(p), mime: e.mime, width: vs?.width ?? 0, height: vs?.height ?? 0, size, blob_key: key });
      }
      // The poster: a frame a second in (or half-way through a shorter video), JPEG.
      const at = Math.max(0, Math.min(1, (meta.duration_in_ms ?? 0) / 2000));
      const posterPath = join(dir, 'poster.jpg');
      await run(config.ffmpegPath, ['-hide_banner', '-nostdin', '-y', '-ss', String(at), '-i', local.path, '-frames:v', '1', '-q:v', '3', posterPath], heartbeat);
      const pinfo = await readImageInfo(posterPath);
      const posterGuid = newGuid();
      const posterKey = `originals/${posterGuid}`;
      const posterSize = await store.put(posterKey, createReadStream(posterPath));
      written.push(posterKey);
      const posterName = video.filename.replace(/\.[^.]*$/, '') + '.jpg';

      const done = await db.transaction().execute(async (trx) => {
        const current = await trx.selectFrom('videos').select(['videoid', 'poster_imageid']).where('videoid', '=', video.videoid).executeTakeFirst();
        if (!current) return false; // deleted meanwhile
        const poster = await trx.insertInto('images').values({
          guid: posterGuid, userid: video.userid, width: pinfo.width, height: pinfo.height, mime: 'image/jpeg', created_date: video.created_date,
          filename: posterName, size: posterSize, orientation: 1, blob_key: posterKey, srcid: null, markup: null,
          exif: JSON.stringify(exifRecord({ filename: posterName, date: video.created_date, size: posterSize, mime: 'image/jpeg', width: pinfo.width, height: pinfo.height, channels: pinfo.channels })),
        }).returning('imageid').executeTakeFirstOrThrow();
        await trx.deleteFrom('video_encodings').where('videoid', '=', video.videoid).execute();
        await trx.insertInto('video_encodings').values(encodings.map((e) => ({ videoid: video.videoid, ...e }))).execute();
        await trx.updateTable('videos').set({
          state: 'finished', state_reason: null, meta: JSON.stringify(meta), width: meta.width ?? 0, height: meta.height ?? 0,
          duration_ms: meta.duration_in_ms ?? 0, poster_imageid: poster.imageid,
        }).where('videoid', '=', video.videoid).execute();
        if (current.poster_imageid) await trx.deleteFrom('images').where('imageid', '=', current.poster_imageid).execute();
        return true;
      });
      if (!done) for (const k of written) await store.delete(k);
      written.length = 0;
    } catch (err) {
      for (const k of written) await store.delete(k).catch(() => {});
      if (last) await fail(db, video.videoid, (err as Error).message);
      else await db.updateTable('videos').set({ state: 'queued', state_reason: (err as Error).message.slice(0, 1000) }).where('videoid', '=', video.videoid).execute();
      throw err;
    } finally {
      await local.release();
      await rm(dir, { recursive: true, force: true });
    }
  };
}
