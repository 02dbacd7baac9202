// The read cache of guides (guides.cache.ts): a cached record or list page is served
// only while nothing it shows has changed, whoever wrote the change.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeCategory, makeGuide, makeImage, makeItem, makePublishedGuide } from '../../helpers/factories/guides.js';
import { guideCaches, invalidateGuide, keptParts } from '../../../src/areas/guides/guides.cache.js';
import { checkedByKeys } from '../../../src/areas/guides/guides.queries.js';
import { flushStoredRecords, storedRecords } from '../../../src/areas/guides/guides.stored.js';
import * as guideCommentsStamp from '../../../src/db/migrations/2026_11_27_0100_guide_comments_stamp.js';
import * as guideRowStamp from '../../../src/db/migrations/2026_11_28_2200_guide_row_stamp.js';

let author: TestUser;
let moderator: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
  moderator = await makeModerator(t);
});

const read = async (guideid: number, query = '') => {
  const res = await t.get(`/guides/${guideid}${query}`);
  expect(res.statusCode).toBe(200);
  return res;
};

/**
 * What earlier requests queued for the stored records, written now: the writer's timer
 * (25 ms after a build queued them) must not fire while `run` is measured, or its
 * transaction's statements, and its commit, land among the request's (on PostgreSQL a
 * request takes long enough: the edit tests below failed one run in six or ten, the last
 * commit they saw being the writer's).
 */
const writeQueued = () => flushStoredRecords(t.app);

/** Statements `run` sends, the reads of stamps and views aside (every request reads stamps; views and stored records are written later). */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  await writeQueued();
  const sent: string[] = [];
  t.app.dbHandle.setQueryListener!((e) => { if (e.level === 'query' && !/cache_stamps|view_history|guide_records/.test(e.query.sql)) sent.push(e.query.sql); });
  try {
    await run();
  } finally {
    t.app.dbHandle.setQueryListener!(null);
  }
  return sent;
}

