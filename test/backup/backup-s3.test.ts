// Backups of a site whose files live in a bucket (MEDIA_STORAGE=s3, the test S3 server): by
// default the snapshot lists the bucket's objects (the database and keys are copied), and
// a restore checks they are in the bucket it will use; with `copyObjects` it copies them,
// and a restore puts them into an empty bucket, byte for byte, or under DATA_DIR.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupSite, restoreSite } from '../../src/backup/backup.js';
import { makeStore, NAMESPACES } from '../../src/storage/blob-store.js';
import type { Config } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/factories.js';
import { makeImage } from '../helpers/factories/media.js';
import { testBucket } from '../helpers/s3.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';

const scratch = scratchDatabases('backups3');
const dir = mkdtempSync(join(tmpdir(), 'cp-backup-s3-'));
const buckets: Array<{ release(): Promise<void> }> = [];
let t: TestApp;

beforeAll(async () => {
  const bucket = await testBucket('site/');
  buckets.push(bucket);
  t = await buildTestApp({ sqliteFile: join(dir, 'site.sqlite'), config: { storage: bucket.storage } });
  const user = await makeUser(t);
  await makeImage(t, user);
  await makeImage(t, user, undefined, 'second.jpg');
}, 120_000);

afterAll(async () => {
  await t?.close();
  for (const b of buckets) await b.release();
  rmSync(dir, { recursive: true, force: true });
});

/** Every object of every namespace of a site's storage, with its bytes. */
async function objectsOf(config: Pick<Config, 'dataDir' | 'storage'>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const namespace of NAMESPACES) {
    const store = makeStore(config, namespace);
    for await (const { key } of store.list()) {
      const chunks: Buffer[] = [];
      for await (const chunk of (await store.get(key))!) chunks.push(chunk as Buffer);
      out[`${namespace}/${key}`] = Buffer.concat(chunks).toString('base64');
    }
  }
  return out;
}

const quiet = () => {};

describe('backups with object storage', () => {
  it('lists the objects by default; a restore on another bucket is refused, naming what is missing; on the same bucket it checks them', async () => {
    const source = await objectsOf(t.config);
    expect(Object.keys(source).length).toBeGreaterThanOrEqual(2);
    const manifest = await backupSite(t.config, join(dir, 'listed'), quiet);
    expect(manifest.storage).toBe('s3');
    expect(manifest.files).toEqual([]);
    expect(manifest.objects!.map((o) => o.path).sort()).toEqual(Object.keys(source).sort());

    const other = await testBucket();
    buckets.push(other);
    const elsewhere = { ...t.config, databaseUrl: await scratch.newDatabase('listed_other'), dataDir: join(dir, 'listed-other-data'), storage: other.storage };
    await expect(restoreSite(elsewhere, join(dir, 'listed'), quiet)).rejects.toThrow(/objects the backup lists are missing from the bucket/);
    const onFs = { ...t.config, databaseUrl: await scratch.newDatabase('listed_fs'), dataDir: join(dir, 'listed-fs-data'), storage: { kind: 'fs' as const } };
    await expect(restoreSite(onFs, join(dir, 'listed'), quiet)).rejects.toThrow(/--copy-objects/);

    const sameBucket = { ...t.config, databaseUrl: await scratch.newDatabase('listed_same'), dataDir: join(dir, 'listed-same-data') };
    const restored = await restoreSite(sameBucket, join(dir, 'listed'), quiet);
    expect(restored.objects!.length).toBe(Object.keys(source).length);
  }, 120_000);

  it('with copyObjects, copies every object; a restore puts them into an empty bucket byte for byte, or under DATA_DIR', async () => {
    const source = await objectsOf(t.config);
    const manifest = await backupSite(t.config, join(dir, 'copied'), quiet, { copyObjects: true });
    expect(manifest.objects).toBeUndefined();
    expect(manifest.files.map((f) => f.path).sort()).toEqual(Object.keys(source).sort());

    const target = await testBucket('restored/');
    buckets.push(target);
    const intoBucket = { ...t.config, databaseUrl: await scratch.newDatabase('copied_s3'), dataDir: join(dir, 'copied-s3-data'), storage: target.storage };
    await restoreSite(intoBucket, join(dir, 'copied'), quiet);
    expect(await objectsOf(intoBucket)).toEqual(source);
    // Not over a bucket that holds files already.
    const again = { ...intoBucket, databaseUrl: await scratch.newDatabase('copied_again') };
    await expect(restoreSite(again, join(dir, 'copied'), quiet)).rejects.toThrow(/bucket already holds stored files/);

    const intoFs = { ...t.config, databaseUrl: await scratch.newDatabase('copied_fs'), dataDir: join(dir, 'copied-fs-data'), storage: { kind: 'fs' as const } };
    await restoreSite(intoFs, join(dir, 'copied'), quiet);
    expect(await objectsOf(intoFs)).toEqual(source);
  }, 120_000);

  it('copyObjects is refused on the filesystem, where every file is copied anyway', async () => {
    const fs = await buildTestApp({ sqliteFile: join(dir, 'fs.sqlite'), config: { storage: { kind: 'fs' } } });
    try {
      await expect(backupSite(fs.config, join(dir, 'fs-copy'), quiet, { copyObjects: true })).rejects.toThrow(/--copy-objects is for MEDIA_STORAGE=s3/);
    } finally {
      await fs.close();
    }
  });
});
