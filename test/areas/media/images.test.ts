import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeUser, type TestUser } from '../../helpers/factories.js';
import { expectedSize, getFile, jpegWithExif, makeImage, solid, VARIANTS } from '../../helpers/factories/media.js';
import { loadImageDetails } from '../../../src/areas/media/media-records.js';
import { loadImageObjects } from '../../../src/areas/media/image-object.js';

let user: TestUser;
const t = appForFile({}, async () => {
  user = await makeUser(t);
});


describe('size variants', () => {
  it('every variant URL of a JPEG serves a JPEG of the stated size, cached for long', async () => {
    const item = await makeImage(t, user, await solid(1000, 750, { r: 30, g: 90, b: 160 }, 'jpeg'), 'board.jpg');
    expect(Object.keys(item.image.image).sort()).toEqual(['id', 'guid', ...VARIANTS].sort());
    for (const v of VARIANTS) {
      const url = item.image.image[v];
      expect(url).toMatch(new RegExp(`^${t.config.publicUrl}/files/images/${item.guid}\\.${v}\\?exp=\\d+&sig=[\\w-]{32}$`));
      const res = await getFile(t, url);
      expect(res.statusCode, v).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      // In no public content: the browser's cache only, for as long as the signature lasts.
      expect(res.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
      const meta = await sharp(res.rawPayload).metadata();
      expect(meta.format, v).toBe('jpeg');
      expect([meta.width, meta.height], v).toEqual(expectedSize(v, 1000, 750));
    }
  });

  it('cover variants are cut to their box, inside variants keep the ratio and are never enlarged', async () => {
    const item = await makeImage(t, user, await solid(500, 200, { r: 0, g: 200, b: 0 }, 'png'), 'wide.png');
    for (const v of VARIANTS) {
      const res = await getFile(t, item.image.image[v]);
      expect(res.headers['content-type']).toBe('image/png');
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height], v).toEqual(expectedSize(v, 500, 200));
    }
    // standard: 300x120 (scaled), large: 500x200 (not enlarged), 440x330: exact box
    expect(expectedSize('standard', 500, 200)).toEqual([300, 120]);
    expect(expectedSize('large', 500, 200)).toEqual([500, 200]);
  });

  it('makes a variant once and keeps it; answers 304 to a matching If-None-Match; HEAD works', async () => {
    const item = await makeImage(t, user);
    const url = item.image.image.medium;
    const first = await getFile(t, url);
    const second = await getFile(t, url);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(first.headers.etag).toBe(`"${item.guid}.medium"`);
    const cached = await getFile(t, url, { 'if-none-match': String(first.headers.etag) });
    expect(cached.statusCode).toBe(304);
    const head = await t.app.inject({ method: 'HEAD', url: url.replace(t.config.publicUrl, '') });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(first.rawPayload.length);
  });

  it('GIF variants are PNG stills; WebP stays WebP; the original is served as uploaded', async () => {
    const gif = await solid(120, 90, { r: 255, g: 0, b: 0 }, 'gif');
    const item = await makeImage(t, user, gif, 'anim.gif');
    const thumb = await getFile(t, item.image.image.thumbnail);
    expect(thumb.headers['content-type']).toBe('image/png');
    const orig = await getFile(t, item.image.image.original);
    expect(orig.headers['content-type']).toBe('image/gif');
    expect(orig.rawPayload.equals(gif)).toBe(true);
    const webp = await makeImage(t, user, await solid(120, 90, { r: 0, g: 0, b: 255 }, 'webp'), 'x.webp');
    expect((await getFile(t, webp.image.image.standard)).headers['content-type']).toBe('image/webp');
  });

  it('turns an image with an EXIF orientation upright: record and variants as displayed', async () => {
    // 200x100 stored, orientation 6 (rotate 90° clockwise to display): displayed 100x200.
    const item = await makeImage(t, user, await jpegWithExif(200, 100, 6), 'phone.jpg');
    expect(item.image).toMatchObject({ width: 100, height: 200 });
    for (const v of ['original', 'large', 'standard']) {
      const meta = await sharp((await getFile(t, item.image.image[v])).rawPayload).metadata();
      expect([meta.width, meta.height], v).toEqual(expectedSize(v, 100, 200));
      expect(meta.orientation ?? 1).toBe(1);
    }
  });

  it('404 for an unknown GUID, an unknown variant, or a malformed name', async () => {
    const item = await makeImage(t, user);
    for (const path of [`/files/images/AAAAAAAAAAAAAAAA.large`, `/files/images/${item.guid}.gigantic`, `/files/images/${item.guid}`, `/files/images/..%2F..%2Fetc.large`]) {
      expect((await t.app.inject({ method: 'GET', url: path })).statusCode, path).toBe(404);
    }
  });
});

