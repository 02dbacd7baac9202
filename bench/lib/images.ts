// The image variant scenarios' setup (bench/bench.ts): real images uploaded through the
// API before the measure, and with `--storage s3` a bucket for the server to keep them in.
//
// The seeded site's image records (bench/seed.ts: one per step) have no file behind them
// (`blob_key` null: their variant URLs answer 404), so the scenarios use images of their
// own: JPEGs of 1 600 × 1 200, each different (benchImage), uploaded by the Admin (no hourly rate, no quota)
// to its library. Their rows are removed after the run: their files went with the run's
// data folder or bucket.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { openDatabase } from '../../src/db/database.js';
import { REPO_ROOT } from './server-process.js';

const API = '/api/2.0';
export const IMAGE_WIDTH = 1600;
export const IMAGE_HEIGHT = 1200;

/** A small deterministic PRNG (mulberry32), as the seed's. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The pixels every image starts from (made once): a smooth field of colour with grain, as a
 * camera's sensor leaves (the grain is what keeps the JPEG at a photo's size).
 */
let background: Promise<Buffer> | undefined;

function backgroundPixels(): Promise<Buffer> {
  background ??= (async () => {
    const r = random(0x5eed);
    const field = Buffer.alloc(16 * 12 * 3);
    for (let k = 0; k < field.length; k++) field[k] = Math.floor(r() * 256);
    const smooth = await sharp(field, { raw: { width: 16, height: 12, channels: 3 } }).resize(IMAGE_WIDTH, IMAGE_HEIGHT, { kernel: 'cubic' }).raw().toBuffer();
    const grain = randomBytes(smooth.length);
    for (let k = 0; k < smooth.length; k++) smooth[k] = Math.max(0, Math.min(255, smooth[k] + (grain[k] % 24) - 12));
    return smooth;
  })();
  return background;
}

/**
 * Image number `i`: a 1 600 × 1 200 JPEG (quality 85, about 0.3 MB) no other number gives:
 * the background with a dozen boxes of its own colours, places and sizes drawn in, and
 * shifted by its own offset (about 70 ms of JPEG encoding each; drawing into a copy of
 * the pixels is cheaper than compositing an SVG per image).
 */
export async function benchImage(i: number): Promise<Buffer> {
  const r = random(0x5eed + (i + 1) * 7919);
  const base = await backgroundPixels();
  const px = Buffer.allocUnsafe(base.length);
  const shift = Math.floor(r() * IMAGE_HEIGHT) * IMAGE_WIDTH * 3;
  base.copy(px, 0, shift);
  base.copy(px, base.length - shift, 0, shift);
  for (let k = 0; k < 12; k++) {
    const w = 40 + Math.floor(r() * 460);
    const h = 40 + Math.floor(r() * 340);
    const x0 = Math.floor(r() * (IMAGE_WIDTH - w));
    const y0 = Math.floor(r() * (IMAGE_HEIGHT - h));
    const rgb = [r() * 255, r() * 255, r() * 255];
    for (let y = y0; y < y0 + h; y++) {
      for (let at = (y * IMAGE_WIDTH + x0) * 3, end = at + w * 3, c = 0; at < end; at++, c = (c + 1) % 3) px[at] = (px[at] + rgb[c]) >> 1;
    }
  }
  return sharp(px, { raw: { width: IMAGE_WIDTH, height: IMAGE_HEIGHT, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

export interface UploadedImage {
  imageid: number;
  guid: string;
  /** Path and query of each variant's signed URL (the records' URLs name PUBLIC_URL's host). */
  paths: Record<string, string>;
}

/**
 * Makes `count` images and uploads them as the Admin (`token`), `parallel` at a time
 * (`POST /user/media/uploads`, the raw body); prints its progress.
 */
export async function uploadImages(url: string, token: string, count: number, parallel: number): Promise<{ images: UploadedImage[]; bytes: number; seconds: number }> {
  const started = Date.now();
  const images: UploadedImage[] = [];
  let next = 0;
  let bytes = 0;
  let printed = started;
  await Promise.all(Array.from({ length: parallel }, async () => {
    for (let i = next++; i < count; i = next++) {
      const body = await benchImage(i);
      bytes += body.length;
      const res = await fetch(`${url}${API}/user/media/uploads?file=bench-${i}.jpg`, { method: 'POST', headers: { authorization: `api ${token}`, 'content-type': 'application/octet-stream' }, body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`upload of image ${i} answered ${res.status}: ${text.slice(0, 300)}`);
      const item = JSON.parse(text) as { id: number; guid: string; image: { image: Record<string, unknown> } };
      const paths: Record<string, string> = {};
      for (const [variant, u] of Object.entries(item.image.image)) {
        if (typeof u === 'string' && u.includes('/files/images/')) paths[variant] = u.slice(u.indexOf('/files/images/'));
      }
      images.push({ imageid: item.id, guid: item.guid, paths });
      if (Date.now() - printed > 3000) {
        printed = Date.now();
        console.log(`  uploaded ${images.length} of ${count} images (${(bytes / 2 ** 20).toFixed(0)} MB) in ${((printed - started) / 1000).toFixed(0)} s`);
      }
    }
  }));
  const seconds = (Date.now() - started) / 1000;
  console.log(`  uploaded ${images.length} images of ${IMAGE_WIDTH} × ${IMAGE_HEIGHT} (JPEG, ${(bytes / images.length / 1024).toFixed(0)} KB on average) in ${seconds.toFixed(1)} s`);
  return { images, bytes, seconds };
}

/** Removes the uploaded images' rows (their files went with the run's data folder or bucket). */
export async function removeUploads(databaseUrl: string, imageids: number[]): Promise<void> {
  if (imageids.length === 0) return;
  const h = openDatabase(databaseUrl);
  try {
    for (let i = 0; i < imageids.length; i += 500) {
      const ids = imageids.slice(i, i + 500);
      await h.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('media_items').where('type', '=', 'GuideImage').where('objectid', 'in', ids).execute();
        await trx.deleteFrom('images').where('imageid', 'in', ids).execute();
      });
    }
  } finally {
    await h.destroy();
  }
}

/** The S3 test server (s3rver, a devDependency) as its own process, and what the app needs to use its bucket. */
export interface BenchS3 {
  /** The settings of MEDIA_STORAGE=s3 for the server (the node keys it requires are the bench's, bench.ts). */
  env: Record<string, string>;
  proc: ChildProcess;
  close(): Promise<void>;
}

export const BENCH_BUCKET = 'bench';

/**
 * Starts s3rver on loopback with a temporary folder and the bucket, in a process of its
 * own (in the bench process it would share an event loop with autocannon).
 */
export async function startS3(): Promise<BenchS3> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-s3-'));
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/s3-server.ts', dir, BENCH_BUCKET], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the S3 server exited (${code})`)));
    proc.stdout!.on('data', (d) => {
      const m = /ready (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    });
  });
  return {
    env: {
      MEDIA_STORAGE: 's3', S3_BUCKET: BENCH_BUCKET, S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true',
      // s3rver accepts this pair.
      AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    proc,
    async close() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