describe('the guide cache', () => {
  it('serves the same bytes twice, from the cache the second time; ?pretty and XML from the cached bytes', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const cache = guideCaches(t.app).guides;
    const first = await read(g.guideid);
    const hits = cache.hits;
    const second = await read(g.guideid);
    expect(cache.hits).toBe(hits + 1);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe('application/json');
    expect(JSON.parse((await read(g.guideid, '?pretty')).body)).toEqual(first.json());
    const xml = await read(g.guideid, '?format=xml');
    expect(xml.headers['content-type']).toBe('application/xml');
    expect(xml.body).toContain(`<guideid>${g.guideid}</guideid>`);
  });

  it('a hit costs the guide\'s head alone: no stamp rides along (the titles\' stamp is read only on a miss, where stored records are checked against it)', async () => {
    const g = await makePublishedGuide(t, author, 1);
    await read(g.guideid);
    // The stored record's write moves SQLite's change version: its kept head is read again.
    await writeQueued();
    const sent: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (e.level === 'query') sent.push(e.query.sql); });
    try {
      expect((await read(g.guideid)).json().guideid).toBe(g.guideid);
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/from "guides"/);
    expect(sent[0]).not.toMatch(/cache_stamps/);
  });

  it('an entry lives GUIDE_CACHE_TTL seconds of the app\'s clock, then is built again', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const cache = guideCaches(t.app).guides;
    await read(g.guideid);
    // A change the cache cannot see (as below): served stale while the entry is young...
    await t.db.updateTable('guide_lines').set({ text: 'Changed by hand' }).where('stepid', '=', g.steps[0].stepid).execute();
    t.clock.advance(t.app.config.guideCacheTtl - 1);
    const hits = cache.hits;
    expect((await read(g.guideid)).json().steps[0].lines[0].text_raw).toBe('Line of step 1');
    expect(cache.hits).toBe(hits + 1);
    // ...and built afresh once the clock has moved past its lifetime.
    t.clock.advance(1);
    expect((await read(g.guideid)).json().steps[0].lines[0].text_raw).toBe('Changed by hand');
    expect(cache.hits).toBe(hits + 1);
  });

  it('a step edit shows at once', async () => {
    const g = await makePublishedGuide(t, author, 2);
    await read(g.guideid);
    const step = g.steps[1];
    const res = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [line("Now with '''new''' text")] } });
    expect(res.statusCode).toBe(200);
    const after = (await read(g.guideid)).json();
    expect(after.steps[1].lines.map((l: { text_raw: string }) => l.text_raw)).toEqual(["Now with '''new''' text"]);
    expect(after.revisionid).toBeGreaterThan(g.revisionid);
  });

  it('an edit\'s answer is kept: the next read is a hit with the same bytes, and the steps it did not change were not rendered again', async () => {
    const g = await makePublishedGuide(t, author, 3);
    await read(g.guideid);
    await flushStoredRecords(t.app);
    // Not kept in this process: the steps are loaded, their lines' HTML is the stored one.
    guideCaches(t.app).guides.clear();
    const rendered = storedRecords(t.app).renderedHits;
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Kept as answered' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().summary).toBe('Kept as answered');
    // The three steps' lines and the guide's introduction and conclusion, from their stored HTML.
    expect(storedRecords(t.app).renderedHits).toBe(rendered + 4);
    const cache = guideCaches(t.app).guides;
    const hits = cache.hits;
    const after = await read(g.guideid);
    expect(cache.hits).toBe(hits + 1);
    expect(after.body).toBe(res.body);
    expect(after.headers.etag).toBe(res.headers.etag);
  });

  it('a change without a new revision is served stale until invalidateGuide, then shows', async () => {
    const g = await makePublishedGuide(t, author, 1);
    await read(g.guideid);
    // A write the triggers do not watch (a line changed in SQL): the cache does not see it...
    await t.db.updateTable('guide_lines').set({ text: 'Changed by hand' }).where('stepid', '=', g.steps[0].stepid).execute();
    expect((await read(g.guideid)).json().steps[0].lines[0].text_raw).toBe('Line of step 1');
    // ...until the writer says so.
    await invalidateGuide(t.db, g.guideid);
    expect((await read(g.guideid)).json().steps[0].lines[0].text_raw).toBe('Changed by hand');
  });

  it('flags, the owner\'s new name, tags and a prerequisite\'s new title show at once', async () => {
    const pre = await makePublishedGuide(t, author, 1);
    let g = await makePublishedGuide(t, author, 1, { prerequisites: [pre.guideid] });
    await read(g.guideid);
    expect((await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${g.revisionid}`, { token: moderator.token })).statusCode).toBe(200);
    expect((await read(g.guideid)).json().flags).toEqual(['GUIDE_STARRED']);
    expect((await t.put(`/guides/${pre.guideid}/flags/DANGER?revisionid=${pre.revisionid}`, { token: author.token })).statusCode).toBe(200);
    expect((await read(g.guideid)).json().prerequisites[0].flags).toEqual(['DANGER']);

    expect((await t.patch(`/users/${author.userid}`, { token: author.token, body: { username: 'Renamed Author' } })).statusCode).toBe(200);
    const renamed = (await read(g.guideid)).json();
    expect(renamed.username).toBe('Renamed Author');
    expect(renamed.prerequisites[0].username).toBe('Renamed Author');

    g = (await read(g.guideid)).json();
    expect((await t.put(`/guides/${g.guideid}/tag?revisionid=${g.revisionid}`, { token: author.token, body: { tag: 'cached-tag' } })).statusCode).toBe(200);
    expect((await read(g.guideid)).json().tags).toEqual(['cached-tag']);

    const p = (await read(pre.guideid)).json();
    expect((await t.patch(`/guides/${pre.guideid}?revisionid=${p.revisionid}`, { token: author.token, body: { title: 'A renamed prerequisite' } })).statusCode).toBe(200);
    expect((await read(g.guideid)).json().prerequisites[0].title).toBe('A renamed prerequisite');
  });

  it('comments on its steps, and a changed image, bump its stamp; a comment on the guide itself, which its record does not show, does not', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const stamp = async () => (await t.db.selectFrom('guides').select('cache_stamp').where('guideid', '=', g.guideid).executeTakeFirstOrThrow()).cache_stamp;
    const kept = await read(g.guideid);
    const s0 = await stamp();
    await t.db.insertInto('comments').values({ context: 'guide', contextid: g.guideid, userid: author.userid, langid: 'en', text_raw: 'On the guide', date: t.clock.now() }).execute();
    expect((await t.post(`/comments/guide/${g.guideid}`, { token: moderator.token, body: { text: 'On the guide, through the API' } })).statusCode).toBe(201);
    const s1 = await stamp();
    expect(s1).toBe(s0);
    // The kept record is still served, and is what a build from nothing gives.
    const hits = guideCaches(t.app).guides.hits;
    const again = await read(g.guideid);
    expect(guideCaches(t.app).guides.hits).toBe(hits + 1);
    expect(again.body).toBe(kept.body);
    guideCaches(t.app).guides.clear();
    await flushStoredRecords(t.app);
    await t.db.deleteFrom('guide_records').where('guideid', '=', g.guideid).execute();
    expect((await read(g.guideid)).body).toBe(kept.body);
    await t.db.insertInto('comments').values({ context: 'step', contextid: g.steps[0].stepid, userid: author.userid, langid: 'en', text_raw: 'On the step', date: t.clock.now() }).execute();
    const s2 = await stamp();
    expect(s2).toBeGreaterThan(s1);
    const image = await makeImage(t, author.userid);
    const withImage = await addStep(t, author, (await read(g.guideid)).json(), { media: { type: 'image', data: [image] } });
    await read(g.guideid);
    await t.db.updateTable('images').set({ width: 1234 }).where('imageid', '=', image).execute();
    expect((await read(g.guideid)).json().steps[1].media.data[0].id).toBe(image);
    expect(await stamp()).toBeGreaterThan(s2);
    expect(withImage.steps).toHaveLength(2);
  });
});

describe('an edit of a guide\'s fields', () => {
  /** The SQL of the queries `run` sends. */
  async function queriesOf(run: () => Promise<unknown>): Promise<string[]> {
    await writeQueued();
    const sent: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (e.level === 'query') sent.push(e.query.sql); });
    try {
      await run();
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    return sent;
  }
  const edit = (g: { guideid: number; revisionid: number }, body: Record<string, unknown>) => t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body });
  /** The guide as a build from nothing kept shows it. */
  const built = async (guideid: number) => {
    guideCaches(t.app).guides.clear();
    return (await read(guideid, '?langid=en')).body;
  };

  it('takes the steps of the record kept at the stamps it locked, loading none of them, and answers what a build from nothing answers', async () => {
    const g = await makePublishedGuide(t, author, 3);
    await t.post(`/comments/step/${g.steps[1].stepid}`, { token: moderator.token, body: { text: 'Kept with its step' } });
    const before = (await read(g.guideid)).json();
    let res!: Awaited<ReturnType<typeof edit>>;
    const sent = await queriesOf(async () => { res = await edit(before, { summary: 'Steps taken as kept', introduction: "An '''intro'''" }); });
    expect(res.statusCode, res.body).toBe(200);
    // No read of what the steps show: lines, images, comments (the revision's snapshot reads
    // which steps there are and their first image, for the guide's).
    expect(sent.filter((q) => /from "(guide_lines|comments)"|select \* from "guide_step_images"/.test(q))).toEqual([]);
    expect(sent.filter((q) => q.includes('guide_step_images'))).toHaveLength(1);
    const answer = res.json();
    expect(answer.summary).toBe('Steps taken as kept');
    expect(answer.introduction_rendered).toContain('<strong>intro</strong>');
    expect(answer.steps).toEqual(before.steps);
    expect(answer.steps[1].comments.map((c: { text_raw: string }) => c.text_raw)).toEqual(['Kept with its step']);
    expect(res.body).toBe(await built(g.guideid));
  });

  it('answers a caller whose record is built for them alone (a private prerequisite) the kept steps too, as a read gives them', async () => {
    const hidden = await makeGuide(t, author);
    const g = await makePublishedGuide(t, author, 2, { prerequisites: [hidden.guideid] });
    const helper = await makeUser(t);
    expect((await t.put(`/guides/${g.guideid}/users/${helper.userid}`, { token: author.token })).statusCode).toBe(200);
    // Kept for readers of every guide (the Author): the steps an edit takes.
    const before = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    let res!: Awaited<ReturnType<typeof edit>>;
    const sent = await queriesOf(async () => { res = await t.patch(`/guides/${g.guideid}?revisionid=${before.revisionid}`, { token: helper.token, body: { summary: 'By a collaborator' } }); });
    expect(res.statusCode, res.body).toBe(200);
    expect(sent.filter((q) => q.includes('guide_lines'))).toEqual([]);
    expect(res.json().summary).toBe('By a collaborator');
    expect(res.json().steps).toEqual(before.steps);
    expect(res.json()).toEqual((await t.get(`/guides/${g.guideid}`, { token: helper.token })).json());
  });

  it('builds its steps when what it locked is not what the kept record was kept at (a comment since), or nothing is kept', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const before = (await read(g.guideid)).json();
    // The comment bumps the guide's stamp after the read kept the record.
    expect((await t.post(`/comments/step/${g.steps[0].stepid}`, { token: moderator.token, body: { text: 'Since the read' } })).statusCode).toBe(201);
    let res!: Awaited<ReturnType<typeof edit>>;
    const sent = await queriesOf(async () => { res = await edit(before, { summary: 'After a comment' }); });
    expect(res.statusCode, res.body).toBe(200);
    expect(sent.some((q) => q.includes('guide_lines'))).toBe(true);
    expect(res.json().steps[0].comments.map((c: { text_raw: string }) => c.text_raw)).toEqual(['Since the read']);
    expect(res.body).toBe(await built(g.guideid));
    // Nothing kept (cleared by `built`): built, the same as a read builds.
    const again = await edit(res.json(), { summary: 'Nothing kept' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(await built(g.guideid));
  });

  /** What `run` sends after its transaction's commit. */
  const afterCommit = (sent: string[]) => sent.slice(sent.findLastIndex((q) => /^commit/i.test(q)) + 1);

  it('of plain columns only, lays the committed row\'s fields over the whole record kept for anyone: nothing is read after the commit, and the answer is what a build from nothing answers', async () => {
    const pre = await makePublishedGuide(t, author, 1);
    const [part, tool, category] = [await makeItem(t), await makeItem(t), await makeCategory(t)];
    const g = await makePublishedGuide(t, author, 2, {
      prerequisites: [pre.guideid], parts: [{ title: part, quantity: 2 }], tools: [{ title: tool }], imageid: await makeImage(t, author.userid),
      introduction: `Before [guide|${pre.guideid}], with '''care'''.`, tags: ['plain-edit'],
    });
    expect((await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${g.revisionid}`, { token: moderator.token })).statusCode).toBe(200);
    const before = (await read(g.guideid)).json();
    const body = { summary: 'Only plain columns', subject: 'A new subject', type: 'repair', category, difficulty: 'Difficult', time_required_min: 600, time_required_max: 1200 };
    let res!: Awaited<ReturnType<typeof edit>>;
    const sent = await queriesOf(async () => { res = await edit(before, body); });
    expect(res.statusCode, res.body).toBe(200);
    expect(sent.some((q) => /^commit/i.test(q))).toBe(true);
    expect(afterCommit(sent)).toEqual([]);
    const answer = res.json();
    expect(answer).toMatchObject({ ...body, time_required: '10 minutes - 20 minutes', revisionid: expect.any(Number) });
    expect(answer.revisionid).toBeGreaterThan(before.revisionid);
    expect(answer.modified_date).toBe(t.clock.now());
    expect(answer.flags).toEqual(['GUIDE_STARRED']);
    expect(answer.parts[0].title).toBe(part);
    expect(answer.introduction_rendered).toBe(before.introduction_rendered);
    expect(res.body).toBe(await built(g.guideid));
    // The answer is kept in turn: the next plain edit lays its fields over it.
    const next = await queriesOf(async () => { res = await edit(answer, { summary: 'Again' }); });
    expect(res.statusCode).toBe(200);
    expect(afterCommit(next)).toEqual([]);
    expect(res.body).toBe(await built(g.guideid));
  });

  it('of the title, the visibility, a rendered text, a linked list or the prerequisites, or with a record kept per viewer, builds the record after the commit', async () => {
    const g = await makePublishedGuide(t, author, 1);
    // Read by the Author, who reads it private too.
    const authorRead = async () => (await t.get(`/guides/${g.guideid}`, { token: author.token })).body;
    for (const body of [{ title: 'A new title' }, { public: false }, { conclusion: 'A new conclusion' }, { parts: [{ title: await makeItem(t) }] }, { prerequisites: [] }, { summary: 'With a title', title: 'Titled again' }]) {
      const before = JSON.parse(await authorRead());
      let res!: Awaited<ReturnType<typeof edit>>;
      const sent = await queriesOf(async () => { res = await edit(before, body); });
      expect(res.statusCode, res.body).toBe(200);
      expect(afterCommit(sent), JSON.stringify(body)).not.toEqual([]);
      guideCaches(t.app).guides.clear();
      expect(res.body).toBe(await authorRead());
    }
    // A private prerequisite: the Author's record is kept for their class, not for anyone.
    const hidden = await makeGuide(t, author);
    const h = await makePublishedGuide(t, author, 1, { prerequisites: [hidden.guideid] });
    const before = (await t.get(`/guides/${h.guideid}`, { token: author.token })).json();
    expect(before.prerequisites.map((p: { guideid: number }) => p.guideid)).toEqual([hidden.guideid]);
    let res!: Awaited<ReturnType<typeof edit>>;
    const sent = await queriesOf(async () => { res = await edit(before, { summary: 'Kept per viewer' }); });
    expect(res.statusCode).toBe(200);
    expect(afterCommit(sent)).not.toEqual([]);
    expect(res.json()).toEqual({ ...(await t.get(`/guides/${h.guideid}`, { token: author.token })).json() });
  });

  it('takes the steps and prerequisites its revision keeps from the revision this process committed at the stamps it locked: neither is read, and the snapshot is the one a read would make; the tags are read', async () => {
    const pre = await makePublishedGuide(t, author, 1);
    const g = await makePublishedGuide(t, author, 2, { prerequisites: [pre.guideid], tags: ['kept-part'] });
    const stepEdit = await t.patch(`/guides/${g.guideid}/steps/${g.steps[1].stepid}?revisionid=${g.steps[1].revisionid}`, { token: author.token, body: { media: { type: 'image', data: [await makeImage(t, author.userid)] } } });
    expect(stepEdit.statusCode, stepEdit.body).toBe(200);
    const snapshotOf = async (revisionid: number) => JSON.parse((await t.db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', revisionid).executeTakeFirstOrThrow()).snapshot);
    // Read in the transaction (the answer, built after it, may read them).
    const inTransaction = (sent: string[]) => sent.slice(0, sent.findLastIndex((q) => /^commit/i.test(q)));
    const partsRead = (sent: string[]) => inTransaction(sent).filter((q) => /from "guide_steps"|from "guide_prereqs"/.test(q));
    // Tags belong to the guide in every language: read in every change's transaction.
    const tagsRead = (sent: string[]) => inTransaction(sent).filter((q) => /from "doc_tags"/.test(q));
    let current = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    let res = await edit(current, { summary: 'First' });
    expect(res.statusCode, res.body).toBe(200);
    const first = await snapshotOf(res.json().revisionid);
    let sent = await queriesOf(async () => { res = await edit(res.json(), { summary: 'Second' }); });
    expect(res.statusCode, res.body).toBe(200);
    expect(partsRead(sent)).toEqual([]);
    const cacheStampOf = async () => t.db.selectFrom('guides').select('cache_stamp').where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    expect(tagsRead(sent)).toHaveLength(1);
    const second = await snapshotOf(res.json().revisionid);
    expect(second.fields.summary).toBe('Second');
    expect({ ...second, fields: undefined }).toEqual({ ...first, fields: undefined });
    expect(second).toMatchObject({ prerequisites: [pre.guideid], tags: ['kept-part'], steps: g.steps.map((s: { stepid: number }) => ({ stepid: s.stepid, revisionid: expect.any(Number) })) });
    // Publishing takes them too; the image of its steps stays. They are kept under the stamp
    // the edit committed, which nothing has moved since. (Twice in CI on PostgreSQL this looked
    // like a bump of the guide's stamp from nowhere, and the test tolerated it: it was the
    // stored records' writer committing while the request was measured, `writeQueued` above.)
    const stampBefore = (await cacheStampOf()).cache_stamp;
    expect(keptParts(t.app).get({ guideid: g.guideid, langid: 'en', revisionid: res.json().revisionid, cache_stamp: stampBefore })).toBeDefined();
    sent = await queriesOf(async () => { res = await t.del(`/guides/${g.guideid}/public?revisionid=${res.json().revisionid}`, { token: author.token }); });
    expect(res.statusCode, res.body).toBe(200);
    expect(partsRead(sent)).toEqual([]);
    expect(res.json().image).not.toBeNull();
    current = res.json();
    // A comment on a step bumps the stamp: read again, and the same parts.
    expect((await t.post(`/comments/step/${g.steps[0].stepid}`, { token: author.token, body: { text: 'A bump' } })).statusCode).toBe(201);
    sent = await queriesOf(async () => { res = await edit(current, { summary: 'Third' }); });
    expect(res.statusCode, res.body).toBe(200);
    expect(partsRead(sent).length).toBe(2);
    expect({ ...(await snapshotOf(res.json().revisionid)), fields: undefined }).toEqual({ ...first, fields: undefined });
    // A tag bumps the stamps of the guide in every language (invalidateGuide): the next edit reads its parts again.
    expect((await t.put(`/guides/${g.guideid}/tag?revisionid=${res.json().revisionid}`, { token: author.token, body: { tag: 'another-part' } })).statusCode).toBe(200);
    current = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    sent = await queriesOf(async () => { res = await edit(current, { summary: 'Fourth' }); });
    expect(partsRead(sent).length).toBe(2);
    expect((await snapshotOf(res.json().revisionid)).tags).toEqual(['another-part', 'kept-part']);
    // ...and the one after takes them again.
    sent = await queriesOf(async () => { res = await edit(res.json(), { summary: 'Fifth' }); });
    expect(partsRead(sent)).toEqual([]);
    expect({ ...(await snapshotOf(res.json().revisionid)), fields: undefined, tags: undefined }).toEqual({ ...first, fields: undefined, tags: undefined });
  });

  it('does not renew what it takes: the answer ages from when the record it took the steps of was kept', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const cache = guideCaches(t.app).guides;
    await read(g.guideid);
    // A change no stamp follows (as 'a change without a new revision...' above): shows once the kept record has aged out.
    await t.db.updateTable('guide_lines').set({ text: 'Changed by hand' }).where('stepid', '=', g.steps[0].stepid).execute();
    t.clock.advance(t.app.config.guideCacheTtl - 1);
    const res = await edit(g, { summary: 'Near the end of its life' });
    expect(res.statusCode).toBe(200);
    expect(res.json().steps[0].lines[0].text_raw).toBe('Line of step 1');
    const hits = cache.hits;
    expect((await read(g.guideid)).json().summary).toBe('Near the end of its life');
    expect(cache.hits).toBe(hits + 1);
    // One second on, the kept record would have aged out, and so has the edit's answer.
    t.clock.advance(1);
    const after = (await read(g.guideid)).json();
    expect(cache.hits).toBe(hits + 1);
    expect(after.steps[0].lines[0].text_raw).toBe('Changed by hand');
    expect(after.summary).toBe('Near the end of its life');
  });
});

