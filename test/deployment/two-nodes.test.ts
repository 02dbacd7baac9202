// Two nodes on one database and one bucket (docs/deployment.md): real server processes A and
// B, each with its own DATA_DIR, the same node keys and S3 settings, on the test S3 server
// (s3rver) and a scratch database: PostgreSQL with TEST_DATABASE_URL (the real multi-node
// case), else one SQLite file (two processes of one machine, as WEB_CONCURRENCY runs them:
// the bucket, the job queue, the counted limits and the key fingerprints are shared the
// same way). A runs with JOB_WORKERS=false and an ffmpeg that does not exist, so a job it
// claimed would fail an attempt: every job is B's.
//   - an image uploaded through A: its record and every variant URL read through B;
//   - a video uploaded through A is encoded by B (its job done in one attempt);
//   - a SCORM package imported through A (the import is a job: B's) plays through B;
//   - ten failed logins spread over A and B make the eleventh a 429 on either;
//   - a third node with another MEDIA_URL_SECRET, or another AUDIT_CHAIN_KEY, refuses to start;
//   - SIGTERM on A under keep-alive load through the round-robin proxy (scripts/) loses no
//     request: the proxy's health check takes A out while it drains, B serves on. Last: A is gone after it.
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { startProxy } from '../../scripts/round-robin-proxy.js';
import { openDatabase } from '../../src/db/database.js';
import { VIDEO_JOB } from '../../src/areas/media/videos.js';
import { scormPackage } from '../../src/areas/training-modules/modules.packages.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { testBucket } from '../helpers/s3.js';
import { configurationLines, refusedStart } from '../helpers/refused-start.js';
import { KeepAliveLoad } from '../helpers/keep-alive-load.js';
import { expectedSize, hasFfmpeg, noteSkippedWithoutFfmpeg, solid, testVideo, VARIANTS } from '../helpers/factories/media.js';

const { dir, newDatabase } = scratchDatabases('two-nodes');
const KEYS = { MEDIA_URL_SECRET: 'm'.repeat(40), WEBHOOK_SECRETS_KEY: 'w'.repeat(40), AUDIT_CHAIN_KEY: 'c'.repeat(40) };
const DRAIN_MS = 4_000;
const CLIENTS = 16;

let a: ServerProcess;
let b: ServerProcess;
let bucket: Awaited<ReturnType<typeof testBucket>>;
let databaseUrl: string;
let shared: Record<string, string>;
let token: string;

beforeAll(async () => {
  bucket = await testBucket();
  databaseUrl = await newDatabase('two_nodes');
  const s3 = bucket.storage;
  shared = {
    ...KEYS,
    MEDIA_STORAGE: 's3', S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_REGION: s3.region, S3_FORCE_PATH_STYLE: 'true',
    // The pair s3rver accepts (test/helpers/s3.ts).
    AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
    LOGIN_RATE_LIMIT: '10',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
  };
  // One after the other: A migrates and seeds the demo site, B finds both done.
  a = await startServer({ databaseUrl, dataDir: join(dir, 'a'), env: { ...shared, JOB_WORKERS: 'false', FFMPEG_PATH: join(dir, 'no-ffmpeg-on-a') }, readyTimeoutMs: 120_000 });
  b = await startServer({ databaseUrl, dataDir: join(dir, 'b'), env: { ...shared, SEED_DEMO: 'false' }, readyTimeoutMs: 120_000 });
  // A session made through A is one of the database: B accepts it.
  token = await login(a.url);
}, 300_000);

afterAll(async () => {
  await Promise.all([a?.kill(), b?.kill()]);
  await bucket?.release();
});

/** A request to a node's API with a raw or JSON body; answers the status and the parsed body. */
async function send(node: ServerProcess, method: string, path: string, body?: Buffer | object, type = 'application/octet-stream') {
  const raw = body === undefined || Buffer.isBuffer(body);
  const res = await fetch(`${node.url}/api/2.0${path}`, {
    method,
    headers: { authorization: `api ${token}`, ...(body !== undefined ? { 'content-type': raw ? type : 'application/json' } : {}) },
    body: body === undefined ? undefined : raw ? new Uint8Array(body as Buffer) : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) };
}

