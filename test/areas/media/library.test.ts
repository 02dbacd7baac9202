import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { getFile, hasFfmpeg, isStored, makeImage, minimalPdf, solid, storedKeys, testVideo, upload } from '../../helpers/factories/media.js';
import type { MediaUsageCheck } from '../../../src/areas/media/media-usage.js';

const ITEM_FIELDS = ['created_date', 'filename', 'guid', 'id', 'isReady', 'kind', 'mime', 'size', 'state', 'type'];

let owner: TestUser;
let other: TestUser;
let admin: TestUser;
const t = appForFile({}, async () => {
  owner = await makeUser(t);
  other = await makeUser(t);
  admin = await makeAdmin(t);
});

async function makeDoc(u: TestUser) {
  return (await upload(t, u, minimalPdf(), 'doc.pdf')).json();
}
async function makeEmbed(u: TestUser, url = 'https://video.example.com/watch/123') {
  const res = await t.post('/user/media/embeds', { token: u.token, body: { url, title: 'A video', width: 640, height: 360 } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

describe('GET /user/media/current', () => {
  it('lists the user\'s items of every kind, newest first, paged and filterable by type', async () => {
    const u = await makeUser(t);
    const img = await makeImage(t, u);
    t.clock.advance(1);
    const doc = await makeDoc(u);
    t.clock.advance(1);
    const emb = await makeEmbed(u);
    await makeImage(t, other); // someone else's

    const res = await t.get('/user/media/current', { token: u.token });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((i: { type: string; id: number }) => [i.type, i.id])).toEqual([['GuideEmbedObject', emb.id], ['Document', doc.id], ['GuideImage', img.id]]);
    expect(Object.keys(list[2]).sort()).toEqual([...ITEM_FIELDS, 'image'].sort());
    expect(Object.keys(list[1]).sort()).toEqual([...ITEM_FIELDS, 'document'].sort());
    expect(Object.keys(list[0]).sort()).toEqual([...ITEM_FIELDS, 'embed'].sort());
    expect(list[0].embed).toMatchObject({ url: 'https://video.example.com/watch/123', provider: 'video.example.com', title: 'A video', width: 640, height: 360 });

    const asc = (await t.get('/user/media/current?order=ASC&limit=2', { token: u.token })).json();
    expect(asc.map((i: { id: number }) => i.id)).toEqual([img.id, doc.id]);
    const page2 = (await t.get('/user/media/current?order=ASC&limit=2&offset=2', { token: u.token })).json();
    expect(page2.map((i: { id: number }) => i.id)).toEqual([emb.id]);
    const docs = (await t.get('/user/media/current?type=Document', { token: u.token })).json();
    expect(docs.map((i: { id: number }) => i.id)).toEqual([doc.id]);
  });

  it('422 for a bad type filter or paging; 401 without a token', async () => {
    const bad = await t.get('/user/media/current?type=Photo', { token: owner.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/GuideImage, GuideVideoObject, GuideEmbedObject, Document/);
    expect((await t.get('/user/media/current?limit=0', { token: owner.token })).statusCode).toBe(422);
    expect((await t.get('/user/media/current?limit=201', { token: owner.token })).statusCode).toBe(422);
    expect((await t.get('/user/media/current?offset=-1', { token: owner.token })).statusCode).toBe(422);
    expect((await t.get('/user/media/current')).statusCode).toBe(401);
  });
});

describe('GET /user/media/images and /user/media/videos', () => {
  it('answer arrays of image and video detail records of the user\'s library', async () => {
    const u = await makeUser(t);
    const a = await makeImage(t, u);
    const b = await makeImage(t, u);
    await makeDoc(u);
    const res = await t.get('/user/media/images', { token: u.token });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((d: { image: { id: number } }) => d.image.id)).toEqual([b.id, a.id]);
    expect(Object.keys(list[0]).sort()).toEqual(['exif', 'height', 'image', 'markup', 'ratio', 'srcid', 'width']);
    expect((await t.get('/user/media/images?order=ASC&limit=1', { token: u.token })).json().map((d: { image: { id: number } }) => d.image.id)).toEqual([a.id]);
    // With ffprobe an upload must really be a video; without it a full ftyp signature passes.
    const mp4 = hasFfmpeg ? testVideo('mp4') : Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64, 1)]);
    const v = (await upload(t, u, mp4, 'v.mp4')).json();
    const videos = (await t.get('/user/media/videos', { token: u.token })).json();
    expect(videos.map((x: { videoid: number }) => x.videoid)).toEqual([v.id]);
    expect(videos[0]).toMatchObject({ filename: 'v.mp4', encodings: [], meta: { state: 'queued' } });
    expect((await t.get('/user/media/images')).statusCode).toBe(401);
    expect((await t.get('/user/media/videos?limit=500', { token: u.token })).statusCode).toBe(422);
  });
});

