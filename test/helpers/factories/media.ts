// Test files for the media area, made in the test (sharp, a minimal PDF, ffmpeg), and
// an upload helper. Nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TestApp } from '../app.js';
import { blobStoreFor, type Namespace } from '../../../src/storage/blob-store.js';
import type { TestUser } from '../factories.js';

export const hasFfmpeg = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0
  && spawnSync('ffprobe', ['-version'], { stdio: 'ignore' }).status === 0;

export function noteSkippedWithoutFfmpeg(what: string) {
  if (!hasFfmpeg) console.warn(`SKIPPED (ffmpeg/ffprobe not installed): ${what}. Install Debian's ffmpeg package to run them.`);
}

type Rgb = { r: number; g: number; b: number };

/** A solid image of a colour. */
export function solid(width: number, height: number, color: Rgb, format: 'jpeg' | 'png' | 'gif' | 'webp' = 'png') {
  const img = sharp({ create: { width, height, channels: 3, background: color } });
  return img.toFormat(format).toBuffer();
}

/** A PNG in four quadrants: red top-left, green top-right, blue bottom-left, white bottom-right. */
export async function quadrants(width: number, height: number): Promise<Buffer> {
  const hw = Math.floor(width / 2);
  const hh = Math.floor(height / 2);
  const block = (w: number, h: number, c: Rgb) => sharp({ create: { width: w, height: h, channels: 3, background: c } }).png().toBuffer();
  return sharp({ create: { width, height, channels: 3, background: { r: 255, g: 255, b: 255 } } })
    .composite([
      { input: await block(hw, hh, { r: 255, g: 0, b: 0 }), left: 0, top: 0 },
      { input: await block(width - hw, hh, { r: 0, g: 255, b: 0 }), left: hw, top: 0 },
      { input: await block(hw, height - hh, { r: 0, g: 0, b: 255 }), left: 0, top: hh },
    ])
    .png()
    .toBuffer();
}

/** A JPEG carrying EXIF tags (camera, date, aperture). */
export function jpegWithExif(width: number, height: number, orientation?: number) {
  let img = sharp({ create: { width, height, channels: 3, background: { r: 120, g: 130, b: 140 } } })
    .withExif({ IFD0: { Make: 'Acme', Model: 'Cam 1', DateTime: '2024:05:06 07:08:09' }, IFD2: { FNumber: '28/10', DateTimeOriginal: '2024:05:06 07:08:09' } } as never);
  if (orientation) img = img.withMetadata({ orientation });
  return img.jpeg().toBuffer();
}

/** A minimal one-page PDF. */
export function minimalPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A one-second 160x120 test video made by ffmpeg (mp4, webm or mov), with a tone when `audio`. */
export function testVideo(format: 'mp4' | 'webm' | 'mov', audio = false): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cp-vid-'));
  const out = join(dir, `v.${format}`);
  const codec = format === 'webm' ? ['-c:v', 'libvpx', '-deadline', 'realtime'] : ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  const audioIn = audio ? ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'] : [];
  const audioCodec = audio ? (format === 'webm' ? ['-c:a', 'libopus'] : ['-c:a', 'aac']) : [];
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', ...audioIn, ...codec, ...audioCodec, '-shortest', out]);
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr}`);
  const data = readFileSync(out);
  rmSync(dir, { recursive: true, force: true });
  return data;
}

/** An MP4 of `seconds` seconds at 320x240 (no audio): long enough that its encode reports progress. */
export function longTestVideo(seconds: number): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cp-vid-'));
  const out = join(dir, 'long.mp4');
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=25`, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', out]);
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr}`);
  const data = readFileSync(out);
  rmSync(dir, { recursive: true, force: true });
  return data;
}

/** POST /user/media/uploads with a raw body. */
export function upload(t: TestApp, user: TestUser | null, data: Buffer | string, file = 'file.bin', contentType: string | null = 'application/octet-stream') {
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  return t.post(`/user/media/uploads?file=${encodeURIComponent(file)}`, { token: user?.token, payload: data, headers });
}

/** Uploads an image and answers its library item. */
export async function makeImage(t: TestApp, user: TestUser, data?: Buffer, file = 'photo.jpg') {
  const res = await upload(t, user, data ?? (await solid(400, 300, { r: 200, g: 100, b: 50 }, 'jpeg')), file);
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** GET of a served file (outside /api/2.0) by its absolute URL. */
export function getFile(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const path = url.replace(t.config.publicUrl, '');
  return t.app.inject({ method: 'GET', url: path, headers });
}

// The boxes the service states (GET /user/media/constraints), copied here on purpose:
// cover variants are cut to their box, inside variants keep the ratio and are never enlarged.
const COVER: Record<string, [number, number]> = { mini: [40, 30], thumbnail: [96, 72], '140x105': [140, 105], '200x150': [200, 150], '440x330': [440, 330] };
const INSIDE: Record<string, [number, number]> = { standard: [300, 225], medium: [592, 444], large: [800, 600], huge: [1600, 1200] };
export const VARIANTS = ['mini', 'thumbnail', '140x105', '200x150', 'standard', '440x330', 'medium', 'large', 'huge', 'original'];

/** The size a variant of a w x h image must have. */
export function expectedSize(variant: string, w: number, h: number): [number, number] {
  if (variant === 'original') return [w, h];
  if (COVER[variant]) return COVER[variant];
  const [bw, bh] = INSIDE[variant];
  const s = Math.min(1, bw / w, bh / h);
  return [Math.round(w * s), Math.round(h * s)];
}

/** The keys the app's store holds (under `prefix/` when given), on whichever backend the run uses. */
export async function storedKeys(t: Pick<TestApp, 'config'>, prefix?: string, namespace: Namespace = 'media'): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of blobStoreFor(t.config, namespace).list(prefix)) keys.push(o.key);
  return keys.sort();
}

/** Whether the app's store holds `key`. */
export async function isStored(t: Pick<TestApp, 'config'>, key: string, namespace: Namespace = 'media'): Promise<boolean> {
  return (await blobStoreFor(t.config, namespace).size(key)) !== null;
}
