// An image's bookkeeping moves no stamp (migration 2026_11_28_1000_image_bookkeeping): the
// first fetch of a size variant adds its bytes to the image's row, and a guide showing the
// image keeps its cached record, the lists and the pages of comments theirs. A change of
// what the image shows (here SQL by hand: the API makes a new image for an edit) still
// moves them all.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor } from '../../helpers/factories.js';
import { addStep, makePublishedGuide } from '../../helpers/factories/guides.js';
import { getFile, makeImage } from '../../helpers/factories/media.js';
import * as imageBookkeeping from '../../../src/db/migrations/2026_11_28_1000_image_bookkeeping.js';
import * as commentsStampInserts from '../../../src/db/migrations/2026_11_28_1700_comments_stamp_inserts.js';

const t = appForFile();

/** The triggers on images, by name, as the database shows their definitions. */
async function imageTriggers(): Promise<Array<{ name: string; definition: string }>> {
  const rows = t.dialect === 'postgres'
    ? await sql<{ name: string; definition: string }>`select tgname as name, pg_get_triggerdef(oid) as definition from pg_trigger where tgrelid = 'images'::regclass and not tgisinternal order by tgname`.execute(t.db)
    : await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master where type = 'trigger' and tbl_name = 'images' order by name`.execute(t.db);
  return rows.rows;
}

/** The guide's cache_stamp, and the lists' and comment pages' stamps. */
async function stampsOf(guideid: number) {
  const guide = await t.db.selectFrom('guides').select('cache_stamp').where('guideid', '=', guideid).executeTakeFirstOrThrow();
  const rows = await t.db.selectFrom('cache_stamps').select(['key', 'stamp']).where('key', 'in', ['guides', 'comments']).execute();
  const of = (key: string) => Number(rows.find((r) => r.key === key)?.stamp);
  return { guide: Number(guide.cache_stamp), guides: of('guides'), comments: of('comments') };
}

const variantBytes = async (imageid: number) =>
  Number((await t.db.selectFrom('images').select('variant_bytes').where('imageid', '=', imageid).executeTakeFirstOrThrow()).variant_bytes);

describe("an image's size variants, made at their first fetch", () => {
  it('move no stamp of a guide showing the image, nor of the lists or the comment pages; its answer stays the kept one', async () => {
    const author = await makeAuthor(t);
    const cover = await makeImage(t, author);
    const inStep = await makeImage(t, author);
    const g = await addStep(t, author, await makePublishedGuide(t, author, 0, { imageid: cover.id }), { title: 'Pictured', media: { type: 'image', data: [inStep.id] } });
    const before = await t.get(`/guides/${g.guideid}`);
    expect(before.statusCode).toBe(200);
    const stamps = await stampsOf(g.guideid);
    for (const url of [cover.image.image.large, cover.image.image.thumbnail, inStep.image.image.medium]) expect((await getFile(t, url)).statusCode).toBe(200);
    // The bookkeeping happened...
    expect(await variantBytes(cover.id)).toBeGreaterThan(0);
    expect(await variantBytes(inStep.id)).toBeGreaterThan(0);
    // ...and nothing a record shows moved.
    expect(await stampsOf(g.guideid)).toEqual(stamps);
    const after = await t.get(`/guides/${g.guideid}`);
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(after.body).toBe(before.body);
  });

  it('a change of what an image shows moves them all, as before', async () => {
    const author = await makeAuthor(t);
    const image = await makeImage(t, author);
    const g = await makePublishedGuide(t, author, 0, { imageid: image.id });
    const stamps = await stampsOf(g.guideid);
    const guid = `Moved${image.guid as string}`.slice(0, 16);
    await t.db.updateTable('images').set({ guid }).where('imageid', '=', image.id).execute();
    const moved = await stampsOf(g.guideid);
    expect(moved.guide).toBeGreaterThan(stamps.guide);
    expect(moved.guides).toBeGreaterThan(stamps.guides);
    expect(moved.comments).toBeGreaterThan(stamps.comments);
    expect((await t.get(`/guides/${g.guideid}`)).json().image).toMatchObject({ id: image.id, guid });
  });

  it('moved them before the migration (taken down and up again here)', async () => {
    const author = await makeAuthor(t);
    const image = await makeImage(t, author);
    const g = await makePublishedGuide(t, author, 0, { imageid: image.id });
    const addBytes = () => t.db.updateTable('images').set((eb) => ({ variant_bytes: eb('variant_bytes', '+', 100) })).where('imageid', '=', image.id).execute();
    const s0 = await stampsOf(g.guideid);
    const before = await imageTriggers();
    await imageBookkeeping.down(t.db);
    try {
      await addBytes();
      const s1 = await stampsOf(g.guideid);
      expect(s1.guide).toBeGreaterThan(s0.guide);
      expect(s1.comments).toBeGreaterThan(s0.comments);
    } finally {
      await imageBookkeeping.up(t.db);
      // A later migration made one of these triggers again (PostgreSQL: the comments
      // stamp's, without inserts): as it left it, so that the tests after this one run
      // on the schema every database has.
      if (t.dialect === 'postgres') await commentsStampInserts.up(t.db);
    }
    expect(await imageTriggers()).toEqual(before);
    const s2 = await stampsOf(g.guideid);
    await addBytes();
    expect(await stampsOf(g.guideid)).toEqual(s2);
  });
});
