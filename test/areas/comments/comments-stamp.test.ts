// The 'comments' stamp, which keeps pages of comments as bytes, does not move when a user,
// an image or a video is inserted (migration 2026_11_28_1700_comments_stamp_inserts): no
// comment can show a row newer than itself. An update or a delete of what comments show
// still moves it, and a comment that takes media moves it by its own rows.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser } from '../../helpers/factories.js';
import { makePublishedGuide, makeVideo } from '../../helpers/factories/guides.js';
import { makeImage } from '../../helpers/factories/media.js';
import * as commentsStampInserts from '../../../src/db/migrations/2026_11_28_1700_comments_stamp_inserts.js';

const t = appForFile();

const commentsStamp = async () =>
  Number((await t.db.selectFrom('cache_stamps').select('stamp').where('key', '=', 'comments').executeTakeFirstOrThrow()).stamp);

describe("the 'comments' stamp", () => {
  it('stays where it was when a user registers, an image is uploaded or a video is added; a kept page of comments is answered as it was', async () => {
    const author = await makeAuthor(t);
    const g = await makePublishedGuide(t, author);
    expect((await t.post(`/comments/guide/${g.guideid}`, { token: author.token, body: { text: 'First!' } })).statusCode).toBe(201);
    const page = `/comments?context=guide&contextid=${g.guideid}`;
    const before = await t.get(page);
    expect(before.statusCode).toBe(200);
    const stamp = await commentsStamp();

    const admin = await makeAdmin(t);
    const registered = await t.post('/users', { token: admin.token, body: { email: 'newcomer@example.com', username: 'Newcomer', password: 'a long enough password' } });
    expect(registered.statusCode, registered.body).toBe(201);
    await makeUser(t);
    await makeImage(t, author);
    await makeVideo(t, author.userid);
    expect(await commentsStamp()).toBe(stamp);
    const after = await t.get(page);
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(after.body).toBe(before.body);
  });

  it('moves when what comments show changes: an author renamed, a comment with an image, a user deleted', async () => {
    const author = await makeAuthor(t);
    const g = await makePublishedGuide(t, author);
    let stamp = await commentsStamp();
    await t.db.updateTable('users').set({ username: 'Renamed author' }).where('userid', '=', author.userid).execute();
    expect(await commentsStamp()).toBeGreaterThan(stamp);
    stamp = await commentsStamp();
    const image = await makeImage(t, author);
    expect(await commentsStamp()).toBe(stamp);
    const withImage = await t.post(`/comments/guide/${g.guideid}`, { token: author.token, body: { text: 'See the picture', media: [{ type: 'image', id: image.id }] } });
    expect(withImage.statusCode, withImage.body).toBe(201);
    expect(await commentsStamp()).toBeGreaterThan(stamp);
    stamp = await commentsStamp();
    const gone = await makeUser(t);
    await t.db.deleteFrom('users').where('userid', '=', gone.userid).execute();
    expect(await commentsStamp()).toBeGreaterThan(stamp);
  });

  it('moved at every insert before the migration (taken down and up again here)', async () => {
    const s0 = await commentsStamp();
    await commentsStampInserts.down(t.db);
    try {
      await makeUser(t);
      expect(await commentsStamp()).toBeGreaterThan(s0);
    } finally {
      await commentsStampInserts.up(t.db);
    }
    const s1 = await commentsStamp();
    await makeUser(t);
    expect(await commentsStamp()).toBe(s1);
  });
});
