// Video processing in a background job: ffprobe for the metadata, ffmpeg for an MP4
// (H.264/AAC) and a WebM (VP9/Opus) encoding and a poster image. Runs through the jobs
// table (the `media` lane), so it survives restarts and is shared by several processes.
//
// ffmpeg is never left to guess what a file is: every run names the demuxer the sniffer
// decided (`-f mov`, `-f matroska`), allows only the local file protocol and reads an
// explicit `file:` path, so a "video" that is really a DASH or HLS playlist cannot make
// it read other files or loop forever. Every run has a time limit and an output cap
// (process-runner.ts); duration, dimensions and streams are checked before any encode.
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { JobContext, JobType } from '../../jobs/queue.js';
import { invalidField } from '../../http/errors.js';
import { ProgramError, runProgram } from '../../process-runner.js';
import { blobStoreFor, type BlobStore } from '../../storage/blob-store.js';
import { exifRecord, readImageInfo } from './images.js';
import { newGuid } from './guid.js';
import type { Sniffed } from './sniff.js';
import { encodingKey, originalKey } from './media.keys.js';

export const VIDEO_JOB = 'media.video.process';
/** Attempts before a video is marked failed (ffmpeg missing, a crash...). */
export const VIDEO_JOB_ATTEMPTS = 5;
/** Encodings fit inside this box (never enlarged). */
export const ENCODING_MAX = { width: 1280, height: 720 };
/** How often, in wall-clock milliseconds, a running video job renews its lease and checks that its video still exists. */
const HEARTBEAT_MS = 5_000;

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

/** The ffmpeg demuxer of each stored video type: the only one ever used to read it. */
const DEMUXER: Record<string, string> = { 'video/mp4': 'mov', 'video/quicktime': 'mov', 'video/webm': 'matroska' };

/** ffmpeg/ffprobe input options: the demuxer pinned, the local file protocol only, an explicit file: path. */
function inputArgs(mime: string, path: string): string[] {
  const demuxer = DEMUXER[mime];
  if (!demuxer) throw new Error(`no demuxer for ${mime}`);
  return ['-f', demuxer, '-protocol_whitelist', 'file', '-i', `file:${path}`];
}

interface ProbeStream {
  codec_type?: string; codec_name?: string; profile?: string; level?: number; width?: number; height?: number;
  bit_rate?: string; sample_rate?: string; channels?: number; avg_frame_rate?: string; r_frame_rate?: string; duration?: string;
  side_data_list?: Array<{ rotation?: number }>;
}
interface Probe { streams?: ProbeStream[]; format?: { format_name?: string; duration?: string; bit_rate?: string; nb_streams?: number } }

/** Only what the records need: no tags (a file's metadata can be any size). */
const PROBE_ENTRIES = 'format=format_name,duration,bit_rate,nb_streams:stream=codec_type,codec_name,profile,level,width,height,bit_rate,sample_rate,channels,avg_frame_rate,r_frame_rate,duration:stream_side_data=rotation';

/** ffprobe's view of a file read with the demuxer of `mime`; rejects when it cannot read it as one. */
export async function probe(config: Config, path: string, mime: string, signal?: AbortSignal): Promise<Probe> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_entries', PROBE_ENTRIES, ...inputArgs(mime, path)];
  const out = await runProgram(config.ffprobePath, args, { timeoutMs: config.videoProbeTimeoutMs, maxOutputBytes: config.videoProbeMaxOutputBytes, signal });
  const p = JSON.parse(out.toString('utf8')) as Probe;
  // With the demuxer pinned this always holds; it says so should that ever change.
  if (!p.format?.format_name?.split(',').includes(DEMUXER[mime]!)) throw new ProgramError('exit', `ffprobe read the file as ${p.format?.format_name ?? 'nothing'}, not ${DEMUXER[mime]}`);
  return p;
}

