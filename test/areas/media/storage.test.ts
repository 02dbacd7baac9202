// Storage: a per-user quota (originals, size variants and video encodings count), an
// hourly upload rate (Admins exempt; their own quota), clear 413 and 429 answers that
// store nothing, and a deleted item's space freed at once, not behind the job queue.
import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser } from '../../helpers/factories.js';
import { getFile, isStored, makeImage, minimalPdf, testVideo, upload } from '../../helpers/factories/media.js';
import { storageUsed } from '../../../src/areas/media/media.storage.js';

const PDF = minimalPdf();

describe('the storage quota', () => {
  const t = appForFile({ config: { mediaQuotaBytes: PDF.length * 3 + 10 } });

  it('an upload that would pass the quota is a 413 naming it, and stores nothing', async () => {
    const u = await makeUser(t);
    for (let i = 0; i < 3; i++) expect((await upload(t, u, PDF, `doc${i}.pdf`)).statusCode).toBe(200);
    const docs = await t.db.selectFrom('documents').select('documentid').where('userid', '=', u.userid).execute();
    const res = await upload(t, u, PDF, 'one-too-many.pdf');
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'quota_exceeded' });
    expect(res.json().message).toContain(`of your ${PDF.length * 3 + 10} bytes`);
    expect(await t.db.selectFrom('documents').select('documentid').where('userid', '=', u.userid).execute()).toEqual(docs);
    // Another user has their own quota.
    expect((await upload(t, await makeUser(t), PDF, 'mine.pdf')).statusCode).toBe(200);
  });

  it('Admins have their own quota (none by default)', async () => {
    const admin = await makeAdmin(t);
    for (let i = 0; i < 5; i++) expect((await upload(t, admin, PDF, `a${i}.pdf`)).statusCode).toBe(200);
  });

  it('deleting frees the space at once; the file stays for MEDIA_DELETE_GRACE_S, then the purge job deletes it', async () => {
    const u = await makeUser(t);
    const items = [];
    for (let i = 0; i < 3; i++) items.push((await upload(t, u, PDF, `d${i}.pdf`)).json());
    expect((await upload(t, u, PDF, 'full.pdf')).statusCode).toBe(413);
    const key = `originals/${items[0].guid}`;
    expect(await isStored(t, key)).toBe(true);
    expect((await t.del(`/user/media/Document/${items[0].id}`, { token: u.token })).statusCode).toBe(204);
    expect((await upload(t, u, PDF, 'fits-again.pdf')).statusCode).toBe(200);
    // A backup taken during the grace period finds the file its rows might name.
    t.clock.advance(t.config.mediaDeleteGraceS - 10);
    await t.app.jobs.runDue();
    expect(await isStored(t, key)).toBe(true);
    t.clock.advance(10);
    await t.app.jobs.runDue();
    expect(await isStored(t, key)).toBe(false);
    expect(await isStored(t, `originals/${items[1].guid}`)).toBe(true);
  });
});

describe('what counts against the quota', () => {
  const t = appForFile();

  it('image size variants count once they are made', async () => {
    const u = await makeUser(t);
    const img = await makeImage(t, u);
    const before = await storageUsed(t.db, u.userid);
    expect(before).toBe(img.size);
    const large = await getFile(t, img.image.image.large);
    const thumb = await getFile(t, img.image.image.thumbnail);
    expect(await storageUsed(t.db, u.userid)).toBe(before + large.rawPayload.length + thumb.rawPayload.length);
    // Served again from the store: counted once.
    await getFile(t, img.image.image.large);
    expect(await storageUsed(t.db, u.userid)).toBe(before + large.rawPayload.length + thumb.rawPayload.length);
  });

  it('video encodings and the poster count, and a full quota refuses the next upload', async () => {
    const u = await makeUser(t);
    const data = testVideo('mp4');
    const item = (await upload(t, u, data, 'clip.mp4')).json();
    await t.app.jobs.runDue();
    const encodings = await t.db.selectFrom('video_encodings').select('size').where('videoid', '=', item.id).execute();
    expect(encodings.length).toBe(2);
    const poster = await t.db.selectFrom('images').select('size').where('userid', '=', u.userid).executeTakeFirstOrThrow();
    const used = await storageUsed(t.db, u.userid);
    expect(used).toBe(data.length + encodings.reduce((n, e) => n + e.size, 0) + poster.size);
    const tight = await buildTestApp({ config: { mediaQuotaBytes: used } });
    try {
      const v = await makeUser(tight);
      expect((await upload(tight, v, data, 'clip.mp4')).statusCode).toBe(200);
      await tight.app.jobs.runDue();
      const res = await upload(tight, v, PDF, 'small.pdf');
      expect(res.statusCode).toBe(413);
      expect(res.json().message).toContain(`take ${used} of your ${used} bytes`);
    } finally {
      await tight.close();
    }
  });
});

