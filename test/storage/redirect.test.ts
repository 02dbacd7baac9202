// MEDIA_URL_MODE=redirect: a media URL answers 302 to a presigned URL of the bucket (after
// the same access check as a streamed answer), valid for MEDIA_URL_TTL from the app's
// clock; the bucket answers with the file's type, and `attachment` for documents. The same
// files in app mode stream through the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeUser, type TestUser } from '../helpers/factories.js';
import { getFile, makeImage, minimalPdf, upload } from '../helpers/factories/media.js';
import { testBucket } from '../helpers/s3.js';

let bucket: Awaited<ReturnType<typeof testBucket>>;
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  bucket = await testBucket();
  t = await buildTestApp({ config: { storage: bucket.storage, mediaUrlMode: 'redirect', mediaUrlTtl: 3600 } });
  // Presigned URLs are checked by the bucket against the real time.
  t.clock.set(Math.floor(Date.now() / 1000));
  user = await makeUser(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await bucket?.release();
});

async function followed(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('MEDIA_URL_MODE=redirect', () => {
  it('redirects an image variant (made first) and the original to the bucket, shown inline', async () => {
    const img = await makeImage(t, user);
    const res = await getFile(t, img.image.image.thumbnail);
    expect(res.statusCode).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const location = String(res.headers.location);
    expect(location.startsWith(bucket.storage.endpoint)).toBe(true);
    expect(location).toMatch(/X-Amz-Expires=3600/);
    const got = await followed(location);
    expect(got.status).toBe(200);
    expect(got.type).toBe('image/jpeg');
    expect(got.disposition).toBeNull();
    const meta = await (await import('sharp')).default(got.body).metadata();
    expect([meta.width, meta.height]).toEqual([96, 72]);
    const original = await followed(String((await getFile(t, img.image.image.original)).headers.location));
    expect(original.status).toBe(200);
    expect(original.body.length).toBe(img.size);
  });

  it('redirects a document with Content-Disposition: attachment', async () => {
    const doc = (await upload(t, user, minimalPdf(), 'report q3.pdf')).json();
    const res = await getFile(t, doc.document.url);
    expect(res.statusCode).toBe(302);
    const got = await followed(String(res.headers.location));
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/pdf');
    expect(got.disposition).toBe('attachment; filename="report q3.pdf"');
    expect(got.body.equals(minimalPdf())).toBe(true);
  });

  it('checks access before redirecting: no signature, no redirect', async () => {
    const doc = (await upload(t, user, minimalPdf(), 'private.pdf')).json();
    const unsigned = doc.document.url.replace(/\?.*$/, '');
    expect((await getFile(t, unsigned)).statusCode).toBe(404);
  });

  it('a presigned URL expires with MEDIA_URL_TTL', async () => {
    const doc = (await upload(t, user, minimalPdf(), 'old.pdf')).json();
    const now = Math.floor(Date.now() / 1000);
    // Signed by a clock an hour and a minute behind: its hour is over.
    t.clock.set(now - 3660);
    const fresh = (await t.get(`/user/media/Document/${doc.id}`, { token: user.token })).json();
    const res = await getFile(t, fresh.document.url);
    t.clock.set(now);
    expect(res.statusCode).toBe(302);
    expect((await followed(String(res.headers.location))).status).toBe(403);
  });
});
