// Comment pages and suggestions are kept as bytes under stamps the database bumps
// (migration 2026_11_25_0410): every write, through the API or by hand in SQL, shows at
// the next read, and a page kept for one kind of reader is never given to another.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makeImage, makePublishedGuide } from '../../helpers/factories/guides.js';
import { enc, makeComment, makeWiki } from '../../helpers/factories/wikis.js';
import { answerCache, cacheStamp, cacheStamps } from '../../../src/areas/shared/byte-cache.js';
import * as guideReachStamp from '../../../src/db/migrations/2026_11_27_2100_guide_reach_stamp.js';

let admin: TestUser;
let author: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  [admin, author, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

const guideComments = async (token?: string) => {
  const res = await t.get('/comments?context=guide&limit=200', { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
};

describe('GET /comments, kept as bytes', () => {
  it('shows new comments, edits by hand, renamed authors and guides made private at the next read', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: unique('Cached list guide ') });
    const first = await makeComment(t, user, 'guide', g.guideid, { text: 'The first comment here.' });
    expect((await guideComments()).map((c) => c.commentid)).toContain(first.commentid);
    const hits = answerCache(t.app).hits;
    await guideComments();
    expect(answerCache(t.app).hits).toBe(hits + 1); // the second read was the kept page
    const second = await makeComment(t, user, 'guide', g.guideid, { text: 'The second comment here.' });
    expect((await guideComments()).map((c) => c.commentid)).toEqual(expect.arrayContaining([first.commentid, second.commentid]));

    await sql`update comments set text_raw = 'Edited by hand.' where commentid = ${first.commentid}`.execute(t.db);
    expect((await guideComments()).find((c) => c.commentid === first.commentid)!.text_raw).toBe('Edited by hand.');

    const name = unique('renamed');
    await sql`update users set username = ${name} where userid = ${user.userid}`.execute(t.db);
    expect((await guideComments()).find((c) => c.commentid === first.commentid)!.author.username).toBe(name);

    // Private: anonymous readers lose the guide's comments, Admins keep them (each from its own kept page).
    expect((await guideComments(admin.token)).map((c) => c.commentid)).toContain(first.commentid);
    await sql`update guides set public = 0 where guideid = ${g.guideid}`.execute(t.db);
    expect((await guideComments()).map((c) => c.commentid)).not.toContain(first.commentid);
    expect((await guideComments(admin.token)).map((c) => c.commentid)).toContain(first.commentid);
    expect((await guideComments(user.token)).map((c) => c.commentid)).not.toContain(first.commentid);
  });
});

describe('GET /comments, kept through edits of guides\' texts', () => {
  const stepComments = async () => {
    const res = await t.get('/comments?context=step&limit=200');
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as Array<Record<string, any>>).map((c) => c.commentid);
  };

  it('keeps the pages through an edit of a guide\'s fields, and follows guides and steps that come, go, or change who reads them', async () => {
    let g = await makePublishedGuide(t, author, 1, { title: unique('Reach guide ') });
    const step = g.steps[0];
    const onGuide = await makeComment(t, user, 'guide', g.guideid, { text: 'On the guide itself.' });
    const onStep = await makeComment(t, user, 'step', step.stepid, { text: 'On its only step.' });
    expect((await guideComments()).map((c) => c.commentid)).toContain(onGuide.commentid);
    expect(await stepComments()).toContain(onStep.commentid);

    // An edit of the guide's text shows in no comment: both pages are the kept ones.
    const hits = answerCache(t.app).hits;
    const edit = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Edited, no comment changes.' } });
    expect(edit.statusCode, edit.body).toBe(200);
    g = edit.json();
    expect((await guideComments()).map((c) => c.commentid)).toContain(onGuide.commentid);
    expect(await stepComments()).toContain(onStep.commentid);
    expect(answerCache(t.app).hits).toBe(hits + 2);

    // Deleted and restored by hand: gone for anonymous readers, then back.
    await sql`update guides set deleted = 1 where guideid = ${g.guideid}`.execute(t.db);
    expect((await guideComments()).map((c) => c.commentid)).not.toContain(onGuide.commentid);
    expect(await stepComments()).not.toContain(onStep.commentid);
    await sql`update guides set deleted = 0 where guideid = ${g.guideid}`.execute(t.db);
    expect((await guideComments()).map((c) => c.commentid)).toContain(onGuide.commentid);

    // A private guide's comments come in when it is made public (by hand): a page that
    // showed none of its comments still changes.
    const hidden = await makeGuide(t, author, { title: unique('Hidden reach guide ') });
    const onHidden = await makeComment(t, author, 'guide', hidden.guideid, { text: 'On a private guide.' });
    expect((await guideComments()).map((c) => c.commentid)).not.toContain(onHidden.commentid);
    await sql`update guides set public = 1 where guideid = ${hidden.guideid}`.execute(t.db);
    expect((await guideComments()).map((c) => c.commentid)).toContain(onHidden.commentid);

    // A step moved by hand to a language its guide does not have: its comments are on no
    // guide a reader reads (the comments themselves did not change).
    await sql`update guide_steps set langid = 'xx' where stepid = ${step.stepid}`.execute(t.db);
    expect(await stepComments()).not.toContain(onStep.commentid);
  });
});

