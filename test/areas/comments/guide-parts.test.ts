// Where guides meet the wikis, comments, view history and search areas: comments on
// guides and steps (and their privacy), step records carrying their comments, guide
// views recorded, guides and their comments found by /suggest at once, and categories
// knowing their guides.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { enc, makeCategory, makeComment } from '../../helpers/factories/wikis.js';

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
let other: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [admin, author, moderator, user, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeModerator(t), makeUser(t), makeUser(t)]);
});

const suggest = async (q: string, extra = '') => (await t.get(`/suggest/${encodeURIComponent(q)}${extra}`)).json().results as any[];

describe('comments on guides and steps', () => {
  it('comments on a public guide: titled with the guide, in its language; on a step too', async () => {
    const g = await makePublishedGuide(t, author, 2, { title: unique('Brake pad swap ') });
    // Anyone reads a public guide: who else may edit it is not asked (canReadGuide).
    const sent: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => sent.push(e.query.sql));
    let c: any;
    try {
      c = await makeComment(t, user, 'guide', g.guideid, { text: 'Which torque for the caliper bolts?' });
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(sent.filter((q) => /guide_collaborators|guide_revisions/.test(q))).toEqual([]);
    expect(c).toMatchObject({ context: 'guide', contextid: g.guideid, title: g.title, locale: 'en', parentid: null });
    const s = await makeComment(t, user, 'step', g.steps[1].stepid, { text: 'The second step needs a 13 mm socket.' });
    expect(s).toMatchObject({ context: 'step', contextid: g.steps[1].stepid, title: g.title, locale: 'en' });
    const stored = await t.db.selectFrom('comments').select(['context', 'contextid', 'userid']).where('commentid', '=', s.commentid).executeTakeFirstOrThrow();
    expect(stored).toEqual({ context: 'step', contextid: g.steps[1].stepid, userid: user.userid });
  });

  it('a step record carries its top-level comments with their replies, oldest first; other steps none', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const stepid = g.steps[0].stepid;
    const first = await makeComment(t, user, 'step', stepid, { text: 'First question on this step.' });
    const reply = await makeComment(t, author, 'step', stepid, { text: 'An answer from the author.', parentid: first.commentid });
    const second = await makeComment(t, other, 'step', stepid, { text: 'A second question here.' });
    const res = await t.get(`/guides/${g.guideid}`);
    expect(res.statusCode).toBe(200);
    const steps = res.json().steps;
    expect(steps[0].comments.map((c: any) => c.commentid)).toEqual([first.commentid, second.commentid]);
    expect(steps[0].comments[0].replies.map((r: any) => r.commentid)).toEqual([reply.commentid]);
    expect(steps[0].comments[0].author.userid).toBe(user.userid);
    expect(steps[0].comments[0].text_rendered).toContain('First question');
    expect(steps[1].comments).toEqual([]);
  });

  it('a private guide: only those who may read it comment (403), and lists hide its comments from others', async () => {
    const g = await makeGuide(t, author, { title: unique('Secret procedure ') });
    g.steps = (await addStep(t, author, g, { lines: [line('Hidden work')] })).steps;
    expect((await t.post(`/comments/guide/${g.guideid}`, { token: user.token, body: { text: 'Can I see this one?' } })).statusCode).toBe(403);
    expect((await t.post(`/comments/step/${g.steps[0].stepid}`, { token: user.token, body: { text: 'Can I see this one?' } })).statusCode).toBe(403);
    expect(await t.db.selectFrom('comments').select('commentid').where('context', '=', 'guide').where('contextid', '=', g.guideid).execute()).toEqual([]);
    const mine = await makeComment(t, author, 'step', g.steps[0].stepid, { text: 'A note to myself here.' });
    expect((await t.get(`/comments/${mine.commentid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get(`/comments/${mine.commentid}`)).statusCode).toBe(401); // anonymous: logging in may help
    expect((await t.get(`/comments/${mine.commentid}`, { token: author.token })).statusCode).toBe(200);
    const listed = async (token?: string) => ((await t.get('/comments?context=step&limit=200&order=DESC', { token })).json() as any[]).map((c) => c.commentid);
    expect(await listed(user.token)).not.toContain(mine.commentid);
    expect(await listed()).not.toContain(mine.commentid);
    expect(await listed(author.token)).toContain(mine.commentid);
    expect(await listed(admin.token)).toContain(mine.commentid);
    // The same rule on the guide itself, through each way of listing (one context or all).
    const onGuide = await makeComment(t, author, 'guide', g.guideid, { text: 'A note on the whole guide.' });
    for (const query of ['context=guide&', '']) {
      const ids = async (token?: string) => ((await t.get(`/comments?${query}limit=200&order=DESC`, { token })).json() as any[]).map((c) => c.commentid);
      expect(await ids(user.token)).not.toContain(onGuide.commentid);
      expect(await ids()).not.toContain(onGuide.commentid);
      expect(await ids(author.token)).toEqual(expect.arrayContaining(query ? [onGuide.commentid] : [onGuide.commentid, mine.commentid]));
      expect(await ids(admin.token)).toContain(onGuide.commentid);
    }
  });

  it('deleting a step deletes its comments; a deleted guide\'s comments read as gone', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const c = await makeComment(t, user, 'step', g.steps[0].stepid);
    const del = await t.del(`/guides/${g.guideid}/steps/${g.steps[0].stepid}?revisionid=${g.steps[0].revisionid}`, { token: author.token });
    expect(del.statusCode).toBe(204);
    expect(await t.db.selectFrom('comments').select('commentid').where('commentid', '=', c.commentid).execute()).toEqual([]);
    const onGuide = await makeComment(t, user, 'guide', g.guideid);
    const current = (await t.get(`/guides/${g.guideid}`)).json();
    expect((await t.del(`/guides/${g.guideid}?revisionid=${current.revisionid}`, { token: author.token })).statusCode).toBe(204);
    expect((await t.get(`/comments/${onGuide.commentid}`)).statusCode).toBe(404);
    expect((await t.post(`/comments/guide/${g.guideid}`, { token: user.token, body: { text: 'Still there?' } })).statusCode).toBe(404);
  });
});

describe('guide views', () => {
  it('a logged-in read of a guide is recorded (not an anonymous one) and listed for the user and the guide', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const reader = await makeUser(t);
    expect((await t.get(`/guides/${g.guideid}`, { token: reader.token })).statusCode).toBe(200);
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200);
    const mine = (await t.get(`/user_view_history/user/${reader.userid}`, { token: reader.token })).json();
    expect(mine).toEqual([{ userid: reader.userid, username: reader.username, doc_type: 'GUIDE', docid: String(g.guideid), date: t.clock.now() }]);
    const res = await t.get(`/user_view_history/guide/${g.guideid}`, { token: moderator.token });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((v: any) => v.userid)).toEqual([reader.userid]);
    expect((await t.get('/user_view_history/guide/999999', { token: moderator.token })).statusCode).toBe(404);
  });
});

describe('guides in /suggest', () => {
  it('a new category, a guide in it and a comment on one of its steps are found at once', async () => {
    const word = `zq${Date.now().toString(36)}`;
    const category = await makeCategory(t, author, `${word} Gearboxes`);
    const g = await makePublishedGuide(t, author, 1, { category: category.title, title: `Replacing the ${word}x seal` });
    await makeComment(t, user, 'step', g.steps[0].stepid, { text: `Use the ${word}y puller for this.` });
    const categories = await suggest(`${word} gear`, '?doctypes=category');
    expect(categories.map((r) => r.wikiid)).toEqual([category.wikiid]);
    const guides = await suggest(`${word}x`, '?doctypes=guide');
    expect(guides).toHaveLength(1);
    expect(guides[0]).toMatchObject({ dataType: 'guide', guideid: g.guideid, title: g.title, summary: expect.any(String), category: category.title });
    // The comment on the step leads to its guide.
    expect((await suggest(`${word}y puller`)).map((r) => r.guideid)).toEqual([g.guideid]);
  });

  it('finds step titles; private and deleted guides are not found; edits are found at once', async () => {
    const word = `qv${Date.now().toString(36)}`;
    const g = await makeGuide(t, author, { title: `Draining the ${word} tank` });
    await addStep(t, author, g, { title: `Loosen the ${word}plug`, lines: [line('Turn it slowly')] });
    expect(await suggest(word)).toEqual([]);
    const now = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    expect((await t.put(`/guides/${g.guideid}/public?revisionid=${now.revisionid}`, { token: author.token })).statusCode).toBeLessThan(300);
    expect((await suggest(word)).map((r) => r.guideid)).toEqual([g.guideid]);
    expect((await suggest(`${word}plug`)).map((r) => r.guideid)).toEqual([g.guideid]);
    const cur = (await t.get(`/guides/${g.guideid}`)).json();
    const patched = await t.patch(`/guides/${g.guideid}?revisionid=${cur.revisionid}`, { token: author.token, body: { title: `Flushing the ${word}z circuit` } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await suggest(`${word}z`)).map((r) => r.title)).toEqual([`Flushing the ${word}z circuit`]);
    expect((await t.del(`/guides/${g.guideid}?revisionid=${patched.json().revisionid}`, { token: author.token })).statusCode).toBe(204);
    expect(await suggest(`${word}z`)).toEqual([]);
  });
});

describe('categories and their guides', () => {
  it('the category record and .../documents list its public guides; requireGuides keeps it; it cannot be deleted while guides are filed', async () => {
    const category = await makeCategory(t, author, unique('Hydraulics '));
    const g = await makePublishedGuide(t, author, 0, { category: category.title });
    await makeGuide(t, author, { category: category.title });
    const full = (await t.get(`/wikis/CATEGORY/${enc(category.title)}`)).json();
    expect(full.guides.map((x: any) => x.guideid)).toEqual([g.guideid]);
    expect(Object.keys(full.guides[0]).sort()).toEqual(['category', 'dataType', 'flags', 'guideid', 'image', 'locale', 'modified_date', 'prereq_modified_date', 'public', 'revisionid', 'subject', 'title', 'type', 'url', 'userid', 'username']);
    const docs = await t.get(`/wikis/CATEGORY/${category.wikiid}/documents`);
    expect(docs.statusCode).toBe(200);
    expect(docs.json().map((x: any) => x.guideid)).toEqual([g.guideid]);
    const tree = (await t.get('/wikis/CATEGORY?display=hierarchy&requireGuides=true')).json();
    expect(Object.keys(tree.hierarchy)).toContain(category.title);
    const del = await t.del(`/wikis/CATEGORY/${enc(category.title)}?revisionid=${full.revisionid}`, { token: admin.token });
    expect(del.statusCode).toBe(422);
    expect(del.json().errors[0]).toMatchObject({ field: 'title', code: 'not_empty' });
  });
});