describe('comments on steps', () => {
  it('a new comment on a step, and its author\'s new name, show at once', async () => {
    const g = await makePublishedGuide(t, author, 1);
    expect((await read(g.guideid)).json().steps[0].comments).toEqual([]);
    const res = await t.post(`/comments/step/${g.steps[0].stepid}`, { token: moderator.token, body: { text: 'A comment on the step' } });
    expect(res.statusCode).toBe(201);
    let step = (await read(g.guideid)).json().steps[0];
    expect(step.comments.map((c: { text_raw: string }) => c.text_raw)).toEqual(['A comment on the step']);
    expect((await t.patch(`/users/${moderator.userid}`, { token: moderator.token, body: { username: 'Renamed Moderator' } })).statusCode).toBe(200);
    step = (await read(g.guideid)).json().steps[0];
    expect(JSON.stringify(step.comments[0])).toContain('Renamed Moderator');
  });
});

describe('the list cache', () => {
  it('a list page shows a new title, a new flag and an unpublished guide at once', async () => {
    const g = await makePublishedGuide(t, author, 0);
    const page = async () => (await t.get(`/guides?guideids=${g.guideid}`)).json();
    expect((await page())[0].title).toBe(g.title);
    const hits = guideCaches(t.app).lists.hits;
    expect((await page())[0].title).toBe(g.title);
    expect(guideCaches(t.app).lists.hits).toBe(hits + 1);

    let res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'A new title for the list' } });
    expect(res.statusCode).toBe(200);
    expect((await page())[0].title).toBe('A new title for the list');
    res = await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${res.json().revisionid}`, { token: moderator.token });
    expect(res.statusCode).toBe(200);
    expect((await page())[0].flags).toEqual(['GUIDE_STARRED']);
    res = await t.del(`/guides/${g.guideid}/public?revisionid=${res.json().revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(200);
    expect(await page()).toEqual([]);
  });
});