describe('GET /user/media/{type}/{itemId}', () => {
  it('answers the item and its readiness to the owner and to an Admin', async () => {
    const img = await makeImage(t, owner);
    const mine = await t.get(`/user/media/GuideImage/${img.id}`, { token: owner.token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual(img);
    expect((await t.get(`/user/media/GuideImage/${img.id}`, { token: admin.token })).statusCode).toBe(200);
    const doc = await makeDoc(owner);
    expect((await t.get(`/user/media/Document/${doc.id}`, { token: owner.token })).json()).toMatchObject({ isReady: true, type: 'Document' });
    const emb = await makeEmbed(owner);
    expect((await t.get(`/user/media/GuideEmbedObject/${emb.id}`, { token: owner.token })).json()).toMatchObject({ isReady: true, type: 'GuideEmbedObject' });
  });

  it('403 for another user, 404 for an unknown item or a wrong type, 422 for an unknown type, 401 without a token', async () => {
    const img = await makeImage(t, owner);
    expect((await t.get(`/user/media/GuideImage/${img.id}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.get(`/user/media/GuideImage/999999`, { token: owner.token })).statusCode).toBe(404);
    expect((await t.get(`/user/media/Document/${img.id}`, { token: owner.token })).statusCode).toBe(404);
    const bad = await t.get(`/user/media/Photo/${img.id}`, { token: owner.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('type');
    expect(bad.json().message).toMatch(/GuideImage, GuideVideoObject, GuideEmbedObject, Document/);
    expect((await t.get(`/user/media/GuideImage/abc`, { token: owner.token })).statusCode).toBe(422);
    expect((await t.get(`/user/media/GuideImage/${img.id}`)).statusCode).toBe(401);
  });
});

describe('DELETE /user/media/{type}/{itemId}', () => {
  it('204; the record and its files are gone (the files once the purge job ran)', async () => {
    const img = await makeImage(t, owner);
    await getFile(t, img.image.image.large); // make a variant
    const res = await t.del(`/user/media/GuideImage/${img.id}`, { token: owner.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.get(`/media/images/${img.id}`)).statusCode).toBe(404);
    expect((await getFile(t, img.image.image.large)).statusCode).toBe(404);
    expect((await t.get(`/user/media/GuideImage/${img.id}`, { token: owner.token })).statusCode).toBe(404);
    // The files stay for MEDIA_DELETE_GRACE_S (a backup taken meanwhile stays whole), then the purge job deletes them.
    await t.app.jobs.runDue();
    expect(await isStored(t, `originals/${img.guid}`)).toBe(true);
    expect(await storedKeys(t, `variants/${img.guid}`)).toEqual([`variants/${img.guid}/large`]);
    t.clock.advance(t.config.mediaDeleteGraceS);
    await t.app.jobs.runDue();
    expect(await isStored(t, `originals/${img.guid}`)).toBe(false);
    expect(await storedKeys(t, `variants/${img.guid}`)).toEqual([]);
  });

  it('deletes documents and embeds; an Admin may delete anyone\'s item', async () => {
    const doc = await makeDoc(owner);
    expect((await t.del(`/user/media/Document/${doc.id}`, { token: admin.token })).statusCode).toBe(204);
    expect((await getFile(t, doc.document.url)).statusCode).toBe(404);
    const emb = await makeEmbed(owner);
    expect((await t.del(`/user/media/GuideEmbedObject/${emb.id}`, { token: owner.token })).statusCode).toBe(204);
    expect((await t.get(`/user/media/GuideEmbedObject/${emb.id}`, { token: owner.token })).statusCode).toBe(404);
  });

  it('422 in_use while content uses the item (registered checks; an avatar); deletable once unused', async () => {
    const img = await makeImage(t, owner);
    await t.db.updateTable('users').set({ imageid: img.id }).where('userid', '=', owner.userid).execute();
    const res = await t.del(`/user/media/GuideImage/${img.id}`, { token: owner.token });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'itemId', code: 'in_use' });
    expect(res.json().message).toContain(`user ${owner.userid}`);
    await t.db.updateTable('users').set({ imageid: null }).where('userid', '=', owner.userid).execute();

    // another area's check, as the guides area's `mediaUsages` slot adds its own
    const used = new Set<number>([img.id]);
    const check: MediaUsageCheck = async (_db, kind, id) => (kind === 'image' && used.has(id) ? [{ type: 'guide_step', id: 77 }] : []);
    (t.app.mediaUsages as MediaUsageCheck[]).push(check);
    const again = await t.del(`/user/media/GuideImage/${img.id}`, { token: owner.token });
    expect(again.statusCode).toBe(422);
    expect(again.json().message).toContain('guide_step 77');
    expect((await t.get(`/media/images/${img.id}`, { token: owner.token })).statusCode).toBe(200);
    used.clear();
    expect((await t.del(`/user/media/GuideImage/${img.id}`, { token: owner.token })).statusCode).toBe(204);
  });

  it('403 for another user, 404 unknown, 422 unknown type, 401 without a token', async () => {
    const img = await makeImage(t, owner);
    expect((await t.del(`/user/media/GuideImage/${img.id}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.del(`/user/media/GuideImage/999999`, { token: owner.token })).statusCode).toBe(404);
    expect((await t.del(`/user/media/Picture/${img.id}`, { token: owner.token })).statusCode).toBe(422);
    expect((await t.del(`/user/media/GuideImage/${img.id}`)).statusCode).toBe(401);
    expect((await t.get(`/media/images/${img.id}`, { token: owner.token })).statusCode).toBe(200);
  });
});

describe('POST /user/media/embeds', () => {
  it('422 for a URL that is not http(s); 401 without a token', async () => {
    for (const url of ['javascript:alert(1)', 'ftp://example.com/x', 'not a url at all']) {
      expect((await t.post('/user/media/embeds', { token: owner.token, body: { url } })).statusCode, url).toBe(422);
    }
    expect((await t.post('/user/media/embeds', { body: { url: 'https://example.com/x' } })).statusCode).toBe(401);
  });
});

describe('GET /user/media/constraints', () => {
  it('answers the limits per kind, filterable by name', async () => {
    const res = await t.get('/user/media/constraints', { token: owner.token });
    expect(res.statusCode).toBe(200);
    const c = res.json();
    expect(Object.keys(c)).toEqual(['GuideImage', 'GuideVideoObject', 'GuideEmbedObject', 'Document']);
    expect(c.GuideImage).toMatchObject({ name: 'GuideImage', kind: 'image', mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'], maxBytes: t.config.mediaMaxImageBytes, minWidth: 1, maxWidth: 16000 });
    expect(c.GuideImage.variants).toContainEqual({ name: '440x330', width: 440, height: 330, fit: 'cover' });
    expect(c.GuideImage.variants).toContainEqual({ name: 'huge', width: 1600, height: 1200, fit: 'inside' });
    expect(c.GuideImage.variants).toHaveLength(10);
    expect(c.GuideVideoObject).toMatchObject({ mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'], maxBytes: t.config.mediaMaxBytes, encodings: ['mp4', 'webm'] });
    expect(c.Document).toMatchObject({ mimeTypes: ['application/pdf'], maxBytes: t.config.mediaMaxDocumentBytes });
    const some = (await t.get('/user/media/constraints?name=Document,GuideImage', { token: owner.token })).json();
    expect(Object.keys(some)).toEqual(['GuideImage', 'Document']);
    const bad = await t.get('/user/media/constraints?name=Sound', { token: owner.token });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('name');
    expect((await t.get('/user/media/constraints')).statusCode).toBe(401);
  });
});

describe('upload then show', () => {
  it('an uploaded image is in the library at once', async () => {
    const u = await makeUser(t);
    const item = (await upload(t, u, await solid(8, 6, { r: 9, g: 9, b: 9 }), 'tiny.png')).json();
    expect((await t.get('/user/media/current', { token: u.token })).json()[0]).toEqual(item);
  });
});

describe('ids past the database\'s integers', () => {
  it('answer 404 or 422, never 500', async () => {
    expect((await t.get('/media/images/3000000000')).statusCode).toBe(404);
    expect((await t.get('/media/videos/99999999999999999999')).statusCode).toBe(404);
    expect((await t.get('/user/media/GuideImage/3000000000', { token: owner.token })).statusCode).toBe(422);
    expect((await t.del('/user/media/Document/3000000000', { token: owner.token })).statusCode).toBe(422);
    expect((await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: 3000000000, crop: { x: 0, y: 0, width: 1, height: 1 } } })).statusCode).toBe(422);
    expect((await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: 1, markup: { circles: [{ x: 1e300, y: 0, radius: 1 }] } } })).statusCode).toBe(422);
  });
});
