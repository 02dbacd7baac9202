import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { getFile, makeImage, quadrants, solid } from '../../helpers/factories/media.js';

let owner: TestUser;
let other: TestUser;
let admin: TestUser;
let quad: { id: number; guid: string; image: { image: Record<string, string> } };
let white: { id: number; guid: string };
const t = appForFile({}, async () => {
  owner = await makeUser(t);
  other = await makeUser(t);
  admin = await makeAdmin(t);
  quad = await makeImage(t, owner, await quadrants(200, 100), 'quad.png');
  white = await makeImage(t, owner, await solid(200, 150, { r: 255, g: 255, b: 255 }, 'png'), 'white.png');
});

/** The pixels of a served image, as RGB. */
async function pixels(url: string) {
  const res = await getFile(t, url);
  expect(res.statusCode).toBe(200);
  const { data, info } = await sharp(res.rawPayload).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { info, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)] };
}

const edit = (body: unknown, user: TestUser | null = owner) => t.post('/user/media/images/edits', { token: user?.token, body });

describe('POST /user/media/images/edits', () => {
  it('crops into a new image whose srcid is the original; the original stays', async () => {
    const res = await edit({ imageid: quad.id, crop: { x: 100, y: 0, width: 100, height: 50 } });
    expect(res.statusCode).toBe(201);
    const item = res.json();
    expect(item).toMatchObject({ type: 'GuideImage', kind: 'image', mime: 'image/png', isReady: true });
    expect(item.id).not.toBe(quad.id);
    expect(item.image).toMatchObject({ srcid: quad.id, width: 100, height: 50 });
    expect(JSON.parse(item.image.markup)).toEqual({ crop: { x: 100, y: 0, width: 100, height: 50 } });
    // the top-right quadrant is green
    const p = await pixels(item.image.image.original);
    expect([p.info.width, p.info.height]).toEqual([100, 50]);
    for (const [x, y] of [[0, 0], [99, 0], [50, 25], [0, 49], [99, 49]]) expect(p.at(x, y), `${x},${y}`).toEqual([0, 255, 0]);
    // the original is unchanged
    const o = await pixels(quad.image.image.original);
    expect([o.info.width, o.info.height]).toEqual([200, 100]);
    expect(o.at(10, 10)).toEqual([255, 0, 0]);
    expect((await t.get(`/media/images/${quad.id}`, { token: owner.token })).json().srcid).toBeNull();
    // the new image is in the editor's library
    expect((await t.get('/user/media/current', { token: owner.token })).json()[0].id).toBe(item.id);
  });

  it('draws rectangles, circles, lines and arrows in their colours', async () => {
    const res = await edit({
      imageid: white.id,
      markup: {
        rectangles: [{ x: 20, y: 20, width: 60, height: 40, color: 'red', stroke: 4 }],
        circles: [{ x: 150, y: 50, radius: 30, color: 'blue', stroke: 4 }],
        lines: [{ from: { x: 10, y: 120 }, to: { x: 190, y: 120 }, color: '#00ff00', stroke: 6 }],
        arrows: [{ from: { x: 20, y: 140 }, to: { x: 120, y: 140 }, color: 'black', stroke: 4 }],
      },
    });
    expect(res.statusCode).toBe(201);
    const item = res.json();
    expect(item.image).toMatchObject({ srcid: white.id, width: 200, height: 150 });
    const p = await pixels(item.image.image.original);
    const close = (got: number[], want: number[]) => got.every((v, i) => Math.abs(v - want[i]) <= 40);
    expect(close(p.at(20, 40), [255, 0, 0]), `rect left edge ${p.at(20, 40)}`).toBe(true);
    expect(close(p.at(50, 20), [255, 0, 0]), `rect top edge ${p.at(50, 20)}`).toBe(true);
    expect(p.at(50, 40), 'inside the rectangle: untouched').toEqual([255, 255, 255]);
    expect(close(p.at(180, 50), [0, 96, 255]), `circle right ${p.at(180, 50)}`).toBe(true);
    expect(close(p.at(150, 20), [0, 96, 255]), `circle top ${p.at(150, 20)}`).toBe(true);
    expect(p.at(150, 50), 'circle centre: untouched').toEqual([255, 255, 255]);
    expect(close(p.at(100, 120), [0, 255, 0]), `line ${p.at(100, 120)}`).toBe(true);
    expect(close(p.at(60, 140), [0, 0, 0]), `arrow shaft ${p.at(60, 140)}`).toBe(true);
    expect(close(p.at(112, 140), [0, 0, 0]), `arrow head ${p.at(112, 140)}`).toBe(true);
    expect(close(p.at(112, 143), [0, 0, 0]), `arrow head is wider than the shaft ${p.at(112, 143)}`).toBe(true);
    expect(p.at(190, 5), 'elsewhere: untouched').toEqual([255, 255, 255]);
    expect(JSON.parse(item.image.markup).circles[0]).toMatchObject({ x: 150, y: 50, radius: 30, color: 'blue' });
  });

  it('crop and markup together: shapes are placed in the original\'s pixels', async () => {
    const res = await edit({ imageid: white.id, crop: { x: 100, y: 50, width: 100, height: 100 }, markup: { rectangles: [{ x: 120, y: 70, width: 40, height: 40, color: 'violet', stroke: 4 }] } });
    expect(res.statusCode).toBe(201);
    const p = await pixels(res.json().image.image.original);
    expect([p.info.width, p.info.height]).toEqual([100, 100]);
    const px = p.at(20, 40); // the rectangle's left edge, 120-100 = 20 in the crop
    expect(px[0]).toBeGreaterThan(90);
    expect(px[1]).toBeLessThan(40);
    expect(px[2]).toBeGreaterThan(200);
    expect(p.at(40, 40)).toEqual([255, 255, 255]);
  });

  it('a JPEG stays a JPEG; an Admin may edit anyone\'s image', async () => {
    const jpg = await makeImage(t, owner, await solid(80, 60, { r: 200, g: 10, b: 10 }, 'jpeg'), 'red.jpg');
    const res = await edit({ imageid: jpg.id, crop: { x: 0, y: 0, width: 40, height: 30 } }, admin);
    expect(res.statusCode).toBe(201);
    const item = res.json();
    expect(item).toMatchObject({ mime: 'image/jpeg', filename: 'red.jpg' });
    expect((await getFile(t, item.image.image.original)).headers['content-type']).toBe('image/jpeg');
    expect((await t.get(`/user/media/GuideImage/${item.id}`, { token: admin.token })).statusCode).toBe(200);
  });

  it('422: nothing to do, a crop outside the image, a bad colour, a bad shape', async () => {
    const nothing = await edit({ imageid: white.id });
    expect(nothing.statusCode).toBe(422);
    expect((await edit({ imageid: white.id, markup: {} })).statusCode).toBe(422);
    const outside = await edit({ imageid: white.id, crop: { x: 150, y: 0, width: 100, height: 10 } });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().errors[0]).toMatchObject({ field: 'crop', code: 'out_of_range' });
    const colour = await edit({ imageid: white.id, markup: { circles: [{ x: 1, y: 1, radius: 3, color: 'puce' }] } });
    expect(colour.statusCode).toBe(422);
    expect(colour.json().errors[0].field).toBe('markup.circles[0].color');
    expect((await edit({ imageid: white.id, markup: { circles: [{ x: 1, y: 1, radius: -3 }] } })).statusCode).toBe(422);
    expect((await edit({ imageid: white.id, markup: { stars: [{ x: 1 }] } })).statusCode).toBe(422);
    expect((await edit({ crop: { x: 0, y: 0, width: 1, height: 1 } })).json().errors[0]).toMatchObject({ field: 'imageid', code: 'missing_field' });
  });

  it('403 for another user\'s image, 404 for an unknown image, 401 without a token', async () => {
    const body = { imageid: white.id, crop: { x: 0, y: 0, width: 10, height: 10 } };
    expect((await edit(body, other)).statusCode).toBe(403);
    expect((await edit({ ...body, imageid: 999999 })).statusCode).toBe(404);
    expect((await edit(body, null)).statusCode).toBe(401);
  });
});