describe('list pages kept through writes of guides they do not show', () => {
  it('an edit of another guide costs the kept page one check, and the same bytes and tag; what the page shows, and which guides it shows, change it at once', async () => {
    // One after another: the page is in guideid order.
    const a = await makePublishedGuide(t, author, 0, { title: 'Listed first' });
    const b = await makePublishedGuide(t, author, 0, { title: 'Listed second' });
    const hidden = await makeGuide(t, author, { title: 'Not listed yet' });
    const other = await makePublishedGuide(t, author, 0, { title: 'Never listed' });
    const path = `/guides?guideids=${a.guideid},${b.guideid},${hidden.guideid}`;
    const page = async () => {
      const res = await t.get(path);
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    const first = await page();
    expect(first.json().map((g: { guideid: number }) => g.guideid)).toEqual([a.guideid, b.guideid]);

    const edit = await t.patch(`/guides/${other.guideid}?revisionid=${other.revisionid}`, { token: author.token, body: { summary: 'Another guide, edited.' } });
    expect(edit.statusCode, edit.body).toBe(200);
    let again: { body: string; headers: Record<string, unknown> } = first;
    const sent = await statementsOf(async () => { again = await page(); });
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    // The check alone: no owners, flags, images or prerequisites read, nothing built.
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toMatch(/users|guide_flags|images|guide_prereqs/);
    // Renewed under the new stamp: the next read is a hit with no statement at all.
    expect(await statementsOf(page)).toEqual([]);

    // What the page shows of a row it lists (by hand: no revision), a flag, the owner's name.
    await t.db.updateTable('guides').set({ title: 'Listed first, renamed by hand' }).where('guideid', '=', a.guideid).execute();
    expect((await page()).json()[0].title).toBe('Listed first, renamed by hand');
    await t.db.insertInto('guide_flags').values({ guideid: b.guideid, flagid: 'GUIDE_STARRED', userid: null, date: 1 }).execute();
    expect((await page()).json()[1].flags).toEqual(['GUIDE_STARRED']);
    const renamed = `Renamed owner ${a.guideid}`;
    await t.db.updateTable('users').set({ username: renamed }).where('userid', '=', author.userid).execute();
    expect((await page()).json().map((g: { username: string }) => g.username)).toEqual([renamed, renamed]);
    // A guide comes into the page (made public by hand) and goes again (deleted).
    await t.db.updateTable('guides').set({ public: 1 }).where('guideid', '=', hidden.guideid).execute();
    expect((await page()).json().map((g: { guideid: number }) => g.guideid)).toEqual([a.guideid, b.guideid, hidden.guideid]);
    await t.db.updateTable('guides').set({ deleted: 1 }).where('guideid', '=', a.guideid).execute();
    expect((await page()).json().map((g: { guideid: number }) => g.guideid)).toEqual([b.guideid, hidden.guideid]);
  });
});

describe('a kept page checked by its keys', () => {
  const idsOf = (res: { json: () => unknown }) => (res.json() as Array<{ guideid: number; locale: string }>).map((g) => `${g.guideid}:${g.locale}`);

  it('after an edit of another guide, a deep page whose guides follow the reach stamp reads its rows by key; a change of which guides make it is seen at once', async () => {
    const other = await makePublishedGuide(t, author, 0);
    const [a, b, c] = [await makePublishedGuide(t, author, 0), await makePublishedGuide(t, author, 0), await makePublishedGuide(t, author, 0)];
    // Deep enough to be checked by its keys (checkedByKeys): rows before it in DESC order,
    // copies of a's row by hand under ids no test reaches, then c; the page is b and a.
    const deep = 100;
    expect(checkedByKeys(deep + 1, 2)).toBe(true);
    const row = await t.db.selectFrom('guides').selectAll().where('guideid', '=', a.guideid).executeTakeFirstOrThrow();
    const copies = Array.from({ length: deep }, (_, i) => 1_000_000_000 + i);
    await t.db.insertInto('guides').values(copies.map((guideid) => ({ ...row, guideid }))).execute();
    const path = `/guides?order=DESC&offset=${deep + 1}&limit=2`;
    const listed = async () => {
      const res = await t.get(path);
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    let revisionid = other.revisionid;
    const editOther = async () => {
      const res = await t.patch(`/guides/${other.guideid}?revisionid=${revisionid}`, { token: author.token, body: { summary: `Edited at ${revisionid}.` } });
      expect(res.statusCode, res.body).toBe(200);
      revisionid = res.json().revisionid;
    };
    const first = await listed();
    expect(idsOf(first)).toEqual([`${b.guideid}:en`, `${a.guideid}:en`]);

    await editOther();
    let again: { body: string; headers: Record<string, unknown> } = first;
    const sent = await statementsOf(async () => { again = await listed(); });
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    // One statement, by the page's keys: neither its offset nor its limit.
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toMatch(/offset|limit/i);

    // A language of a guide the page shows, at its end (by hand): the guide's keys that
    // the page does not show are no change of it, and the next check is by key still.
    await t.db.insertInto('guides').values({ ...row, langid: 'aa' }).execute();
    expect(idsOf(await listed())).toEqual([`${b.guideid}:en`, `${a.guideid}:en`]);
    await editOther();
    const byKey = await statementsOf(async () => { again = await listed(); });
    expect(byKey).toHaveLength(1);
    expect(byKey[0]).not.toMatch(/offset|limit/i);
    expect(again.body).toBe(first.body);

    // A guide before the page goes private, then comes back: the page moves, at once each time.
    await t.db.updateTable('guides').set({ public: 0 }).where('guideid', '=', c.guideid).execute();
    expect(idsOf(await listed())).toEqual([`${a.guideid}:en`, `${a.guideid}:aa`]);
    await editOther();
    await t.db.updateTable('guides').set({ public: 1 }).where('guideid', '=', c.guideid).execute();
    expect(idsOf(await listed())).toEqual([`${b.guideid}:en`, `${a.guideid}:en`]);
    // What a row on the page shows, changed by hand, after a check by key.
    await editOther();
    expect((await listed()).body).toBe(first.body);
    await editOther();
    await t.db.updateTable('guides').set({ title: 'Renamed on a kept page' }).where('guideid', '=', b.guideid).execute();
    expect((await listed()).json()[0].title).toBe('Renamed on a kept page');
    // A shallow page is checked by its own query.
    expect(checkedByKeys(1, 2)).toBe(false);
    await t.db.deleteFrom('guides').where((eb) => eb.or([eb('guideid', 'in', copies), eb.and([eb('guideid', '=', a.guideid), eb('langid', '=', 'aa')])])).execute();
  });

  it('a page filtered by a column the reach stamp does not follow (type, modifiedSince) is checked by its own query: a guide that comes to pass the filter is seen at once', async () => {
    const g = await makePublishedGuide(t, author, 0);
    const since = 4_000_000_000;
    const typed = `/guides?guideids=${g.guideid}&filter=technique`;
    const recent = `/guides?guideids=${g.guideid}&modifiedSince=${since}`;
    expect((await t.get(typed)).json()).toEqual([]);
    expect((await t.get(recent)).json()).toEqual([]);
    // By hand, no other stamp than the row's (and so the 'guides' stamp) moves.
    await t.db.updateTable('guides').set({ type: 'technique' }).where('guideid', '=', g.guideid).execute();
    expect(idsOf(await t.get(typed))).toEqual([`${g.guideid}:en`]);
    await t.db.updateTable('guides').set({ modified_date: since + 1 }).where('guideid', '=', g.guideid).execute();
    expect(idsOf(await t.get(recent))).toEqual([`${g.guideid}:en`]);
  });
});

describe('the stamps of the guides that require a guide', () => {
  it('an edit, a new language and the removal of a guide bump the guides that require it, one and two levels down, and no other', async () => {
    const a = await makePublishedGuide(t, author, 0, { title: 'Required first' });
    const b = await makePublishedGuide(t, author, 0, { prerequisites: [a.guideid] });
    const c = await makePublishedGuide(t, author, 0, { prerequisites: [b.guideid] });
    const other = await makePublishedGuide(t, author, 0);
    const stamps = async () => Object.fromEntries((await t.db.selectFrom('guides').select(['guideid', 'cache_stamp']).where('guideid', 'in', [b.guideid, c.guideid, other.guideid]).execute())
      .map((r) => [r.guideid === b.guideid ? 'b' : r.guideid === c.guideid ? 'c' : 'other', Number(r.cache_stamp)]));
    let before = await stamps();
    const bumped = async (change: () => Promise<unknown>) => {
      await change();
      const after = await stamps();
      const moved = Object.keys(after).filter((k) => after[k] !== before[k]).sort();
      before = after;
      return moved;
    };
    expect(await bumped(() => t.db.updateTable('guides').set({ title: 'Required, renamed' }).where('guideid', '=', a.guideid).execute())).toEqual(['b', 'c']);
    // A guide nobody requires: nothing else moves; its own stamp does (its row changed).
    expect(await bumped(() => t.db.updateTable('guides').set({ title: 'Required by nobody' }).where('guideid', '=', other.guideid).execute())).toEqual(['other']);
    const row = await t.db.selectFrom('guides').selectAll().where('guideid', '=', a.guideid).executeTakeFirstOrThrow();
    expect(await bumped(() => t.db.insertInto('guides').values({ ...row, langid: 'xx' }).execute())).toEqual(['b', 'c']);
    expect(await bumped(() => t.db.deleteFrom('guides').where('guideid', '=', a.guideid).where('langid', '=', 'xx').execute())).toEqual(['b', 'c']);
  });
});

describe('concurrent misses', () => {
  const queriesOf = async (run: () => Promise<unknown>): Promise<number> => (await statementsOf(run)).length;
  // A list page's statements but its check (its rows' columns, no owners joined): a reader
  // that comes after the first reader's check ended reads it again; the build is shared.
  const buildStatementsOf = async (run: () => Promise<unknown>): Promise<number> =>
    (await statementsOf(run)).filter((q) => !(/"cache_stamp"/.test(q) && !/"users"/.test(q))).length;

  it('readers who miss what another is building wait for that build: a list page after a change, a guide after an edit', async () => {
    const g = await makePublishedGuide(t, author, 2, { title: 'Waited for' });
    const path = `/guides?guideids=${g.guideid}`;
    const rename = (title: string) => t.db.updateTable('guides').set({ title }).where('guideid', '=', g.guideid).execute();
    await t.get(path);
    // Kept, then changed: a reader checks the kept page and builds it again.
    await rename('Waited for, once');
    const alone = await buildStatementsOf(() => t.get(path));
    await rename('Waited for, by six');
    let pages: Array<{ statusCode: number; body: string }> = [];
    const six = await buildStatementsOf(async () => { pages = await Promise.all(Array.from({ length: 6 }, () => t.get(path))); });
    expect(six).toBe(alone);
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(pages.map((p) => p.body)).size).toBe(1);
    expect(JSON.parse(pages[0].body)[0].title).toBe('Waited for, by six');

    // A guide: the first read after an edit builds it (its head read by each reader, the rest once).
    const edited = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Edited once.' } });
    expect(edited.statusCode, edited.body).toBe(200);
    await invalidateGuide(t.db, g.guideid);
    const one = await queriesOf(() => read(g.guideid));
    await flushStoredRecords(t.app);
    await invalidateGuide(t.db, g.guideid);
    let reads: Array<{ body: string }> = [];
    const many = await queriesOf(async () => { reads = await Promise.all(Array.from({ length: 6 }, () => read(g.guideid))); });
    expect(new Set(reads.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(reads[0].body).summary).toBe('Edited once.');
    // Each reader reads the head; no reader but the first builds.
    const heads = t.dialect === 'postgres' ? 1 : 5;
    expect(many).toBeLessThanOrEqual(one + heads);
  });
});

describe('heads read at once', () => {
  it('concurrent reads of different guides each get their own guide (on PostgreSQL their heads share queries), and an edit shows at the next read', async () => {
    const guides = await Promise.all(Array.from({ length: 6 }, (_, i) => makePublishedGuide(t, author, 0, { title: `Read at once ${i}` })));
    const heads: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (/from "guides"/.test(e.query.sql) && /"cache_stamp"/.test(e.query.sql)) heads.push(e.query.sql); });
    let answers;
    try {
      answers = await Promise.all([...guides, ...guides].map((g) => read(g.guideid)));
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(answers.map((a) => a.json().title)).toEqual([...guides, ...guides].map((g) => g.title));
    // SQLite reads each head at once; PostgreSQL sends one, and the readers who asked meanwhile share the next.
    if (t.dialect === 'postgres') expect(heads.length).toBeLessThan(6);
    else expect(heads).toHaveLength(12);
    const g = guides[0];
    const edit = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'Read at once, edited' } });
    expect(edit.statusCode, edit.body).toBe(200);
    const again = await Promise.all(guides.map((x) => read(x.guideid)));
    expect(again.map((a) => a.json().title)).toEqual(['Read at once, edited', ...guides.slice(1).map((x) => x.title)]);
  });
});