/** Why a probed file is not a video the service encodes (no video stream, over a limit), or null. */
export function refusalOf(config: Config, p: Probe): string | null {
  const v = p.streams?.find((s) => s.codec_type === 'video');
  if (!v || !v.width || !v.height) return 'the file has no video stream';
  const streams = p.format?.nb_streams ?? p.streams?.length ?? 0;
  if (streams > config.videoMaxStreams) return `the file has ${streams} streams; at most ${config.videoMaxStreams} are accepted`;
  const maxSide = Math.max(...(p.streams ?? []).map((s) => Math.max(s.width ?? 0, s.height ?? 0)));
  if (maxSide > config.videoMaxDimension) return `the video is ${v.width}x${v.height}; at most ${config.videoMaxDimension} pixels a side are accepted`;
  const seconds = Math.max(0, ...[p.format?.duration, ...(p.streams ?? []).map((s) => s.duration)].map((d) => Number(d)).filter((d) => Number.isFinite(d)));
  if (seconds > config.videoMaxSeconds) return `the video lasts ${Math.round(seconds)} seconds; at most ${config.videoMaxSeconds} are accepted`;
  return null;
}

/**
 * The upload check of a video: it is kept only once ffprobe, reading it with the demuxer
 * the sniffer chose, finds a video stream within the limits. Without ffprobe, only full
 * container signatures (an ISO `ftyp` box, a WebM header) pass. Throws a 422.
 */