describe('migration 2026_11_27_2100_guide_reach_stamp', () => {
  it('bumps guide_reach for what decides who reads a guide and not for its text; down takes the stamp and its triggers away, up puts them back', async () => {
    const g = await makePublishedGuide(t, author, 1, { title: unique('Reach stamp guide ') });
    const reach = async () => (await cacheStamps(t.db, 'guide_reach', 'guides'))[0];
    const moved = async (change: () => Promise<unknown>) => {
      const before = await reach();
      await change();
      return (await reach()) !== before;
    };
    expect(await moved(() => sql`update guides set summary = 'Text only.' where guideid = ${g.guideid}`.execute(t.db))).toBe(false);
    expect(await moved(() => sql`update guide_steps set title = 'Text only.' where stepid = ${g.steps[0].stepid}`.execute(t.db))).toBe(false);
    expect(await moved(() => sql`update guides set public = 0 where guideid = ${g.guideid}`.execute(t.db))).toBe(true);
    expect(await moved(() => sql`update guides set deleted = 1 where guideid = ${g.guideid}`.execute(t.db))).toBe(true);
    expect(await moved(() => sql`update guide_steps set langid = 'xx' where stepid = ${g.steps[0].stepid}`.execute(t.db))).toBe(true);

    await guideReachStamp.down(t.db);
    try {
      expect(await reach()).toBe(-1);
      await sql`update guides set public = 1, deleted = 0 where guideid = ${g.guideid}`.execute(t.db);
    } finally {
      await guideReachStamp.up(t.db);
    }
    expect(await moved(() => sql`update guides set public = 0 where guideid = ${g.guideid}`.execute(t.db))).toBe(true);
    expect(await moved(() => sql`update guide_steps set langid = 'en' where stepid = ${g.steps[0].stepid}`.execute(t.db))).toBe(true);
  });
});