describe('migration 2026_11_27_0100_guide_comments_stamp', () => {
  it('down puts back the bump of a comment on the guide itself, up takes it away again', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const stamp = async () => (await t.db.selectFrom('guides').select('cache_stamp').where('guideid', '=', g.guideid).executeTakeFirstOrThrow()).cache_stamp;
    const comment = () => t.db.insertInto('comments').values({ context: 'guide', contextid: g.guideid, userid: author.userid, langid: 'en', text_raw: 'On the guide', date: t.clock.now() }).execute();
    const s0 = await stamp();
    await guideCommentsStamp.down(t.db);
    try {
      await comment();
      expect(await stamp()).toBe(s0 + 1);
    } finally {
      await guideCommentsStamp.up(t.db);
    }
    await comment();
    expect(await stamp()).toBe(s0 + 1);
    await t.db.insertInto('comments').values({ context: 'step', contextid: g.steps[0].stepid, userid: author.userid, langid: 'en', text_raw: 'On the step', date: t.clock.now() }).execute();
    expect(await stamp()).toBe(s0 + 2);
  });
});

describe('migration 2026_11_28_2200_guide_row_stamp', () => {
  it('a change of the row itself moves its stamp once, whoever writes it, and shows at once; an edit moves it once; down takes that away, up puts it back', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const stamp = async () => Number((await t.db.selectFrom('guides').select('cache_stamp').where('guideid', '=', g.guideid).executeTakeFirstOrThrow()).cache_stamp);
    const byHand = (summary: string) => t.db.updateTable('guides').set({ summary }).where('guideid', '=', g.guideid).execute();
    await read(g.guideid);
    await flushStoredRecords(t.app);
    const s0 = await stamp();
    // SQL by hand, no revision: the kept record and the stored one are not served.
    await byHand('Changed by hand');
    expect(await stamp()).toBe(s0 + 1);
    expect((await read(g.guideid)).json().summary).toBe('Changed by hand');
    guideCaches(t.app).guides.clear();
    expect((await read(g.guideid)).json().summary).toBe('Changed by hand');
    // A write of the stamp itself, or of a column no record shows, moves nothing more.
    await t.db.updateTable('guides').set((eb) => ({ cache_stamp: eb('cache_stamp', '+', 5) })).where('guideid', '=', g.guideid).execute();
    expect(await stamp()).toBe(s0 + 6);
    await t.db.updateTable('guides').set((eb) => ({ reader_revisionid: eb.ref('reader_revisionid') })).where('guideid', '=', g.guideid).execute();
    expect(await stamp()).toBe(s0 + 6);
    // An edit: one move, made by the edit's own update (what it returned is what is kept).
    const current = (await read(g.guideid)).json();
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${current.revisionid}`, { token: author.token, body: { summary: 'Edited' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await stamp()).toBe(s0 + 7);
    await guideRowStamp.down(t.db);
    try {
      await byHand('Changed by hand, not seen');
      expect(await stamp()).toBe(s0 + 7);
    } finally {
      await guideRowStamp.up(t.db);
    }
    await byHand('Changed by hand again');
    expect(await stamp()).toBe(s0 + 8);
    expect((await read(g.guideid)).json().summary).toBe('Changed by hand again');
  });
});
