// Image work is bounded: an edit may produce only so many pixels, and all image work
// (upload checks, size variants, edits) goes through one bounded queue that answers 429
// `busy` with Retry-After when it is full, instead of growing.
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeUser, type TestUser } from '../../helpers/factories.js';
import { getFile, makeImage, solid, upload } from '../../helpers/factories/media.js';
import { imageQueue } from '../../../src/areas/media/image-queue.js';

let owner: TestUser;
const t = appForFile({ config: { imageConcurrency: 1, imageQueueSize: 1 } }, async () => {
  // One task at a time and one waiting: the test fills the queue by holding both places.
  owner = await makeUser(t);
});

const count = async (table: string) => Number((await t.db.selectFrom(table as any).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as any).n);

/** Takes `n` places of the image queue until `release` is called. */
function hold(n: number) {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const held = Array.from({ length: n }, () => imageQueue.run(() => gate));
  return { release: async () => { release(); await Promise.all(held); } };
}

function expectBusy(res: { statusCode: number; headers: Record<string, unknown>; json: () => any }) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(res.json()).toMatchObject({ error: true, code: 'busy' });
}

describe('edits are bounded in pixels', () => {
  it('a full-size edit of a 16000x7500 PNG (350 KB on disk, 120 megapixels) is a 422 on crop and stores nothing; a small crop of it works', async () => {
    const big = await sharp({ create: { width: 16_000, height: 7_500, channels: 3, background: { r: 10, g: 200, b: 30 } } }).png().toBuffer();
    const img = await makeImage(t, owner, big, 'big.png');
    const before = await count('images');
    const res = await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: img.id, crop: { x: 0, y: 0, width: 16_000, height: 7_500 } } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'crop', code: 'out_of_range' });
    expect(res.json().message).toMatch(/at most 40 megapixels/);
    // Markup alone edits the whole image: the same budget.
    const markup = await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: img.id, markup: { circles: [{ x: 10, y: 10, radius: 5 }] } } });
    expect(markup.statusCode).toBe(422);
    expect(await count('images')).toBe(before);
    const small = await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: img.id, crop: { x: 100, y: 100, width: 400, height: 300 } } });
    expect(small.statusCode).toBe(201);
    expect(small.json().image).toMatchObject({ width: 400, height: 300 });
  });
});

describe('markup colours', () => {
  it('names of object properties are not colours (422 naming the field)', async () => {
    const img = await makeImage(t, owner, await solid(60, 40, { r: 1, g: 1, b: 1 }, 'png'), 'c.png');
    for (const color of ['constructor', '__proto__', 'toString']) {
      const res = await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: img.id, markup: { circles: [{ x: 10, y: 10, radius: 5, color }] } } });
      expect(res.statusCode, color).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ field: 'markup.circles[0].color', code: 'invalid_value' });
    }
  });
});

describe('the image queue', () => {
  it('when full, uploads, variants and edits answer 429 busy with Retry-After and store nothing; then work again', async () => {
    const img = await makeImage(t, owner, await solid(300, 200, { r: 1, g: 2, b: 3 }, 'png'), 'q.png');
    const images = await count('images');
    const h = hold(2);
    try {
      expectBusy(await upload(t, owner, await solid(50, 50, { r: 9, g: 9, b: 9 }, 'png'), 'busy.png'));
      expectBusy(await getFile(t, img.image.image.medium));
      expectBusy(await t.post('/user/media/images/edits', { token: owner.token, body: { imageid: img.id, crop: { x: 0, y: 0, width: 10, height: 10 } } }));
      expect(await count('images')).toBe(images);
    } finally {
      await h.release();
    }
    expect((await getFile(t, img.image.image.medium)).statusCode).toBe(200);
    expect((await upload(t, owner, await solid(50, 50, { r: 9, g: 9, b: 9 }, 'png'), 'fine.png')).statusCode).toBe(200);
  });

  it('a task that finds every running place taken waits its turn (up to the queue size) and then completes', async () => {
    const img = await makeImage(t, owner, await solid(300, 200, { r: 4, g: 5, b: 6 }, 'png'), 'w.png');
    const h = hold(1);
    const waiting = getFile(t, img.image.image.large);
    // The request reaches the queue after its lookups: wait for it to be there.
    await vi.waitFor(() => expect(imageQueue.size).toBe(2));
    expectBusy(await getFile(t, img.image.image.huge));
    await h.release();
    expect((await waiting).statusCode).toBe(200);
    expect(imageQueue.size).toBe(0);
  });
});
