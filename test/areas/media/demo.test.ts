import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { getFile } from '../../helpers/factories/media.js';
import { makeAuthor } from '../../helpers/factories.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { areas } from '../../../src/areas/index.js';
import { seedMediaDemo } from '../../../src/areas/media/media.demo.js';
import type { DemoContext } from '../../../src/areas/area.js';

const t = appForFile({ config: { passwordHashCost: 4 } });

describe('media demo content', () => {
  it('is registered right after teams', () => {
    const names = areas.map((a) => a.name);
    expect(names.indexOf('media')).toBe(names.indexOf('teams') + 1);
  });

  it('stores real generated images with variants and hands their ids to later seeders', async () => {
    const ctxIds: Record<string, number> = {};
    const owner = await makeAuthor(t);
    const author = owner.userid;
    await t.db.transaction().execute(async (trx) => {
      const ctx: DemoContext = { db: trx, config: t.config, clock: t.clock, password: 'x', users: { author }, teams: {}, ids: ctxIds, log: () => {} };
      await seedMediaDemo(ctx);
    });
    expect(Object.keys(ctxIds).sort()).toEqual(['demoImage1', 'demoImage2', 'demoImage3', 'demoImage4']);
    for (const id of Object.values(ctxIds)) {
      const res = await t.get(`/media/images/${id}`, { token: owner.token });
      expect(res.statusCode, res.body).toBe(200);
      const rec = res.json();
      expect(rec).toMatchObject({ width: 800, height: 600, ratio: 'FOUR_THREE' });
      const file = await getFile(t, rec.image.standard);
      expect(file.headers['content-type']).toBe('image/jpeg');
      const { data, info } = await sharp(file.rawPayload).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([300, 225]);
      // a drawing, not a blank: many different colours
      const colours = new Set<number>();
      for (let i = 0; i < data.length; i += 3 * 37) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      expect(colours.size).toBeGreaterThan(50);
    }
    const lib = await t.db.selectFrom('media_items').select('objectid').where('userid', '=', author).execute();
    expect(lib).toHaveLength(4);
  });

  it('the whole demo seed runs with the media area in it', async () => {
    const t2 = await buildTestApp();
    try {
      const r = await seedDemoOnce(t2.db, t2.config, t2.clock, () => {});
      expect(r.seeded).toBe(true);
      expect(Number((await t2.db.selectFrom('images').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBeGreaterThanOrEqual(4);
    } finally {
      await t2.close();
    }
  });
});
