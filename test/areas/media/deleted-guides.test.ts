// Cleaning up after a deleted guide, as clients do: delete the guide, then its image and
// video, then its category; each answers 2xx (a deleted guide holds neither media nor
// categories). Restoring such a guide asks for a category when its own is gone.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide } from '../../helpers/factories/guides.js';
import { makeCategory, enc } from '../../helpers/factories/wikis.js';
import { makeImage, testVideo, upload } from '../../helpers/factories/media.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

/** A guide of `author` in a new category, with an image step and a video step. */
async function guideWithMedia() {
  const category = await makeCategory(t, author);
  const image = await makeImage(t, author);
  const video = (await upload(t, author, testVideo('mp4'), 'clip.mp4')).json();
  let g = await makeGuide(t, author, { category: category.title, public: true });
  g = await addStep(t, author, g, { media: { type: 'image', data: [image.id] } });
  g = await addStep(t, author, g, { media: { type: 'object', data: video.id } });
  return { g, category, image, video };
}

describe('cleaning up after a deleted guide', () => {
  it('deletes the guide, then its image and video, then its category: each 2xx', async () => {
    const { g, category, image, video } = await guideWithMedia();
    // While the guide lives, its media and category are in use.
    expect((await t.del(`/user/media/GuideImage/${image.id}`, { token: author.token })).json().errors[0].code).toBe('in_use');
    const live = await t.del(`/wikis/CATEGORY/${enc(category.title)}?revisionid=${category.revisionid}`, { token: author.token });
    expect(live.statusCode).toBe(422);
    expect(live.json().errors[0].code).toBe('not_empty');

    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token })).statusCode).toBe(204);
    const delImage = await t.del(`/user/media/GuideImage/${image.id}`, { token: author.token });
    expect(delImage.statusCode, delImage.body).toBe(204);
    const delVideo = await t.del(`/user/media/GuideVideoObject/${video.id}`, { token: author.token });
    expect(delVideo.statusCode, delVideo.body).toBe(204);
    const delCategory = await t.del(`/wikis/CATEGORY/${enc(category.title)}?revisionid=${category.revisionid}`, { token: author.token });
    expect(delCategory.statusCode, delCategory.body).toBe(204);
  });

  it('restoring it then asks for a category (422 naming the missing one); with one, it is restored without the deleted media', async () => {
    const { g, category, image, video } = await guideWithMedia();
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token })).statusCode).toBe(204);
    await t.del(`/user/media/GuideImage/${image.id}`, { token: author.token });
    await t.del(`/user/media/GuideVideoObject/${video.id}`, { token: author.token });
    expect((await t.del(`/wikis/CATEGORY/${enc(category.title)}?revisionid=${category.revisionid}`, { token: author.token })).statusCode).toBe(204);

    const refused = await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors[0]).toMatchObject({ field: 'category', code: 'category_gone' });
    expect(refused.json().message).toContain(category.title);
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).statusCode).toBe(404);
    expect((await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token, body: { category: 'No such category' } })).statusCode).toBe(422);

    const other = await makeCategory(t, author);
    const restored = await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token, body: { category: other.title } });
    expect(restored.statusCode, restored.body).toBe(200);
    const r = restored.json();
    expect(r.category).toBe(other.title);
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0].media.data).toEqual([]);
    expect(r.image).toBeNull();
    expect((await t.get(`/guides/${g.guideid}`)).json().category).toBe(other.title);
  });

  it('a guide whose category still exists is restored as before, with no body', async () => {
    const category = await makeCategory(t, author);
    const g = await makeGuide(t, author, { category: category.title });
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token })).statusCode).toBe(204);
    const res = await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().category).toBe(category.title);
  });
});
