// The orphan sweep (src/storage/orphans.ts) on a real database and the run's real store
// (TEST_MEDIA_STORAGE=s3: a bucket of the test S3 server; `npm run test:s3` runs it so).
// Time is a ManualClock set from the real clock (the stores stamp each write with it) and
// moved past the grace; nothing waits.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { areas } from '../../src/areas/index.js';
import { newGuid } from '../../src/areas/media/guid.js';
import { FileBlobStore, NAMESPACES, blobStoreFor } from '../../src/storage/blob-store.js';
import { configuredStores, ORPHAN_SWEEP_JOB, orphanSweepInterval, scheduleOrphanSweep, sweepOrphanObjects, type SweepCounts } from '../../src/storage/orphans.js';
import { scormPackage } from '../../src/areas/training-modules/modules.packages.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../helpers/factories.js';
import { getFile, hasFfmpeg, isStored, makeImage, minimalPdf, noteSkippedWithoutFfmpeg, testVideo, upload } from '../helpers/factories/media.js';
import { makeModule } from '../helpers/factories/modules.js';
import { testStorageIsS3 } from '../helpers/s3.js';
import { REPO_ROOT as REPO } from '../../bench/lib/server-process.js';
import { variantKey } from '../../src/areas/media/media.keys.js';

const GRACE = 86_400;
const rules = areas.flatMap((a) => a.storedFiles ?? []);
/** A clock at the real time moved by `seconds`: the stores' modification times are real. */
const realClock = (seconds = 0) => new ManualClock(Math.floor(Date.now() / 1000) + seconds);

let t: TestApp;
let owner: TestUser;
let admin: TestUser;
const sqliteDir = mkdtempSync(join(tmpdir(), 'cp-orphans-'));