export async function checkVideoUpload(config: Config, store: BlobStore, key: string, sniffed: Sniffed): Promise<void> {
  const what = `The file starts like a ${sniffed.format === 'quicktime' ? 'QuickTime' : sniffed.format.toUpperCase()} video`;
  if (!hasProgram(config.ffprobePath)) {
    if (sniffed.provisional) throw invalidField('file', `${what} but cannot be verified on this server; send an MP4 or WebM file.`, 'unsupported_type');
    return;
  }
  const local = await store.localFile(key);
  if (!local) throw new Error('stored video vanished');
  let info: Probe;
  try {
    info = await probe(config, local.path, sniffed.mime);
  } catch (err) {
    if (!(err instanceof ProgramError) && !(err instanceof SyntaxError)) throw err;
    throw invalidField('file', `${what} but cannot be read as one.`, 'invalid_value');
  } finally {
    await local.release();
  }
  const refusal = refusalOf(config, info);
  if (refusal) throw invalidField('file', `${what}, but ${refusal}.`, refusal.startsWith('the file has no') ? 'invalid_value' : 'out_of_range');
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
  const r = Number(s.side_data_list?.find((x) => x.rotation !== undefined)?.rotation ?? 0);
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

/** AVC profile ids by ffprobe's profile name (a Map: the name is whatever the file says). */
const AVC_PROFILES: ReadonlyMap<string, number> = new Map([
  ['Baseline', 0x42], ['Constrained Baseline', 0x42], ['Main', 0x4d], ['Extended', 0x58], ['High', 0x64], ['High 10', 0x6e], ['High 4:2:2', 0x7a], ['High 4:4:4 Predictive', 0xf4],
]);
const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/** The RFC 6381 `codecs` value of an encoding, from ffprobe's view of it. */
export function codecsOf(p: Probe): string {
  const parts: string[] = [];
  for (const s of p.streams ?? []) {
    if (s.codec_name === 'h264') {
      const profile = AVC_PROFILES.get(s.profile ?? '') ?? 0x64;
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

/**
 * A video's encoding progress, from ffmpeg's `-progress` stream (`out_time_us=` lines) over
 * the encodings in turn, written to its row as `meta` {"progress": 0..100} while it is
 * processing (the finished meta replaces it): at most once a second of the wall clock and
 * only when the percent grew. Lines are read as they come, a bounded tail kept between
 * chunks.
 */
function encodeProgress(db: Kysely<Database>, videoid: number, durationMs: number) {
  let shown = -1;
  let shownAt = 0;
  const report = (percent: number) => {
    const now = Date.now();
    if (percent <= shown || now - shownAt < 1000) return;
    shown = percent;
    shownAt = now;
    void db.updateTable('videos').set({ meta: JSON.stringify({ progress: percent }) })
      .where('videoid', '=', videoid).where('state', '=', 'processing').execute().catch(() => {});
  };
  return {
    reader(index: number, count: number) {
      let tail = '';
      return (chunk: Buffer) => {
        const lines = (tail + chunk.toString('latin1')).split('\n');
        tail = lines.pop()!.slice(-200);
        for (const line of lines) {
          if (!line.startsWith('out_time_us=') || durationMs <= 0) continue;
          const doneMs = Number(line.slice('out_time_us='.length)) / 1000;
          if (!Number.isFinite(doneMs) || doneMs < 0) continue;
          const fraction = Math.min(1, doneMs / durationMs);
          report(Math.min(99, Math.floor(((index + fraction) / count) * 100)));
        }
      };
    },
  };
}

/** Marks a video failed for good (no video stream, ffmpeg refuses it...). */
async function fail(db: Kysely<Database>, videoid: number, reason: string) {
  await db.updateTable('videos').set({ state: 'failed', state_reason: reason.slice(0, 1000) }).where('videoid', '=', videoid).execute();
}

/** Where video jobs keep their temporary files: under DATA_DIR, never the system's /tmp. */
const tempRoot = (config: Config) => join(config.dataDir, 'tmp', 'video');

/**
 * A job's folder under tempRoot names its owner: `job-<host>-<pid>-<random>`, so that
 * processes and nodes sharing a DATA_DIR each sweep only their own leftovers.
 */
const jobPrefix = () => `job-${hostname().replace(/[^A-Za-z0-9.]/g, '_')}-${process.pid}-`;
const OWNED = /^job-([A-Za-z0-9._]+)-(\d+)-[^-]+$/;
/** Another host's folder is swept only when no job could still use it (a day past the longest encode). */
const FOREIGN_AGE_MS = (config: Config) => 24 * 3600_000 + config.videoEncodeTimeoutMs;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what video jobs of an earlier run left behind (a crash, a kill); called at start.
 * Only this node's leftovers: a folder of this host whose process is gone (or is this one),
 * an unowned folder of an older version, or another host's folder too old for any job.
 */
export function sweepVideoTemp(config: Config) {
  const root = tempRoot(config);
  mkdirSync(root, { recursive: true });
  const host = hostname().replace(/[^A-Za-z0-9.]/g, '_');
  for (const name of readdirSync(root)) {
    const owner = OWNED.exec(name);
    const path = join(root, name);
    let sweep: boolean;
    if (!owner) sweep = true;
    else if (owner[1] === host) sweep = Number(owner[2]) === process.pid || !alive(Number(owner[2]));
    else sweep = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > FOREIGN_AGE_MS(config);
    if (sweep) rmSync(path, { recursive: true, force: true });
  }
}

/** The video jobs running in this process, by videoid: deleting the video stops its job. */
const inFlight = new Map<number, AbortController>();

/** Stops the job working on a video (its programs are killed), if one runs in this process. */
export function cancelVideoWork(videoid: number) {
  inFlight.get(videoid)?.abort();
}

/** A failure that trying again would only repeat: the file is over a limit or hangs ffmpeg. */
const isPermanent = (err: unknown) => err instanceof ProgramError && (err.reason === 'timeout' || err.reason === 'output');

export function videoJob(config: Config): JobType {
  sweepVideoTemp(config);
  return {
    lane: 'media',
    run: (payload: { videoid: number }, ctx) => processVideo(config, payload.videoid, ctx),
    giveUp: async (payload: { videoid: number }, { db, reason }) => {
      await db.updateTable('videos').set({ state: 'failed', state_reason: reason }).where('videoid', '=', payload.videoid).where('state', '!=', 'finished').execute();
    },
  };
}

async function processVideo(config: Config, videoid: number, ctx: JobContext) {
  const { db } = ctx;
  const store = blobStoreFor(config);
  const video = await db.selectFrom('videos').selectAll().where('videoid', '=', videoid).executeTakeFirst();
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
  // Stopped by the item's deletion (here or, seen by the heartbeat, in another process) or by shutdown.
  const cancel = new AbortController();
  const onShutdown = () => cancel.abort();
  ctx.signal.addEventListener('abort', onShutdown, { once: true });
  inFlight.set(video.videoid, cancel);
  const heartbeat = setInterval(() => {
    void (async () => {
      const still = await db.selectFrom('videos').select('videoid').where('videoid', '=', video.videoid).executeTakeFirst();
      if (!still) cancel.abort();
      else await ctx.extendLease();
    })().catch(() => {});
  }, HEARTBEAT_MS);
  const limits = { timeoutMs: config.videoEncodeTimeoutMs, maxOutputBytes: 64 * 1024, signal: cancel.signal };
  const input = inputArgs(video.mime, local.path);
  const dir = await mkdtemp(join(tempRoot(config), jobPrefix()));
  const written: string[] = [];
  try {
    await db.updateTable('videos').set({ state: 'processing' }).where('videoid', '=', video.videoid).execute();
    let info: Probe;
    try {
      info = await probe(config, local.path, video.mime, cancel.signal);
    } catch (err) {
      if (cancel.signal.aborted) throw err;
      await fail(db, video.videoid, `not a readable video: ${(err as Error).message}`);
      return;
    }
    const refusal = refusalOf(config, info);
    if (refusal) {
      await fail(db, video.videoid, refusal);
      return;
    }
    const meta = metaFromProbe(info, video.mime);
    const hasAudio = !!meta.audio_codec;
    // Bounded whatever the file says: no longer than the limit, no bigger than the cap.
    const bounds = ['-t', String(config.videoMaxSeconds), '-fs', String(config.videoEncodeMaxBytes)];
    const encodings: Array<{ format: string; codecs: string; mime: string; width: number; height: number; size: number; blob_key: string }> = [];
    const progress = encodeProgress(db, video.videoid, Math.min(meta.duration_in_ms ?? 0, config.videoMaxSeconds * 1000));
    for (const [index, e] of ENCODINGS.entries()) {
      const out = join(dir, `out.${e.ext}`);
      const args = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', '-y', ...input, '-map', '0:v:0', ...(hasAudio ? ['-map', '0:a:0', ...e.audio] : ['-an']), '-vf', SCALE, ...e.video, ...e.extra, '-threads', '2', ...bounds, out];
      await runProgram(config.ffmpegPath, args, { ...limits, onStdout: progress.reader(index, ENCODINGS.length) });
      const size = (await stat(out)).size;
      if (size >= config.videoEncodeMaxBytes) throw new ProgramError('output', `the ${e.format} encoding reached the limit of ${config.videoEncodeMaxBytes} bytes`);
      const p = await probe(config, out, e.mime, cancel.signal);
      const vs = p.streams?.find((s) => s.codec_type === 'video');
      const key = encodingKey(video.guid, e.format);
      await store.put(key, createReadStream(out));
      written.push(key);
      encodings.push({ format: e.format, codecs: codecsOf(p), mime: e.mime, width: vs?.width ?? 0, height: vs?.height ?? 0, size, blob_key: key });
      await rm(out, { force: true });
    }
    // The poster: a frame a second in (or half-way through a shorter video), JPEG.
    const at = Math.max(0, Math.min(1, (meta.duration_in_ms ?? 0) / 2000));
    const posterPath = join(dir, 'poster.jpg');
    await runProgram(config.ffmpegPath, ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y', '-ss', String(at), ...input, '-frames:v', '1', '-q:v', '3', posterPath], limits);
    const pinfo = await readImageInfo(posterPath);
    const posterGuid = newGuid();
    const posterKey = originalKey(posterGuid);
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
    const exists = await db.selectFrom('videos').select('videoid').where('videoid', '=', video.videoid).executeTakeFirst();
    if (!exists) return; // deleted while it was being worked on: nothing left to do
    if (ctx.signal.aborted) {
      // The server is shutting down: the job is taken up again after the restart.
      await db.updateTable('videos').set({ state: 'queued' }).where('videoid', '=', video.videoid).execute();
      throw err;
    }
    const message = (err as Error).message;
    if (isPermanent(err)) {
      await fail(db, video.videoid, message);
      return;
    }
    if (last) await fail(db, video.videoid, message);
    else await db.updateTable('videos').set({ state: 'queued', state_reason: message.slice(0, 1000) }).where('videoid', '=', video.videoid).execute();
    throw err;
  } finally {
    clearInterval(heartbeat);
    inFlight.delete(video.videoid);
    ctx.signal.removeEventListener('abort', onShutdown);
    await local.release();
    await rm(dir, { recursive: true, force: true });
  }
}
