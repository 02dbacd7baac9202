// A node killed (SIGKILL) during uploads, with MEDIA_STORAGE=s3 (a test S3 server of this
// file's own, whose folder shows unfinished multipart uploads), on a database of its own
// (a SQLite file, or PostgreSQL with TEST_DATABASE_URL). In flight at the kill: a large
// upload streamed in parts (a multipart upload to the bucket) and a video whose upload
// check never ends (an ffprobe that hangs), so that its object is stored and its row not
// yet written. Afterwards no row names a missing object; the killed multipart upload left
// no object (only the unfinished upload in the bucket); the video's object is the one
// leftover, and the orphan sweep, run from here with a ManualClock past the grace, deletes
// it and keeps every object a row names.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import S3rver from 's3rver';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { login, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { openDatabase } from '../../src/db/database.js';
import { ManualClock } from '../../src/clock.js';
import { areas } from '../../src/areas/index.js';
import { makeStore, NAMESPACES, type BlobStore, type Namespace } from '../../src/storage/blob-store.js';
import { s3ClientFor } from '../../src/storage/s3-store.js';
import { sweepOrphanObjects } from '../../src/storage/orphans.js';
import { importPrefix, MANIFEST } from '../../src/areas/training-modules/modules.zip.js';
import type { S3Storage } from '../helpers/s3.js';
import { minimalPdf, solid } from '../helpers/factories/media.js';

const { dir, newDatabase } = scratchDatabases('orphans-kill');
const KEYS = { MEDIA_URL_SECRET: 'm'.repeat(40), WEBHOOK_SECRETS_KEY: 'w'.repeat(40), AUDIT_CHAIN_KEY: 'a'.repeat(40) };
const GRACE = 86_400;
const s3Dir = join(dir, 's3');
let s3: S3rver;
let storage: S3Storage;

beforeAll(async () => {
  mkdirSync(s3Dir, { recursive: true });
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port } = await s3.run();
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  storage = { kind: 's3', bucket: 'orphans', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, prefix: '' };
  await s3ClientFor(storage).send(new CreateBucketCommand({ Bucket: storage.bucket }));
}, 60_000);
afterAll(async () => {
  s3ClientFor(storage)?.destroy();
  await s3?.close();
});

/** Files under a folder (recursively). */
function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(path, e.name)) : [join(path, e.name)]));
}

/** Polls until `check` holds (generous limit: a loaded machine). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A request body that sends `head`, then `bytes` more in 64 KiB chunks, and then never ends. */
function endlessBody(head: Buffer, bytes: number): ReadableStream<Uint8Array> {
  let sent = -1;
  const chunk = Buffer.alloc(65536, 7);
  return new ReadableStream({
    pull(controller) {
      if (sent < 0) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < bytes) {
        controller.enqueue(chunk);
        sent += chunk.length;
      } else return new Promise(() => {}); // holds: the upload stays in flight
    },
  });
}