beforeAll(async () => {
  // A database file on SQLite: the CLI's test opens it from another process.
  t = await buildTestApp({ sqliteFile: join(sqliteDir, 'db.sqlite') });
  owner = await makeUser(t);
  admin = await makeAdmin(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const sweep = (clock: ManualClock, o: { dryRun?: boolean } = {}): Promise<SweepCounts> =>
  sweepOrphanObjects(t.db, configuredStores(t.config), clock, { graceSeconds: GRACE, rules, ...o });

/** Puts a stray blob (no row names it) into a namespace of the app's store. */
async function stray(key: string, namespace: 'media' | 'modules' = 'media') {
  await blobStoreFor(t.config, namespace).putBuffer(key, Buffer.from(`stray ${key}`));
  return key;
}

describe('the orphan sweep', () => {
  it('keeps an unreferenced object younger than the grace and deletes it once older', async () => {
    const key = await stray(`originals/${newGuid()}`);
    const young = await sweep(realClock(GRACE - 60));
    expect(await isStored(t, key)).toBe(true);
    expect(young.scanned).toBeGreaterThanOrEqual(1);
    expect(young.kept).toBe(young.scanned);
    const old = await sweep(realClock(GRACE + 60));
    expect(await isStored(t, key)).toBe(false);
    expect(old.deleted).toBeGreaterThanOrEqual(1);
    expect(old.scanned).toBe(old.kept + old.deleted);
  });

  it('keeps every kind of file a row references, however old, and deletes the leftovers of each kind', async () => {
    noteSkippedWithoutFfmpeg('the video encodings and poster of the orphan sweep test');
    const image = await makeImage(t, owner);
    expect((await getFile(t, image.image.image.large)).statusCode).toBe(200); // makes a variant
    const doc = await upload(t, owner, minimalPdf(), 'manual.pdf');
    expect(doc.statusCode, doc.body).toBe(200);
    if (hasFfmpeg) {
      const video = await upload(t, owner, testVideo('mp4'), 'clip.mp4');
      expect(video.statusCode, video.body).toBe(200);
      await t.app.jobs.runDue();
    }
    const { importid } = await makeModule(t, admin);
    // An import started and not yet run: its staged package waits in storage.
    const waiting = (await t.post('/external_training_modules/imports', { token: admin.token, body: {} })).json().importid as number;
    const started = await t.post(`/external_training_modules/imports/${waiting}/start/byUpload`, { token: admin.token, headers: { 'content-type': 'application/octet-stream' }, payload: scormPackage('1.2', 'Waiting') });
    expect(started.statusCode, started.body).toBe(200);

    const referenced: Array<[string, 'media' | 'modules']> = [];
    const rows = await Promise.all([
      t.db.selectFrom('images').select('blob_key').execute(),
      t.db.selectFrom('videos').select('blob_key').execute(),
      t.db.selectFrom('documents').select('blob_key').execute(),
      t.db.selectFrom('video_encodings').select('blob_key').execute(),
    ]);
    for (const r of rows.flat()) if (r.blob_key) referenced.push([r.blob_key, 'media']);
    const variantKeys = [];
    for await (const o of blobStoreFor(t.config).list(`variants/${image.guid}`)) variantKeys.push(o.key);
    expect(variantKeys.length).toBeGreaterThan(0);
    for (const k of variantKeys) referenced.push([k, 'media']);
    if (hasFfmpeg) {
      expect(referenced.filter(([k]) => k.startsWith('videos/')).length).toBe(2); // mp4 and webm
      expect((await t.db.selectFrom('videos').select('poster_imageid').executeTakeFirstOrThrow()).poster_imageid).not.toBeNull();
    }
    for await (const o of blobStoreFor(t.config, 'modules').list(String(importid))) referenced.push([o.key, 'modules']);
    expect(referenced.some(([k]) => k === `${importid}/index.html`)).toBe(true);
    // An upload is staged under a key of its start's own (uploadStagedKey).
    const staged = [];
    for await (const o of blobStoreFor(t.config, 'modules').list('staged')) if (o.key.startsWith(`staged/${waiting}-`)) staged.push(o.key);
    expect(staged).toHaveLength(1);
    referenced.push([staged[0], 'modules']);
    for (const [k, ns] of referenced) expect(await isStored(t, k, ns), `${ns}/${k} before the sweep`).toBe(true);

    // Leftovers of every kind: no row names them.
    const leftovers: Array<[string, 'media' | 'modules']> = [
      [await stray(`originals/${newGuid()}`), 'media'],
      [await stray(`variants/${newGuid()}/large`), 'media'],
      [await stray(`videos/${newGuid()}/mp4`), 'media'],
      [await stray('staged/987654.zip', 'modules'), 'modules'],
      [await stray('987654/index.html', 'modules'), 'modules'],
      [await stray(`staged/${importid}.zip`, 'modules'), 'modules'], // its import is complete: no longer needed
      [await stray(`staged/${importid}-0123456789abcdef.zip`, 'modules'), 'modules'], // an upload's own staged key, likewise
    ];
    // A key no area makes: kept (the sweep deletes only what it can explain).
    const unknown = await stray('notes/readme.txt');

    const counts = await sweep(realClock(10 * GRACE));
    for (const [k, ns] of referenced) expect(await isStored(t, k, ns), `${ns}/${k} after the sweep`).toBe(true);
    for (const [k, ns] of leftovers) expect(await isStored(t, k, ns), `${ns}/${k} after the sweep`).toBe(false);
    expect(await isStored(t, unknown)).toBe(true);
    expect(counts.unknown).toBeGreaterThanOrEqual(1);
    expect(counts.deleted).toBeGreaterThanOrEqual(leftovers.length);
    // The staged import still runs from its package.
    await t.app.jobs.runDue();
    expect((await t.db.selectFrom('training_module_imports').select('status').where('importid', '=', waiting).executeTakeFirstOrThrow()).status).toBe('COMPLETE');
  }, 120_000);

  it('keeps what a pending media purge will delete (a deleted item\'s files, kept for backups)', async () => {
    const image = await makeImage(t, owner);
    expect((await getFile(t, image.image.image.large)).statusCode).toBe(200);
    const original = (await t.db.selectFrom('images').select('blob_key').where('imageid', '=', image.id).executeTakeFirstOrThrow()).blob_key!;
    const variant = variantKey(image.guid, 'large');
    expect(await isStored(t, variant)).toBe(true);
    expect((await t.del(`/user/media/GuideImage/${image.id}`, { token: owner.token })).statusCode).toBe(204);
    await sweep(realClock(10 * GRACE));
    expect(await isStored(t, original)).toBe(true);
    expect(await isStored(t, variant)).toBe(true);
    // The purge, not the sweep, deletes them.
    t.clock.advance(t.config.mediaDeleteGraceS + 1);
    await t.app.jobs.runDue();
    expect(await isStored(t, original)).toBe(false);
    expect(await isStored(t, variant)).toBe(false);
  }, 60_000);

  it('with dryRun deletes nothing and counts what it would delete', async () => {
    const key = await stray(`originals/${newGuid()}`);
    const counts = await sweep(realClock(GRACE + 60), { dryRun: true });
    expect(counts.deleted).toBeGreaterThanOrEqual(1);
    expect(await isStored(t, key)).toBe(true);
  });
});

describe('the filesystem store\'s writes in progress', () => {
  it('are never listed; a killed write\'s temporary file is removed once older than the grace', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cp-orphans-fs-'));
    const store = new FileBlobStore(root);
    await store.putBuffer('originals/AAAAAAAAAAAAAAAA', Buffer.from('kept'));
    mkdirSync(join(root, 'originals'), { recursive: true });
    // What a put killed mid-way leaves: the file it was writing, never renamed.
    writeFileSync(join(root, 'originals', 'BBBBBBBBBBBBBBBB.tmp-0123456789ab'), 'half');
    const listed = [];
    for await (const o of store.list()) listed.push(o.key);
    expect(listed).toEqual(['originals/AAAAAAAAAAAAAAAA']);
    const now = Math.floor(Date.now() / 1000);
    expect(await store.removeUnfinished(now - GRACE)).toBe(0);
    expect(await store.removeUnfinished(now + GRACE, { dryRun: true })).toBe(1);
    expect(await store.removeUnfinished(now + GRACE)).toBe(1);
    expect(await store.removeUnfinished(now + GRACE)).toBe(0);
    expect(await store.size('originals/AAAAAAAAAAAAAAAA')).toBe(4);
    // The sweep removes them too, through every namespace's store.
    writeFileSync(join(root, 'originals', 'CCCCCCCCCCCCCCCC.tmp-0123456789ab'), 'half');
    const counts = await sweepOrphanObjects(t.db, { media: store }, realClock(GRACE + 60), { graceSeconds: GRACE, rules });
    expect(counts.unfinished).toBe(1);
  });
});

describe('the recurring job', () => {
  const pending = async () => t.db.selectFrom('jobs').select(['jobid', 'run_at', 'status']).where('type', '=', ORPHAN_SWEEP_JOB).where('status', 'in', ['pending', 'running']).execute();

  it('is scheduled once however many nodes start at once, runs, and schedules its next run', async () => {
    const interval = orphanSweepInterval(t.config);
    expect(interval).toBe(3600);
    const added = await Promise.all(Array.from({ length: 6 }, () => scheduleOrphanSweep(t.db, t.clock, t.clock.now() + interval)));
    expect(added.filter(Boolean)).toHaveLength(1);
    expect(await pending()).toHaveLength(1);
    expect(await scheduleOrphanSweep(t.db, t.clock, t.clock.now() + interval)).toBe(false);

    // While it runs (claimed by a node), a node starting schedules nothing either.
    t.clock.advance(interval);
    const claimed = await t.app.jobs.claim([ORPHAN_SWEEP_JOB]);
    expect(claimed?.type).toBe(ORPHAN_SWEEP_JOB);
    expect(await scheduleOrphanSweep(t.db, t.clock, t.clock.now() + interval)).toBe(false);
    // That node dies: after the lease another claims the job and runs it.
    t.clock.advance(t.config.jobLeaseSeconds + 1);
    const key = await stray(`originals/${newGuid()}`);
    expect(await t.app.jobs.runDue()).toBe(1);
    // The app's clock is years ahead of the store's times: every leftover is past the grace.
    expect(await isStored(t, key)).toBe(false);
    const next = await pending();
    expect(next).toHaveLength(1);
    expect(next[0].status).toBe('pending');
    expect(Number(next[0].run_at)).toBe(t.clock.now() + interval);
    expect(next[0].jobid).not.toBe(claimed!.jobid);
    const done = await t.db.selectFrom('jobs').select('status').where('jobid', '=', claimed!.jobid).executeTakeFirstOrThrow();
    expect(done.status).toBe('done');

    // Each run schedules the next one; never two waiting.
    for (let i = 0; i < 2; i++) {
      expect(await t.app.jobs.runDue()).toBe(0);
      t.clock.advance(interval);
      expect(await t.app.jobs.runDue()).toBe(1);
      expect(await pending()).toHaveLength(1);
    }
  }, 60_000);
});

describe('npm run media:sweep', () => {
  const run = promisify(execFile);
  /** The CLI's environment: the test app's database and storage. */
  function env(): NodeJS.ProcessEnv {
    const s = t.config.storage;
    const key = 'k'.repeat(40);
    return {
      PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: t.config.databaseUrl, DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent',
      ...(s.kind === 's3' ? {
        MEDIA_STORAGE: 's3', S3_BUCKET: s.bucket, S3_ENDPOINT: s.endpoint ?? '', S3_REGION: s.region, S3_FORCE_PATH_STYLE: 'true', S3_PREFIX: s.prefix,
        AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
        MEDIA_URL_SECRET: key, WEBHOOK_SECRETS_KEY: key, AUDIT_CHAIN_KEY: key,
      } : {}),
    };
  }

  it('--dry-run reports the unreferenced files and deletes none', async () => {
    // Written before the CLI starts: older than a grace of 0 once it runs (its start takes seconds).
    const key = await stray(`originals/${newGuid()}`);
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/storage/sweep-cli.ts', '--dry-run', '--grace', '0'], { cwd: REPO, env: env(), timeout: 120_000 });
    const lines = stdout.trim().split('\n');
    const summary = JSON.parse(lines[lines.length - 1]);
    expect(summary).toMatchObject({ dryRun: true, graceSeconds: 0 });
    expect(summary.scanned).toBeGreaterThan(0);
    expect(summary.deleted).toBeGreaterThanOrEqual(1);
    expect(stderr).toContain('media:sweep: dry run');
    expect(await isStored(t, key)).toBe(true);
  }, 120_000);

  it('refuses a bad argument with 64', async () => {
    const err = await run(process.execPath, ['--import', 'tsx', 'src/storage/sweep-cli.ts', '--grace', 'soon'], { cwd: REPO, env: env(), timeout: 120_000 }).catch((e) => e);
    expect(err.code).toBe(64);
    expect(err.stderr).toContain('--grace must be a number of seconds');
  }, 120_000);
});

it('MEDIA_ORPHAN_GRACE_S: a day by default, at least an hour', () => {
  expect(loadConfig({}).mediaOrphanGraceS).toBe(86_400);
  expect(loadConfig({ MEDIA_ORPHAN_GRACE_S: '7200' }).mediaOrphanGraceS).toBe(7200);
  expect(orphanSweepInterval({ mediaOrphanGraceS: 7200 })).toBe(300);
  for (const bad of ['60', '-1', 'a day']) expect(() => loadConfig({ MEDIA_ORPHAN_GRACE_S: bad })).toThrow(/MEDIA_ORPHAN_GRACE_S must be an integer of at least 3600/);
});

it('covers both namespaces', () => {
  expect(new Set(rules.map((r) => r.namespace))).toEqual(new Set(NAMESPACES));
  expect(testStorageIsS3() ? t.config.storage.kind : 'fs').toBe(t.config.storage.kind);
});