describe('the upload rate', () => {
  const t = appForFile({ config: { mediaUploadsPerHour: 3 } });

  it('past the hourly number of uploads: 429 with Retry-After, nothing stored; an hour later it works again', async () => {
    const u = await makeUser(t);
    // A refused upload stores nothing and does not count.
    expect((await upload(t, u, 'not a file of any accepted kind', 'x.txt')).statusCode).toBe(422);
    expect(await t.db.selectFrom('media_uploads').select('uploadid').where('userid', '=', u.userid).execute()).toEqual([]);
    for (let i = 0; i < 3; i++) expect((await upload(t, u, PDF, `r${i}.pdf`)).statusCode).toBe(200);
    t.clock.advance(600);
    const res = await upload(t, u, PDF, 'r3.pdf');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'rate_limited' });
    expect(res.json().message).toContain('3 files an hour');
    expect(res.headers['retry-after']).toBe(String(3600 - 600));
    expect(await t.db.selectFrom('documents').select('documentid').where('userid', '=', u.userid).execute()).toHaveLength(3);
    t.clock.advance(3000);
    expect((await upload(t, u, PDF, 'r4.pdf')).statusCode).toBe(200);
  });

  it('Admins are not rate limited', async () => {
    const admin = await makeAdmin(t);
    for (let i = 0; i < 5; i++) expect((await upload(t, admin, PDF, `adm${i}.pdf`)).statusCode).toBe(200);
  });
});

describe('GET /user/media/constraints tells the caller their limits and standing', () => {
  const t = appForFile({ config: { mediaQuotaBytes: 1_000_000, mediaUploadsPerHour: 7, videoMaxSeconds: 90, videoMaxDimension: 1280, videoMaxStreams: 3 } });

  it('the video limits, and the quota and upload rate with what the caller has used of them', async () => {
    const u = await makeUser(t);
    let c = (await t.get('/user/media/constraints', { token: u.token })).json();
    expect(c.GuideVideoObject).toMatchObject({ maxSeconds: 90, maxDimension: 1280, maxStreams: 3 });
    const fresh = { quotaBytes: 1_000_000, usedBytes: 0, remainingBytes: 1_000_000, uploadsPerHour: 7, uploadsLastHour: 0 };
    for (const name of ['GuideImage', 'GuideVideoObject', 'Document']) expect(c[name].account, name).toEqual(fresh);
    expect(c.GuideEmbedObject.account).toBeUndefined();

    expect((await upload(t, u, PDF, 'one.pdf')).statusCode).toBe(200);
    c = (await t.get('/user/media/constraints?name=Document', { token: u.token })).json();
    expect(c.Document.account).toEqual({ quotaBytes: 1_000_000, usedBytes: PDF.length, remainingBytes: 1_000_000 - PDF.length, uploadsPerHour: 7, uploadsLastHour: 1 });
    // An hour later the upload no longer counts against the rate; the bytes still do.
    t.clock.advance(3601);
    c = (await t.get('/user/media/constraints?name=Document', { token: u.token })).json();
    expect(c.Document.account).toMatchObject({ usedBytes: PDF.length, uploadsLastHour: 0 });
    // Admins: no rate, no quota by default.
    c = (await t.get('/user/media/constraints?name=Document', { token: (await makeAdmin(t)).token })).json();
    expect(c.Document.account).toMatchObject({ quotaBytes: null, remainingBytes: null, uploadsPerHour: null });
  });
});