describe('a node killed during uploads (MEDIA_STORAGE=s3)', () => {
  it('leaves no row naming a missing object; the sweep removes the leftover and keeps the rest', async () => {
    const databaseUrl = await newDatabase('orphans');
    // An ffprobe that answers -version and hangs on a file, writing its pid (ended by it below).
    const pidFile = join(dir, 'ffprobe.pid');
    const ffprobe = join(dir, 'ffprobe-hangs.sh');
    writeFileSync(ffprobe, `#!/bin/sh\nif [ "$1" = "-version" ]; then echo fake; exit 0; fi\necho $$ > ${pidFile}\nexec sleep 600\n`);
    chmodSync(ffprobe, 0o755);
    const env = {
      ...KEYS, MEDIA_STORAGE: 's3', S3_BUCKET: storage.bucket, S3_ENDPOINT: storage.endpoint!, S3_REGION: storage.region, S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', FFPROBE_PATH: ffprobe, VIDEO_PROBE_TIMEOUT_MS: '600000',
    };
    let server: ServerProcess | null = await startServer({ databaseUrl, dataDir: join(dir, 'node-a'), env, readyTimeoutMs: 120_000 });
    const uploads: Array<Promise<unknown>> = [];
    try {
      const token = await login(server.url);
      const post = (file: string, body: Uint8Array | ReadableStream<Uint8Array>) => fetch(`${server!.url}/api/2.0/user/media/uploads?file=${file}`, {
        method: 'POST', headers: { authorization: `api ${token}`, 'content-type': 'application/octet-stream' }, body, duplex: 'half',
      } as RequestInit);
      // Finished before the kill: their rows name their objects.
      for (const [file, body] of [['a.png', await solid(64, 48, { r: 1, g: 2, b: 3 })], ['b.pdf', minimalPdf()]] as const) {
        const res = await post(file, new Uint8Array(body));
        expect(res.status, await res.clone().text()).toBe(200);
      }
      // In flight: 12 MiB of a PNG that never ends (a multipart upload of 8 MiB parts)...
      const png = (await solid(8, 8, { r: 9, g: 9, b: 9 })).subarray(0, 64);
      uploads.push(post('big.png', endlessBody(png, 12 * 1024 * 1024)).catch((e) => e));
      await until('the first part of the multipart upload', () => uploadsDir().some((p) => /[/\\]1\.md5$/.test(p)));
      // ...and a video whose object is stored while its check hangs.
      const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64 * 1024, 1)]);
      uploads.push(post('clip.mp4', new Uint8Array(mp4)).catch((e) => e));
      await until('the video check to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      await server.kill();
      server = null;
    } finally {
      await server?.kill();
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {}
      }
      await Promise.all(uploads);
    }

    const handle = openDatabase(databaseUrl);
    const stores = Object.fromEntries(NAMESPACES.map((n) => [n, makeStore({ dataDir: join(dir, 'sweeper'), storage }, n)])) as Record<Namespace, BlobStore>;
    try {
      const db = handle.db;
      // Every object a row names, the demo's (images, a SCORM package) and the finished uploads'.
      const named: Array<[Namespace, string]> = [];
      for (const table of ['images', 'videos', 'documents', 'video_encodings'] as const) {
        for (const r of await db.selectFrom(table).select('blob_key').execute()) if (r.blob_key) named.push(['media', r.blob_key]);
      }
      const imports = await db.selectFrom('training_module_imports').select(['importid', 'status']).execute();
      for (const imp of imports.filter((i) => i.status === 'COMPLETE')) named.push(['modules', `${importPrefix(imp.importid)}/${MANIFEST}`]);
      expect(named.filter(([n]) => n === 'media').length).toBeGreaterThanOrEqual(3);
      expect(named.filter(([n]) => n === 'modules').length).toBeGreaterThanOrEqual(1);
      for (const [n, key] of named) expect(await stores[n].size(key), `${n}/${key} is named by a row`).not.toBeNull();
      expect(await db.selectFrom('videos').select('videoid').execute()).toHaveLength(0);

      // The objects: the named ones, and the video's (no row: the kill came before its commit).
      const listed = new Map<string, number>();
      for await (const o of stores.media.list()) listed.set(o.key, o.size);
      const namedMedia = new Set(named.filter(([n]) => n === 'media').map(([, k]) => k));
      const leftovers = [...listed.keys()].filter((k) => !namedMedia.has(k) && !k.startsWith('variants/'));
      expect(leftovers).toHaveLength(1);
      expect(listed.get(leftovers[0])).toBe(12 + 64 * 1024);
      // The killed multipart upload is no object (nothing of 12 MiB listed), only an unfinished upload in the bucket.
      expect([...listed.values()].every((size) => size < 8 * 1024 * 1024)).toBe(true);
      const parts = uploadsDir().filter((p) => statSync(p).size >= 8 * 1024 * 1024);
      expect(parts.length).toBeGreaterThanOrEqual(1);

      const rules = areas.flatMap((a) => a.storedFiles ?? []);
      const now = Math.floor(Date.now() / 1000);
      // Within the grace: kept.
      const early = await sweepOrphanObjects(db, stores, new ManualClock(now), { graceSeconds: GRACE, rules });
      expect(early.deleted).toBe(0);
      expect(await stores.media.size(leftovers[0])).not.toBeNull();
      // Past it: the leftover goes, every named object stays.
      const late = await sweepOrphanObjects(db, stores, new ManualClock(now + GRACE + 60), { graceSeconds: GRACE, rules });
      expect(late.deleted).toBe(1);
      expect(late.unknown).toBe(0);
      expect(await stores.media.size(leftovers[0])).toBeNull();
      for (const [n, key] of named) expect(await stores[n].size(key), `${n}/${key} after the sweep`).not.toBeNull();
    } finally {
      await handle.destroy();
    }

    function uploadsDir() {
      return filesUnder(join(s3Dir, storage.bucket)).filter((p) => p.includes('uploads'));
    }
  }, 300_000);
});
