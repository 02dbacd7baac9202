// Embeds in texts (`[image|ID]`, `[video|ID]` in wiki text, guide introductions and
// conclusions, step lines, comments): a text renders a signed URL for every embed, so a
// write takes only embed ids the caller may use (the one rule of media.access.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide, makeImage as imageRow, makeVideo as videoRow } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';

let t: TestApp;
let author: TestUser;
let other: TestUser;
let moderator: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  author = await makeAuthor(t);
  other = await makeUser(t);
  moderator = await makeModerator(t);
});
afterAll(() => t.close());

function expectRefused(res: { statusCode: number; body: string; json(): any }, field: string) {
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe('embeds in texts take only media the caller may use', () => {
  it('guide introduction and conclusion: another user\'s private image or video is refused, nothing stored', async () => {
    const g = await makeGuide(t, author, { public: true });
    const [image, video] = [await imageRow(t, moderator.userid), await videoRow(t, moderator.userid)];
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { introduction: `See [image|${image}]` } }), 'introduction');
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { conclusion: `[video|${video}]` } }), 'conclusion');
    const after = (await t.get(`/guides/${g.guideid}`)).json();
    expect(after.revisionid).toBe(g.revisionid);
    expect(after.introduction_raw ?? '').not.toContain('image|');
    const own = await imageRow(t, author.userid);
    const ok = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { introduction: `See [image|${own}]` } });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('step lines (add, edit, preview)', async () => {
    const g = await makeGuide(t, author, { public: true });
    const image = await imageRow(t, moderator.userid);
    expectRefused(await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: author.token, body: { lines: [{ text: 'ok' }, { text: `[image|${image}]` }] } }), 'lines[1].text');
    const withStep = await addStep(t, author, g);
    const step = withStep.steps[0];
    expectRefused(await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [{ text: `[image|${image}]` }] } }), 'lines[0].text');
    expectRefused(await t.post('/guides/steps/lines/preview', { token: author.token, body: { lines: [{ text: `[image|${image}]` }] } }), 'lines[0].text');
    const lines = await t.db.selectFrom('guide_lines').select('text').where('stepid', '=', step.stepid).execute();
    expect(lines.map((l) => l.text).join()).not.toContain('image|');
  });

  it('comments (create and edit)', async () => {
    const wiki = await makeWiki(t, author);
    const image = await imageRow(t, moderator.userid);
    expectRefused(await t.post(`/comments/wiki/${wiki.wikiid}`, { token: other.token, body: { text: `Look at this: [image|${image}]` } }), 'text');
    const c = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: other.token, body: { text: 'A plain comment text.' } });
    expect(c.statusCode, c.body).toBe(201);
    const id = c.json().commentid;
    expectRefused(await t.patch(`/comments/${id}`, { token: other.token, body: { text: `Now with [image|${image}]` } }), 'text');
    const row = await t.db.selectFrom('comments').select('text_raw').where('commentid', '=', id).executeTakeFirstOrThrow();
    expect(row.text_raw).toBe('A plain comment text.');
  });

  it('wiki contents, contents_json and identification', async () => {
    const image = await imageRow(t, moderator.userid);
    const title = String(other.userid);
    expectRefused(await t.post('/wikis', { token: other.token, body: { namespace: 'USER', title, contents: `Me [image|${image}]` } }), 'contents');
    const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'image', attrs: { imageid: image } }] }] };
    expectRefused(await t.post('/wikis', { token: other.token, body: { namespace: 'USER', title, contents_json: doc } }), 'contents_json');
    const mine = await imageRow(t, other.userid);
    const ok = await t.post('/wikis', { token: other.token, body: { namespace: 'USER', title, contents: `Me [image|${mine}]` } });
    expect(ok.statusCode, ok.body).toBe(201);
    const w = ok.json();
    expectRefused(await t.patch(`/wikis/USER/${title}?revisionid=${w.revisionid}`, { token: other.token, body: { contents: `[image|${image}]` } }), 'contents');
    const stored = await t.db.selectFrom('wikis').select('contents_raw').where('wikiid', '=', w.wikiid).executeTakeFirstOrThrow();
    expect(stored.contents_raw).toBe(`Me [image|${mine}]`);
  });

  it('an image shown in content the caller may read may be embedded', async () => {
    const shown = await imageRow(t, author.userid);
    await addStep(t, author, await makeGuide(t, author, { public: true }), { media: { type: 'image', data: [shown] } });
    const wiki = await makeWiki(t, author);
    const c = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: other.token, body: { text: `Same as [image|${shown}] here.` } });
    expect(c.statusCode, c.body).toBe(201);
  });
});