describe('GET /media/images/{imageid or GUID}', () => {
  it('answers the image detail record by id and by GUID, with the EXIF record', async () => {
    const data = await jpegWithExif(640, 480);
    const item = await makeImage(t, user, data, 'camera.jpg');
    const byId = await t.get(`/media/images/${item.id}`, { token: user.token });
    expect(byId.statusCode).toBe(200);
    const rec = byId.json();
    expect(Object.keys(rec).sort()).toEqual(['exif', 'height', 'image', 'markup', 'ratio', 'srcid', 'width']);
    expect(rec).toMatchObject({ width: 640, height: 480, ratio: 'FOUR_THREE', srcid: null, markup: null });
    expect(rec.image).toMatchObject({ id: item.id, guid: item.guid });
    expect(rec.exif).toMatchObject({
      FileName: 'camera.jpg', FileDateTime: t.clock.now(), FileSize: data.length, FileType: 2, MimeType: 'image/jpeg',
      Make: 'Acme', Model: 'Cam 1', DateTime: '2024:05:06 07:08:09', DateTimeOriginal: '2024:05:06 07:08:09', FNumber: 2.8,
      COMPUTED: { html: 'width="640" height="480"', Width: 640, Height: 480, IsColor: 1, ApertureFNumber: 'f/2.8' },
    });
    expect(rec.exif.SectionsFound).toMatch(/^ANY_TAG, IFD0.*EXIF/);
    const byGuid = await t.get(`/media/images/${item.guid}`, { token: user.token });
    expect(byGuid.json()).toEqual(rec);
  });

  it('VARIABLE ratio when not 4:3; an image without EXIF tags still has the file block', async () => {
    const item = await makeImage(t, user, await solid(300, 100, { r: 1, g: 2, b: 3 }, 'png'), 'strip.png');
    const rec = (await t.get(`/media/images/${item.id}`, { token: user.token })).json();
    expect(rec.ratio).toBe('VARIABLE');
    expect(rec.exif).toMatchObject({ FileName: 'strip.png', FileType: 3, MimeType: 'image/png', SectionsFound: '', COMPUTED: { Width: 300, Height: 100 } });
  });

  it('an image with no EXIF record (made outside uploads) has exif []', async () => {
    const row = await t.db.insertInto('images').values({ guid: 'plainImageRow0001', userid: user.userid, width: 4, height: 3, mime: 'image/jpeg', created_date: 1 }).returning('imageid').executeTakeFirstOrThrow();
    const rec = (await t.get(`/media/images/${row.imageid}`, { token: user.token })).json();
    expect(rec.exif).toEqual([]);
    expect(rec.ratio).toBe('FOUR_THREE');
  });

  it('404 for an unknown id or GUID', async () => {
    expect((await t.get('/media/images/999999')).statusCode).toBe(404);
    expect((await t.get('/media/images/ZZZZZZZZZZZZZZZZ')).statusCode).toBe(404);
    expect((await t.get('/media/images/not-a-guid')).statusCode).toBe(404);
    expect((await t.get('/media/images/0')).statusCode).toBe(404);
  });
});

describe('contracts other areas call', () => {
  it('loadImageDetails and loadImageObjects answer maps, in batches, for many ids at once', async () => {
    const a = await makeImage(t, user);
    const b = await makeImage(t, user);
    const details = await loadImageDetails(t.db, t.config, [a.id, b.id, a.id, 999999, null]);
    expect([...details.keys()].sort()).toEqual([a.id, b.id].sort());
    expect(details.get(a.id)!.image.guid).toBe(a.guid);
    const forComments = await loadImageDetails(t.db, t.config, [a.id], { forComments: true });
    expect(forComments.get(a.id)).toMatchObject({ encoding: 'jpeg', markupState: null });
    const objects = await loadImageObjects(t.db, t.config, [a.id, b.id]);
    expect(objects.get(b.id)).toEqual(b.image.image);
  });
});

describe('the markup resolver for [image|ID] and [video|ID]', () => {
  it('resolves image embeds to a variant URL with its size; unknown ids to null', async () => {
    const { loadMediaResolver } = await import('../../../src/areas/media/media-resolver.js');
    const img = await makeImage(t, user, await solid(1000, 500, { r: 1, g: 1, b: 1 }, 'jpeg'));
    const r = await loadMediaResolver(t.db, t.config, { images: [img.id, 999999], videos: [999999] });
    expect(r.image(img.id, 'medium')).toEqual({ src: img.image.image.medium, width: 592, height: 296 });
    expect(r.image(img.id, 'nonsense')).toEqual({ src: img.image.image.standard, width: 300, height: 150 });
    expect(r.image(999999, 'medium')).toBeNull();
    expect(r.video(999999)).toBeNull();
  });
});