/** A served file (a signed URL of the node's PUBLIC_URL): its status, type and bytes. */
async function file(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Polls `read` (every 200 ms) until `done` holds of its answer; throws with the last answer past `timeoutMs`. */
async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms; last: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Files under a node's DATA_DIR other than its tmp/ (with s3: none). */
const ownFiles = (node: 'a' | 'b') => (readdirSync(join(dir, node), { recursive: true }) as string[]).filter((p) => p !== 'tmp' && !p.startsWith(`tmp/`));

describe('two nodes, one database, one bucket', () => {
  it('an image uploaded through A: its record and every variant URL through B', async () => {
    const up = await send(a, 'POST', '/user/media/uploads?file=board.jpg', await solid(1000, 750, { r: 30, g: 90, b: 160 }, 'jpeg'));
    expect(up.status, up.text).toBe(200);
    const item = up.json();
    const record = await send(b, 'GET', `/media/images/${item.id}`);
    expect(record.status, record.text).toBe(200);
    const urls = record.json().image;
    for (const v of VARIANTS) {
      expect(urls[v], v).toMatch(new RegExp(`^${b.url}/files/images/${item.guid}\\.${v}\\?`));
      const got = await file(urls[v]);
      expect(got.status, v).toBe(200);
      expect(got.type).toBe('image/jpeg');
      const meta = await sharp(got.bytes).metadata();
      expect(meta.format, v).toBe('jpeg');
      expect([meta.width, meta.height], v).toEqual(expectedSize(v, 1000, 750));
    }
    // The files are the bucket's: neither node's data folder holds any.
    expect(ownFiles('a')).toEqual([]);
    expect(ownFiles('b')).toEqual([]);
  });

  noteSkippedWithoutFfmpeg('the video encoded by another node (test/deployment/two-nodes.test.ts)');
  it.skipIf(!hasFfmpeg)('a video uploaded through A (JOB_WORKERS=false) is encoded by B', async () => {
    const up = await send(a, 'POST', '/user/media/uploads?file=clip.mp4', testVideo('mp4', true));
    expect(up.status, up.text).toBe(200);
    const id = up.json().id;
    const video = await pollUntil(async () => (await send(b, 'GET', `/media/videos/${id}`)).json(), (v) => ['finished', 'failed'].includes(v.meta?.state), 150_000, 'the video encoded');
    expect(video.meta, JSON.stringify(video.meta)).toMatchObject({ state: 'finished', progress: 100 });
    expect(video.encodings.map((e: { format: string }) => e.format)).toEqual(['mp4', 'webm']);
    for (const e of video.encodings) {
      const got = await file(e.url);
      expect(got.status, e.format).toBe(200);
      expect(got.type).toBe(e.mime);
      expect(got.bytes.length).toBeGreaterThan(500);
    }
    const poster = await file(video.image.image.thumbnail);
    expect((await sharp(poster.bytes).metadata()).width).toBe(96);
    // Done in its first attempt: A (without ffmpeg) never claimed it, or that attempt would have failed.
    const handle = openDatabase(databaseUrl);
    try {
      const jobs = await handle.db.selectFrom('jobs').select(['status', 'attempts', 'last_error']).where('type', '=', VIDEO_JOB).execute();
      expect(jobs).toEqual([{ status: 'done', attempts: 1, last_error: null }]);
    } finally {
      await handle.destroy();
    }
    expect(ownFiles('a')).toEqual([]);
  }, 200_000);

  it('a SCORM package imported through A plays through B', async () => {
    const created = await send(a, 'POST', '/external_training_modules/imports', {});
    expect(created.status, created.text).toBe(201);
    const { importid } = created.json();
    const started = await send(a, 'POST', `/external_training_modules/imports/${importid}/start/byUpload`, scormPackage('1.2', 'Across nodes'));
    expect(started.status, started.text).toBe(200);
    const progress = await pollUntil(async () => (await send(b, 'GET', `/external_training_modules/imports/${importid}/progress`)).json(), (p) => ['COMPLETE', 'ERROR', 'CANCELLED'].includes(p.status), 120_000, 'the import');
    expect(progress).toMatchObject({ status: 'COMPLETE', percent: 100 });
    const preview = await send(b, 'GET', `/external_training_modules/imports/${importid}/preview`);
    expect(preview.status, preview.text).toBe(200);
    const data = preview.json();
    expect(data.launch_url.startsWith(`${b.url}/training-modules/play/`)).toBe(true);
    const page = await fetch(data.player_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/training-modules/runtime/scorm-again.min.js');
    const launch = await fetch(data.launch_url);
    expect(launch.status).toBe(200);
    expect(launch.headers.get('content-type')).toContain('text/html');
    expect(await launch.text()).toContain('LMSInitialize');
    const commit = await send(b, 'POST', `/external_training_modules/commits/${data.commit_url.split('/').pop()}`, { cmi: { core: { lesson_status: 'passed', score: { raw: '90' } } } });
    expect(commit.status, commit.text).toBe(200);
    expect(commit.json()).toEqual({ result: true, errorCode: 0 });
  });

  it('ten failed logins spread over A and B make the eleventh a 429 on either (LOGIN_RATE_LIMIT=10)', async () => {
    // From an address of their own (127.0.0.2): the file's other requests come from 127.0.0.1.
    const attempt = (node: ServerProcess, n: number) => new Promise<number>((resolve, reject) => {
      const req = request(`${node.url}/api/2.0/user/token`, { method: 'POST', localAddress: '127.0.0.2', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      // Another unknown account each time: the per-account delay never starts.
      req.end(JSON.stringify({ email: `nobody-${n}@example.com`, password: 'wrong password' }));
    });
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) statuses.push(await attempt(n % 2 ? b : a, n));
    expect(statuses).toEqual(Array(10).fill(401));
    expect(await attempt(a, 10)).toBe(429);
    expect(await attempt(b, 11)).toBe(429);
  });

  it('a third node with another MEDIA_URL_SECRET or AUDIT_CHAIN_KEY refuses to start, naming the setting', async () => {
    const third = (setting: keyof typeof KEYS) => refusedStart({ ...shared, DATABASE_URL: databaseUrl, DATA_DIR: join(dir, `c-${setting}`), [setting]: 'x'.repeat(40) });
    const [url, audit] = await Promise.all([third('MEDIA_URL_SECRET'), third('AUDIT_CHAIN_KEY')]);
    expect(url.code, url.out).toBe(78);
    expect(configurationLines(url.out)).toEqual([expect.stringMatching(/^configuration: MEDIA_URL_SECRET differs from the key this database has seen/)]);
    expect(audit.code, audit.out).toBe(78);
    expect(configurationLines(audit.out)).toEqual([expect.stringMatching(/^configuration: AUDIT_CHAIN_KEY differs from the key this database has seen/)]);
    // A and B serve on.
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
  }, 120_000);

  it('SIGTERM on A under keep-alive load through the round-robin proxy loses no request', async () => {
    const proxy = await startProxy({ port: 0, backends: [{ name: 'a', url: a.url }, { name: 'b', url: b.url }], healthIntervalMs: 100 });
    try {
      expect(proxy.inRotation()).toEqual(['a', 'b']);
      const load = new KeepAliveLoad(`${proxy.url}/api/2.0/guides?limit=5`, CLIENTS);
      // Both nodes busy, every client's connection to the proxy kept alive.
      await load.until(() => (load.servedBy.get('a') ?? 0) >= CLIENTS && (load.servedBy.get('b') ?? 0) >= CLIENTS, 60_000, 'both nodes serving');
      a.proc.kill('SIGTERM');
      // The health check sees A's /readyz 503 `draining` and takes it out while A still serves.
      await load.until(() => proxy.inRotation().join() === 'b', 30_000, 'A out of rotation');
      const code = await a.exited;
      // A is gone: the clients go on through the proxy (to B) for a while, then leave.
      const byB = load.servedBy.get('b') ?? 0;
      await load.until(() => (load.servedBy.get('b') ?? 0) >= byB + CLIENTS * 2, 60_000, 'B serving after A\'s exit');
      await load.leaveAfter(2);

      expect(load.errors).toEqual([]);
      expect(load.answered).toBe(load.sent);
      expect([...load.statuses.keys()]).toEqual([200]);
      // No 502 or 503 from the proxy, and nothing it had to send again.
      expect(proxy.stats).toMatchObject({ failed: 0, noNode: 0, retried: 0 });
      expect(code).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 180_000);
});
