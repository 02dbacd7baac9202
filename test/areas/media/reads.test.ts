// Media reads: a library item is served (record and file) to its owner, to Admins, and to
// whoever may read content that shows it; files of anything else only through a signed,
// expiring URL, never to shared caches; a deleted item stops being served at once.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide } from '../../helpers/factories/guides.js';
import { getFile, makeImage, minimalPdf, testVideo, upload } from '../../helpers/factories/media.js';

let owner: TestUser;
let stranger: TestUser;
let admin: TestUser;
const t = appForFile({}, async () => {
  owner = await makeAuthor(t);
  stranger = await makeUser(t);
  admin = await makeAdmin(t);
});

const unsigned = (url: string) => url.replace(/\?.*$/, '');

describe('GET /media/images/{id} and /media/videos/{id}', () => {
  it('a library item is answered to its owner and to Admins only: 404 to anyone else, by id and by GUID', async () => {
    const img = await makeImage(t, owner, undefined, 'my-passport-scan.jpg');
    for (const path of [`/media/images/${img.id}`, `/media/images/${img.guid}`]) {
      for (const token of [undefined, stranger.token]) {
        const res = await t.get(path, { token });
        expect(res.statusCode, path).toBe(404);
        expect(res.body).not.toContain('my-passport-scan');
        expect(res.body).not.toContain(img.guid);
      }
      expect((await t.get(path, { token: owner.token })).statusCode).toBe(200);
      expect((await t.get(path, { token: admin.token })).statusCode).toBe(200);
    }
    const video = (await upload(t, owner, testVideo('mp4'), 'holiday.mp4')).json();
    expect((await t.get(`/media/videos/${video.id}`)).statusCode).toBe(404);
    expect((await t.get(`/media/videos/${video.guid}`, { token: stranger.token })).statusCode).toBe(404);
    expect((await t.get(`/media/videos/${video.id}`, { token: owner.token })).statusCode).toBe(200);
  });

  it('an item shown in a public guide is read by anyone; in a private guide by those who may read the guide', async () => {
    const img = await makeImage(t, owner);
    const hidden = await makeGuide(t, owner, { public: false });
    await addStep(t, owner, hidden, { media: { type: 'image', data: [img.id] } });
    expect((await t.get(`/media/images/${img.id}`)).statusCode).toBe(404);
    expect((await t.get(`/media/images/${img.id}`, { token: stranger.token })).statusCode).toBe(404);
    await t.put(`/guides/${hidden.guideid}/users/${stranger.userid}`, { token: owner.token });
    expect((await t.get(`/media/images/${img.id}`, { token: stranger.token })).statusCode).toBe(200);

    const shown = await makeImage(t, owner);
    await addStep(t, owner, await makeGuide(t, owner, { public: true }), { media: { type: 'image', data: [shown.id] } });
    expect((await t.get(`/media/images/${shown.id}`)).statusCode).toBe(200);
  });
});

describe('/files/...', () => {
  it('a library item\'s file needs the signed URL; it is private to the browser and expires', async () => {
    const img = await makeImage(t, owner);
    const url: string = img.image.image.original;
    expect(url).toMatch(/\?exp=\d+&sig=/);
    // Without the signature: as if it did not exist.
    const bare = await getFile(t, unsigned(url));
    expect(bare.statusCode).toBe(404);
    const signed = await getFile(t, url);
    expect(signed.statusCode).toBe(200);
    expect(signed.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    expect(Number(/max-age=(\d+)/.exec(String(signed.headers['cache-control']))![1])).toBeLessThanOrEqual(t.config.mediaUrlTtl);
    // A signature of another item, or a changed expiry, does not open it.
    const other = await makeImage(t, owner);
    expect((await getFile(t, unsigned(url) + new URL(other.image.image.original).search)).statusCode).toBe(403);
    const exp = Number(new URL(url).searchParams.get('exp'));
    expect((await getFile(t, url.replace(`exp=${exp}`, `exp=${exp + 3600}`))).statusCode).toBe(403);
    // It works for at least MEDIA_URL_TTL seconds, and not past its expiry.
    const start = t.clock.now();
    try {
      t.clock.advance(t.config.mediaUrlTtl);
      expect((await getFile(t, url)).statusCode).toBe(200);
      t.clock.set(exp);
      const late = await getFile(t, url);
      expect(late.statusCode).toBe(403);
      expect(late.json().code).toBe('expired_link');
      // A record read now carries a fresh URL that works.
      const fresh = (await t.get(`/media/images/${img.id}`, { token: owner.token })).json().image.original;
      expect(fresh).not.toBe(url);
      expect((await getFile(t, fresh)).statusCode).toBe(200);
    } finally {
      t.clock.set(start);
    }
  });

  it('a file in public content is served to anyone, and shared caches may keep it', async () => {
    const img = await makeImage(t, owner);
    const g = await addStep(t, owner, await makeGuide(t, owner, { public: true }), { media: { type: 'image', data: [img.id] } });
    const url: string = g.steps[0].media.data[0].standard;
    const res = await getFile(t, unsigned(url));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(res.headers['cache-control']).not.toContain('immutable');
  });

  it('a document attached to a private guide is not served without the signature', async () => {
    const doc = (await upload(t, owner, minimalPdf(), 'contract.pdf')).json();
    let g = await makeGuide(t, owner, { public: false });
    g = (await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: owner.token, body: { documents: [doc.id] } })).json();
    const url: string = g.documents[0].url;
    expect((await getFile(t, unsigned(url))).statusCode).toBe(404);
    expect((await getFile(t, url)).statusCode).toBe(200);
  });

  it('a deleted item stops being served at once, before its files are purged', async () => {
    const img = await makeImage(t, owner);
    const url: string = img.image.image.original;
    expect((await getFile(t, url)).statusCode).toBe(200);
    expect((await t.del(`/user/media/GuideImage/${img.id}`, { token: owner.token })).statusCode).toBe(204);
    expect((await getFile(t, url)).statusCode).toBe(404);
    expect((await t.get(`/media/images/${img.id}`, { token: owner.token })).statusCode).toBe(404);
  });
});