describe('GET /suggest/{query}, kept as bytes', () => {
  const suggest = async (q: string) => {
    const res = await t.get(`/suggest/${enc(q)}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results as Array<Record<string, any>>;
  };

  it('finds wikis written or renamed by hand and shows guides\' new summaries at the next read', async () => {
    expect(await suggest('Quillback')).toEqual([]);
    const w = await makeWiki(t, author, { title: 'Quillback pump' });
    expect((await suggest('Quillback')).map((r) => r.wikiid)).toEqual([w.wikiid]);
    await sql`update wikis set title = 'Quillfin pump' where wikiid = ${w.wikiid}`.execute(t.db);
    expect(await suggest('Quillback')).toEqual([]);
    expect((await suggest('Quillfin')).map((r) => r.wikiid)).toEqual([w.wikiid]);

    const g = await makePublishedGuide(t, author, 0, { title: 'Zebrafix gearbox', summary: 'Old summary.' });
    expect((await suggest('Zebrafix')).map((r) => r.summary)).toEqual(['Old summary.']);
    await sql`update guides set summary = 'New summary.' where guideid = ${g.guideid}`.execute(t.db);
    expect((await suggest('Zebrafix')).map((r) => r.summary)).toEqual(['New summary.']);
    await sql`update guides set public = 0 where guideid = ${g.guideid}`.execute(t.db);
    expect(await suggest('Zebrafix')).toEqual([]);
  });

  /** Queries sent while `run` runs that read the search index. */
  async function searchQueries(run: () => Promise<unknown>): Promise<number> {
    let n = 0;
    t.app.dbHandle.setQueryListener!((e) => { if (/search_docs|search_fts/.test(e.query.sql)) n++; });
    try {
      await run();
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    return n;
  }
  const stampsNow = async () => Object.fromEntries((await t.db.selectFrom('cache_stamps').select(['key', 'stamp']).where('key', 'in', ['search', 'search_titles']).execute()).map((r) => [r.key, Number(r.stamp)]));

  it('an answer the titles filled is kept through comments and edits of bodies, and shows titles, visibility and new titled documents at the next read', async () => {
    const wikis = [];
    for (let i = 0; i < 11; i++) wikis.push(await makeWiki(t, author, { title: `Vortexa part ${String(i).padStart(2, '0')}` }));
    const first = await suggest('Vortexa');
    expect(first.map((r) => r.title)).toEqual(wikis.slice(0, 10).map((w) => w.title));

    // A comment whose words match, and a body edited by hand: 'search' moves, 'search_titles' does not.
    const before = await stampsNow();
    await makeComment(t, user, 'wiki', wikis[10].wikiid, { text: 'Vortexa parts wear out.' });
    await sql`update search_docs set body = 'Vortexa Vortexa' where kind = 'wiki' and docid = ${wikis[3].wikiid}`.execute(t.db);
    const after = await stampsNow();
    expect(after.search).toBeGreaterThan(before.search);
    expect(after.search_titles).toBe(before.search_titles);
    const hits = answerCache(t.app).hits;
    expect(await searchQueries(async () => expect(await suggest('Vortexa')).toEqual(first))).toBe(0);
    expect(answerCache(t.app).hits).toBe(hits + 1);

    // What the title tier reads does move it: a row hidden by hand, a new titled wiki (shorter: first).
    await sql`update search_docs set visible = 0 where kind = 'wiki' and docid = ${wikis[0].wikiid}`.execute(t.db);
    expect((await suggest('Vortexa')).map((r) => r.wikiid)).toEqual(wikis.slice(1, 11).map((w) => w.wikiid));
    const short = await makeWiki(t, author, { title: 'Vortexa' });
    expect((await suggest('Vortexa')).map((r) => r.wikiid)).toEqual([short.wikiid, ...wikis.slice(1, 10).map((w) => w.wikiid)]);
    expect((await stampsNow()).search_titles).toBeGreaterThan(after.search_titles);
  });

  it('an edit of a guide that changes no title shows at the next read without searching again; a new title searches again', async () => {
    const guides = [];
    for (let i = 0; i < 11; i++) guides.push(await makePublishedGuide(t, author, 0, { title: `Kestrune gear ${String(i).padStart(2, '0')}`, summary: 'First summary.' }));
    expect((await suggest('Kestrune')).map((r) => r.guideid)).toEqual(guides.slice(0, 10).map((g) => g.guideid));
    await sql`update guides set summary = 'Second summary.' where guideid = ${guides[0].guideid}`.execute(t.db);
    let results: Array<Record<string, any>> = [];
    expect(await searchQueries(async () => { results = await suggest('Kestrune'); })).toBe(0);
    expect(results.map((r) => r.guideid)).toEqual(guides.slice(0, 10).map((g) => g.guideid));
    expect(results[0].summary).toBe('Second summary.');
    await sql`update guides set title = 'Renamed gear' where guideid = ${guides[0].guideid}`.execute(t.db);
    expect(await searchQueries(async () => { results = await suggest('Kestrune'); })).toBeGreaterThan(0);
    expect(results.map((r) => r.guideid)).toEqual(guides.slice(1, 11).map((g) => g.guideid));
  });

  it('an answer is kept through an edit of a guide it does not show (one check, the same bytes), and shows an edit of a guide it shows and a new guid of a wiki\'s image at once', async () => {
    const shown = await makePublishedGuide(t, author, 0, { title: 'Brindlecot gasket' });
    const other = await makePublishedGuide(t, author, 0, { title: unique('Unrelated guide ') });
    const imageid = await makeImage(t, author.userid);
    const w = await makeWiki(t, author, { title: 'Brindlecot seal', image: imageid });
    const path = `/suggest/Brindlecot`;
    const first = await t.get(path);
    expect(first.json().results.map((r: Record<string, any>) => r.guideid ?? r.wikiid)).toEqual(expect.arrayContaining([shown.guideid, w.wikiid]));

    // By hand, a column the index does not hold: 'guides' moves, the search stamps do not.
    const before = await stampsNow();
    await sql`update guides set difficulty = 'Difficult' where guideid = ${other.guideid}`.execute(t.db);
    expect(await stampsNow()).toEqual(before);
    const sent: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (!/cache_stamps/.test(e.query.sql)) sent.push(e.query.sql); });
    let again;
    try {
      again = await t.get(path);
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(again.body).toBe(first.body);
    // The check: the guides' rows and the wiki's image, no search, no records built.
    expect(sent).toHaveLength(2);
    expect(sent.join('\n')).not.toMatch(/search_docs|search_fts|users|guide_flags|wikis/);

    await sql`update guides set modified_date = 1234567 where guideid = ${shown.guideid}`.execute(t.db);
    const edited = (await t.get(path)).json().results.find((r: Record<string, any>) => r.guideid === shown.guideid);
    expect(edited.modified_date).toBe(1234567);
    await sql`update images set guid = ${'0000feed-0000-4000-8000-000000000001'} where imageid = ${imageid}`.execute(t.db);
    const wiki = (await t.get(path)).json().results.find((r: Record<string, any>) => r.wikiid === w.wikiid);
    expect(wiki.image.guid).toBe('0000feed-0000-4000-8000-000000000001');
  });

  it('an answer the titles did not fill follows every write of the index: a matching comment shows at the next read', async () => {
    const w = await makeWiki(t, author, { title: 'Quorvane valve' });
    const other = await makeWiki(t, author, { title: unique('Plain wiki ') });
    expect((await suggest('Quorvane')).map((r) => r.wikiid)).toEqual([w.wikiid]);
    await makeComment(t, user, 'wiki', other.wikiid, { text: 'Fits the Quorvane too.' });
    expect((await suggest('Quorvane')).map((r) => r.wikiid)).toEqual([w.wikiid, other.wikiid]);
  });
});

describe('reads of the stamps', () => {
  it('readers who ask while a read is out share the next one (sent after they asked), and each sees what committed before it asked', async () => {
    const reads: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (/from "cache_stamps"/.test(e.query.sql)) reads.push(e.query.sql); });
    try {
      const before = await cacheStamp(t.db, 'search');
      // A write that changes no stamp: on SQLite the stamps read last are no longer trusted
      // (test/db/stamps-version.test.ts), so the asks below read the table, as on PostgreSQL.
      await sql`update cache_stamps set stamp = stamp where key = 'search'`.execute(t.db);
      reads.length = 0;
      // The first is sent at once; the seven that ask while it is out share one more.
      const all = await Promise.all([cacheStamp(t.db, 'search'), ...Array.from({ length: 7 }, () => cacheStamps(t.db, 'search', 'guides'))]);
      expect(reads).toHaveLength(2);
      expect(all.map((a) => (Array.isArray(a) ? a[0] : a))).toEqual(Array(8).fill(before));
      await sql`update cache_stamps set stamp = stamp + 1 where key = 'search'`.execute(t.db);
      expect(await cacheStamp(t.db, 'search')).toBe(before + 1);
      expect(await cacheStamp(t.db, 'no such stamp')).toBe(-1);
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
  });
});
