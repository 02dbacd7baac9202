// Stored guide records (guides.stored.ts): a read that misses the process cache reads the
// record stored in the database, valid only while nothing it shows has changed, and only
// for the callers the process cache would give it to. "A new process" here is the process
// cache cleared: what is left is the database (test/reliability/processes.test.ts runs
// real processes).
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { line, makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { guideCaches } from '../../../src/areas/guides/guides.cache.js';
import { flushStoredRecords, storedRecords, storedTtl, unpackRecord } from '../../../src/areas/guides/guides.stored.js';
import { storeAllGuideRecords } from '../../../src/areas/guides/guides.stored-build.js';
import { makeCategoryAt, makeProcess } from '../approvals/helpers.js';
import { BASE_PATH } from '../../../src/app.js';
import { etagOf } from '../../../src/http/conditional.js';
import { lentRecords } from '../../../src/areas/shared/stored-bytes.js';

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  moderator = await makeModerator(t);
  user = await makeUser(t);
});

/** A read by a process that has nothing cached: the process cache is cleared first; what it built is stored after. */
async function coldRead(guideid: number, who: TestUser | null = null, query = '') {
  guideCaches(t.app).guides.clear();
  const res = await t.get(`/guides/${guideid}${query}`, who ? { token: who.token } : {});
  expect(res.statusCode, res.body).toBe(200);
  await flushStoredRecords(t.app);
  return res;
}

const storedRows = (guideid: number) => t.db.selectFrom('guide_records').selectAll().where('guideid', '=', guideid).orderBy('variant').execute();

/** Rewrites the stored bytes of a guide's variant (keeping its stamps): a read that answers them did not build. */
async function markStored(guideid: number, variant: string, title: string) {
  const row = (await storedRows(guideid)).find((r) => r.variant === variant);
  expect(row, `a stored record '${variant}'`).toBeDefined();
  const json = Buffer.from(JSON.stringify({ ...JSON.parse(unpackRecord(row!.body).toString()), title }));
  await t.db.updateTable('guide_records').set({ body: deflateRawSync(json), etag: etagOf(json), size: json.length }).where('guideid', '=', guideid).where('variant', '=', variant).execute();
}

describe('stored guide records', () => {
  it('a record built by one process is read from the database by the next one, without being built', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const built = await coldRead(g.guideid);
    const rows = await storedRows(g.guideid);
    expect(rows.map((r) => [r.variant, Number(r.revisionid)])).toEqual([['', g.revisionid]]);
    expect(unpackRecord(rows[0].body).toString()).toBe(built.body);
    const store = storedRecords(t.app);
    const hits = store.hits;
    const again = await coldRead(g.guideid);
    expect(again.body).toBe(built.body);
    expect(store.hits).toBe(hits + 1);
    // The bytes answered are the stored ones (nothing was built): a mark put there shows.
    await markStored(g.guideid, '', 'Read from the stored record');
    expect((await coldRead(g.guideid)).json().title).toBe('Read from the stored record');
    // ...and with ?pretty and as XML, from the same bytes.
    expect(JSON.parse((await coldRead(g.guideid, null, '?pretty')).body).title).toBe('Read from the stored record');
    // A record read from the store is kept in the process cache the third time in a while
    // (ByteLru.admitsFromBelow): then the next read does not ask the database.
    guideCaches(t.app).guides.clear();
    const h = store.hits;
    for (let i = 0; i < 3; i++) expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Read from the stored record');
    expect(store.hits).toBe(h + 3);
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Read from the stored record');
    expect(store.hits).toBe(h + 3);
  });

  it('concurrent reads that miss the process cache each get their own stored record (on PostgreSQL their reads of the store share queries), and a write shows at once', async () => {
    const guides = await Promise.all(Array.from({ length: 6 }, (_, i) => makePublishedGuide(t, author, 1, { title: `Stored, read at once ${i}` })));
    for (const g of guides) await coldRead(g.guideid);
    // Each stored record marked: an answer shows whose bytes it is, and that nothing was built.
    for (const g of guides) await markStored(g.guideid, '', `Stored bytes of ${g.guideid}`);
    guideCaches(t.app).guides.clear();
    const store = storedRecords(t.app);
    const hits = store.hits;
    const reads: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { if (/from "guide_records"/.test(e.query.sql)) reads.push(e.query.sql); });
    let answers;
    try {
      answers = await Promise.all([...guides, ...guides].map((g) => t.get(`/guides/${g.guideid}`)));
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(answers.map((a) => a.json().title)).toEqual([...guides, ...guides].map((g) => `Stored bytes of ${g.guideid}`));
    // Each guide's first read at least found its stored record (a second may find it kept by the first).
    expect(store.hits - hits).toBeGreaterThanOrEqual(6);
    // SQLite reads each at once; PostgreSQL sends one, and the readers who missed meanwhile share the next.
    if (t.dialect === 'postgres') expect(reads.length).toBeLessThan(store.hits - hits);
    else expect(reads).toHaveLength(store.hits - hits);
    // A comment on one bumps its stamp: its stored record no longer serves; the others' still do.
    expect((await t.post(`/comments/step/${guides[2].steps[0].stepid}`, { token: moderator.token, body: { text: 'After the stored read' } })).statusCode).toBe(201);
    guideCaches(t.app).guides.clear();
    const again = await Promise.all(guides.map((g) => t.get(`/guides/${g.guideid}`)));
    expect(again.map((a) => a.json().title)).toEqual(guides.map((g, i) => (i === 2 ? g.title : `Stored bytes of ${g.guideid}`)));
    expect(again[2].json().steps[0].comments.map((c: { text_raw: string }) => c.text_raw)).toEqual(['After the stored read']);
  });

  it('the answer\'s tag and length are stored with the bytes, and a read from them answers that tag without hashing them', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const built = await coldRead(g.guideid);
    const tag = etagOf(Buffer.from(built.body));
    expect(built.headers.etag).toBe(tag);
    const [row] = await storedRows(g.guideid);
    expect(row.etag).toBe(tag);
    expect(Number(row.size)).toBe(Buffer.byteLength(built.body));
    // The tag answered from the stored row is the one stored with it: one put there by hand shows.
    await t.db.updateTable('guide_records').set({ etag: 'W/"stored-with-the-bytes"' }).where('guideid', '=', g.guideid).execute();
    const cold = await coldRead(g.guideid);
    expect(cold.body).toBe(built.body);
    expect(cold.headers.etag).toBe('W/"stored-with-the-bytes"');
    guideCaches(t.app).guides.clear();
    const unchanged = await t.get(`/guides/${g.guideid}`, { headers: { 'if-none-match': 'W/"stored-with-the-bytes"' } });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    // ?pretty rewrites the bytes: its tag is of what it sends.
    const pretty = await coldRead(g.guideid, null, '?pretty');
    expect(pretty.headers.etag).toBe(etagOf(pretty.body));
    // A row stored before tags and lengths were (both null), or with a wrong length: the same bytes, the tag of their digest.
    for (const set of [{ etag: null, size: null }, { etag: null, size: 10 }]) {
      await t.db.updateTable('guide_records').set(set).where('guideid', '=', g.guideid).execute();
      const old = await coldRead(g.guideid);
      expect(old.body).toBe(built.body);
      expect(old.headers.etag).toBe(tag);
    }
  });

  it('every write a record shows makes the next read, in any process, fresh: edit, step edit, comment, flag, tag, rename, prerequisite', async () => {
    const pre = await makePublishedGuide(t, author, 1);
    const g0 = await makePublishedGuide(t, author, 2, { prerequisites: [pre.guideid] });
    let g = (await coldRead(g0.guideid)).json();

    let res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'An edited title' } });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.title).toBe('An edited title');

    const step = g.steps[1];
    res = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [line("A '''new''' line")] } });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.steps[1].lines[0]).toMatchObject({ text_raw: "A '''new''' line", text_rendered: expect.stringContaining('<strong>new</strong>') });

    res = await t.post(`/comments/step/${g.steps[0].stepid}`, { token: moderator.token, body: { text: 'A comment on the first step' } });
    expect(res.statusCode).toBe(201);
    g = (await coldRead(g.guideid)).json();
    expect(g.steps[0].comments.map((c: { text_raw: string }) => c.text_raw)).toEqual(['A comment on the first step']);

    res = await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${g.revisionid}`, { token: moderator.token });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.flags).toEqual(['GUIDE_STARRED']);

    res = await t.put(`/guides/${g.guideid}/tag?revisionid=${g.revisionid}`, { token: author.token, body: { tag: 'stored-tag' } });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.tags).toEqual(['stored-tag']);

    // The author's and a commenter's new names: the guide's owner, its prerequisite's owner, the comment.
    expect((await t.patch(`/users/${author.userid}`, { token: author.token, body: { username: 'Stored Author' } })).statusCode).toBe(200);
    expect((await t.patch(`/users/${moderator.userid}`, { token: moderator.token, body: { username: 'Stored Moderator' } })).statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.username).toBe('Stored Author');
    expect(g.prerequisites[0].username).toBe('Stored Author');
    expect(JSON.stringify(g.steps[0].comments[0])).toContain('Stored Moderator');

    // The prerequisite renamed, then made private: an anonymous reader no longer sees it.
    const p = (await coldRead(pre.guideid)).json();
    res = await t.patch(`/guides/${pre.guideid}?revisionid=${p.revisionid}`, { token: author.token, body: { title: 'A renamed prerequisite' } });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.prerequisites[0].title).toBe('A renamed prerequisite');
    res = await t.del(`/guides/${pre.guideid}/public?revisionid=${res.json().revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(200);
    g = (await coldRead(g.guideid)).json();
    expect(g.prerequisites).toEqual([]);
    expect((await coldRead(g.guideid, admin)).json().prerequisites.map((x: { title: string }) => x.title)).toEqual(['A renamed prerequisite']);

    // The guide itself unpublished: not served to anonymous callers from any stored record.
    res = await t.del(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(200);
    guideCaches(t.app).guides.clear();
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(401);
  });

  it('a record that depends on the viewer is stored per viewer class and never given to another caller', async () => {
    // A private prerequisite owned by a plain user: they see it; anonymous callers and other users do not; Authors and Admins do.
    const pre = await makeGuide(t, author, { title: 'A private prerequisite' });
    await t.db.updateTable('guides').set({ userid: user.userid }).where('guideid', '=', pre.guideid).execute();
    const g = await makePublishedGuide(t, author, 1, { prerequisites: [pre.guideid] });
    const other = await makeUser(t);
    const titles = (res: { json(): { prerequisites: Array<{ title: string }> } }) => res.json().prerequisites.map((x) => x.title);
    for (let round = 0; round < 2; round++) {
      // The second round reads what the first stored.
      expect(titles(await coldRead(g.guideid))).toEqual([]);
      expect(titles(await coldRead(g.guideid, author))).toEqual(['A private prerequisite']);
      expect(titles(await coldRead(g.guideid, user))).toEqual(['A private prerequisite']);
      expect(titles(await coldRead(g.guideid, other))).toEqual([]);
      expect(titles(await coldRead(g.guideid, admin))).toEqual(['A private prerequisite']);
    }
    expect((await storedRows(g.guideid)).map((r) => r.variant)).toEqual(['anonymous', 'every guide']);
    // Each class gets its own bytes: a mark on the anonymous record reaches anonymous callers only.
    await markStored(g.guideid, 'anonymous', 'Anonymous bytes');
    expect((await coldRead(g.guideid)).json().title).toBe('Anonymous bytes');
    expect((await coldRead(g.guideid, admin)).json().title).toBe(g.title);
    expect((await coldRead(g.guideid, user)).json().title).toBe(g.title);
    expect((await coldRead(g.guideid, other)).json().title).toBe(g.title);
  });

  it('readers under an approval process get the released revision, editors the current one, each from its own stored record', async () => {
    const process = await makeProcess(t, admin.token, [{ userid: moderator.userid }]);
    const cat = await makeCategoryAt(t);
    const guide = await makePublishedGuide(t, author, 1, { category: cat.title, title: 'Approved title' });
    expect((await t.put(`/approvals/${cat.wikiid}/${process.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    const current = (await coldRead(guide.guideid, author)).json();
    const edited = await t.patch(`/guides/${guide.guideid}?revisionid=${current.revisionid}`, { token: author.token, body: { title: 'Draft title' } });
    expect(edited.statusCode).toBe(200);
    for (let round = 0; round < 2; round++) {
      expect((await coldRead(guide.guideid, user)).json()).toMatchObject({ revisionid: current.revisionid, title: 'Approved title' });
      expect((await coldRead(guide.guideid)).json()).toMatchObject({ revisionid: current.revisionid, title: 'Approved title' });
      expect((await coldRead(guide.guideid, author)).json()).toMatchObject({ revisionid: edited.json().revisionid, title: 'Draft title' });
      expect((await coldRead(guide.guideid, author, '?released=true')).json()).toMatchObject({ revisionid: current.revisionid, title: 'Approved title' });
    }
    const rows = await storedRows(guide.guideid);
    expect(rows.map((r) => [r.variant, Number(r.revisionid)])).toEqual([['', edited.json().revisionid], ['released', current.revisionid]]);
  });

  it('a record built before a write is never stored over it, and a stale stored record is never served', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const row = await t.db.selectFrom('guides').select(['revisionid', 'cache_stamp']).where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    const body = Buffer.from((await coldRead(g.guideid)).body);
    const store = storedRecords(t.app);
    await t.db.deleteFrom('guide_records').where('guideid', '=', g.guideid).execute();
    // Bytes built under the stamp before a write that has committed since (or a revision before) are not stored.
    const titlesStamp = Number((await t.db.selectFrom('cache_stamps').select('stamp').where('key', '=', 'guide_titles').executeTakeFirstOrThrow()).stamp);
    const built = { guideid: g.guideid, langid: 'en', variant: '', builtAt: t.clock.now(), builtBy: store.builtBy, released: false, titlesStamp, body, etag: etagOf(body) };
    store.put({ ...built, revisionid: row.revisionid, stamp: row.cache_stamp - 1 });
    await flushStoredRecords(t.app);
    store.put({ ...built, revisionid: row.revisionid - 1, stamp: row.cache_stamp });
    await flushStoredRecords(t.app);
    expect(await storedRows(g.guideid)).toEqual([]);
    store.put({ ...built, revisionid: row.revisionid, stamp: row.cache_stamp });
    await flushStoredRecords(t.app);
    expect(await storedRows(g.guideid)).toHaveLength(1);
    // A comment: the stored record is stale, the next read builds and stores anew.
    expect((await t.post(`/comments/step/${g.steps[0].stepid}`, { token: moderator.token, body: { text: 'Between' } })).statusCode).toBe(201);
    expect((await coldRead(g.guideid)).json().steps[0].comments).toHaveLength(1);
    // A stored record whose stamp is not the guide's is not served (here: put back by hand).
    const stored = (await storedRows(g.guideid))[0];
    await t.db.updateTable('guide_records').set({ cache_stamp: Number(stored.cache_stamp) - 1 }).where('guideid', '=', g.guideid).execute();
    await markStored(g.guideid, '', 'Stale bytes');
    expect((await coldRead(g.guideid)).json().title).toBe(g.title);
    // Nor one built by a process configured otherwise (its public URL, or the key of its media URLs).
    await markStored(g.guideid, '', 'Built elsewhere');
    expect((await coldRead(g.guideid)).json().title).toBe('Built elsewhere');
    await t.db.updateTable('guide_records').set({ built_by: 'another process' }).where('guideid', '=', g.guideid).execute();
    expect((await coldRead(g.guideid)).json().title).toBe(g.title);
  });

  it('a stored record serves while its media URLs keep two GUIDE_CACHE_TTL of life (MEDIA_URL_TTL - 2 TTL), and this process keeps it a TTL from then', async () => {
    const { guideCacheTtl, mediaUrlTtl } = t.app.config;
    const life = storedTtl(t.app.config);
    expect(life).toBe(Math.max(guideCacheTtl, mediaUrlTtl - 2 * guideCacheTtl));
    expect(life).toBeGreaterThan(guideCacheTtl); // the defaults: an hour of URL life, five minutes of cache
    const g = await makePublishedGuide(t, author, 1);
    await coldRead(g.guideid);
    await markStored(g.guideid, '', 'Young bytes');
    t.clock.advance(life - 1);
    expect((await coldRead(g.guideid)).json().title).toBe('Young bytes');
    // Read from the store a third time, it is taken into this process's cache: served from
    // there for a TTL more.
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Young bytes');
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Young bytes');
    t.clock.advance(guideCacheTtl - 1);
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Young bytes');
    t.clock.advance(1);
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe(g.title);
    // The stored one had expired too: what was served now was built, and stored.
    await flushStoredRecords(t.app);
    expect((await coldRead(g.guideid)).json().title).toBe(g.title);
  });

  it('renaming a guide that another guide\'s text links to makes the linking guide\'s stored record (and rendered texts) stale', async () => {
    const target = await makePublishedGuide(t, author, 0, { title: 'Linked before' });
    const g = await makePublishedGuide(t, author, 0, { introduction: `See [guide|${target.guideid}].` });
    expect((await coldRead(g.guideid)).json().introduction_rendered).toContain('Linked before');
    // Served from the store while nothing changed.
    await markStored(g.guideid, '', 'From the store');
    expect((await coldRead(g.guideid)).json().title).toBe('From the store');
    const edit = await t.patch(`/guides/${target.guideid}?revisionid=${target.revisionid}`, { token: author.token, body: { title: 'Linked after' } });
    expect(edit.statusCode, edit.body).toBe(200);
    const fresh = (await coldRead(g.guideid)).json();
    expect(fresh.title).toBe(g.title);
    expect(fresh.introduction_rendered).toContain('Linked after');
    expect(fresh.introduction_rendered).not.toContain('Linked before');
    // A write that changes no title (a summary) leaves every stored record valid.
    await markStored(g.guideid, '', 'From the store again');
    const summary = await t.patch(`/guides/${target.guideid}?revisionid=${edit.json().revisionid}`, { token: author.token, body: { summary: 'Only the summary' } });
    expect(summary.statusCode, summary.body).toBe(200);
    expect((await coldRead(g.guideid)).json().title).toBe('From the store again');
  });

  it('reads and writes at once: once they are done, the next read in a new process shows every write', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const N = 8;
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      work.push(t.post(`/comments/step/${g.steps[i % 2].stepid}`, { token: moderator.token, body: { text: `Comment ${i}` } }).then((r) => expect(r.statusCode).toBe(201)));
      work.push(t.get(`/guides/${g.guideid}`).then((r) => expect(r.statusCode).toBe(200)));
      work.push(t.get(`/guides/${g.guideid}`, { token: admin.token }));
      if (i % 3 === 0) guideCaches(t.app).guides.clear();
    }
    await Promise.all(work);
    await flushStoredRecords(t.app);
    const steps = (await coldRead(g.guideid)).json().steps as Array<{ comments: unknown[] }>;
    expect(steps.map((s) => s.comments.length)).toEqual([N / 2, N / 2]);
    // and that record, stored, is what the next process reads
    expect((await coldRead(g.guideid)).json().steps.map((s: { comments: unknown[] }) => s.comments.length)).toEqual([N / 2, N / 2]);
  });

  it('storeAllGuideRecords builds and stores the records of guides missing or stale, which reads then use', async () => {
    const a = await makePublishedGuide(t, author, 1);
    const b = await makePublishedGuide(t, author, 1);
    const lines: string[] = [];
    // Several reads in flight: each guide built and stored once all the same.
    const first = await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2, concurrency: 3, log: (l) => lines.push(l) });
    expect(first.stored).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeGreaterThan(0);
    expect((await storedRows(a.guideid)).map((r) => r.variant)).toEqual(['']);
    expect((await storedRows(b.guideid)).map((r) => r.variant)).toEqual(['']);
    // Nothing changed: nothing to build again.
    expect((await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2 })).stored).toBe(0);
    await markStored(a.guideid, '', 'Built ahead');
    expect((await coldRead(a.guideid)).json().title).toBe('Built ahead');
    // A write makes it stale: built again.
    expect((await t.post(`/comments/step/${b.steps[0].stepid}`, { token: moderator.token, body: { text: 'Stale now' } })).statusCode).toBe(201);
    expect((await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2 })).stored).toBe(1);
    // A record built by a process configured otherwise (another media URL key) serves no one here: built again.
    await t.db.updateTable('guide_records').set({ built_by: 'another configuration' }).where('guideid', '=', a.guideid).execute();
    expect((await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2 })).stored).toBe(1);
  });

  it('storeAllGuideRecords in parts: each part builds the guides whose id it takes, together all of them', async () => {
    const guides = [];
    for (let i = 0; i < 4; i++) guides.push(await makePublishedGuide(t, author, 1));
    const ids = guides.map((g) => g.guideid as number);
    expect(new Set(ids.map((id) => id % 2)).size, 'odd and even ids').toBe(2);
    await t.db.deleteFrom('guide_records').where('guideid', 'in', ids).execute();
    const storedOf = async () => {
      const rows = await t.db.selectFrom('guide_records').select('guideid').where('guideid', 'in', ids).execute();
      return ids.filter((id) => rows.some((r) => Number(r.guideid) === id));
    };
    await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2, part: { index: 1, of: 2 } });
    expect(await storedOf()).toEqual(ids.filter((id) => id % 2 === 1));
    await storeAllGuideRecords(t.app, { basePath: BASE_PATH, batch: 2, part: { index: 0, of: 2 } });
    expect(await storedOf()).toEqual(ids);
    await expect(storeAllGuideRecords(t.app, { basePath: BASE_PATH, part: { index: 2, of: 2 } })).rejects.toThrow(/part 2 of 2/);
  });
});

describe('rendered texts kept between builds', () => {
  const rendered = (key: string) => t.db.selectFrom('guide_rendered').selectAll().where('key', '=', key).executeTakeFirst();
  /** Rewrites what is kept of a text's rendering (keeping its hash): a build that shows it did not render. */
  async function markRendered(key: string, html: string[]) {
    expect(await rendered(key), `rendered texts '${key}'`).toBeDefined();
    await t.db.updateTable('guide_rendered').set({ body: deflateRawSync(JSON.stringify(html)) }).where('key', '=', key).execute();
  }

  it('a comment or a flag rebuilds the record without rendering its texts again; an edited step is rendered anew', async () => {
    const g = await makePublishedGuide(t, author, 2, { introduction: "An '''intro'''", conclusion: 'The end' });
    await coldRead(g.guideid);
    const [s1, s2] = g.steps.map((s: { stepid: number }) => s.stepid);
    await markRendered(`s${s1}`, ['<em>kept step 1</em>']);
    await markRendered(`s${s2}`, ['<em>kept step 2</em>']);
    await markRendered(`g${g.guideid}/en`, ['<em>kept intro</em>', '<em>kept end</em>']);
    const hits = storedRecords(t.app).renderedHits;
    expect((await t.post(`/comments/step/${s1}`, { token: moderator.token, body: { text: 'No rendering for this' } })).statusCode).toBe(201);
    let r = (await coldRead(g.guideid)).json();
    expect(r.steps[0].comments).toHaveLength(1);
    expect(r.steps.map((s: { lines: Array<{ text_rendered: string }> }) => s.lines[0].text_rendered)).toEqual(['<em>kept step 1</em>', '<em>kept step 2</em>']);
    expect([r.introduction_rendered, r.conclusion_rendered]).toEqual(['<em>kept intro</em>', '<em>kept end</em>']);
    expect(storedRecords(t.app).renderedHits).toBe(hits + 3);

    expect((await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${r.revisionid}`, { token: moderator.token })).statusCode).toBe(200);
    r = (await coldRead(g.guideid)).json();
    expect(r.flags).toEqual(['GUIDE_STARRED']);
    expect(r.steps[1].lines[0].text_rendered).toBe('<em>kept step 2</em>');

    // A step's new text, the guide's new introduction: rendered anew, the rest kept.
    const step = r.steps[1];
    expect((await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [line("Now '''bold'''")] } })).statusCode).toBe(200);
    r = (await coldRead(g.guideid)).json();
    expect(r.steps[1].lines[0].text_rendered).toContain('<strong>bold</strong>');
    expect(r.steps[0].lines[0].text_rendered).toBe('<em>kept step 1</em>');
    expect((await t.patch(`/guides/${g.guideid}?revisionid=${r.revisionid}`, { token: author.token, body: { introduction: 'A new intro' } })).statusCode).toBe(200);
    r = (await coldRead(g.guideid)).json();
    expect(r.introduction_rendered).toContain('A new intro');
    expect(r.conclusion_rendered).not.toContain('kept');
    // A line changed without a new revision (SQL by hand), then invalidateGuide: its new text is rendered.
    await t.db.updateTable('guide_lines').set({ text: "By '''hand'''" }).where('stepid', '=', s1).execute();
    await t.db.updateTable('guides').set((eb) => ({ cache_stamp: eb('cache_stamp', '+', 1) })).where('guideid', '=', g.guideid).execute();
    r = (await coldRead(g.guideid)).json();
    expect(r.steps[0].lines[0]).toMatchObject({ text_raw: "By '''hand'''", text_rendered: expect.stringContaining('<strong>hand</strong>') });
  });

  it('a record built from kept texts is as old as they are: it is stored until storedTtl after they were rendered', async () => {
    const g = await makePublishedGuide(t, author, 1);
    await coldRead(g.guideid);
    await markRendered(`s${g.steps[0].stepid}`, ['<em>old rendering</em>']);
    t.clock.advance(storedTtl(t.app.config) - 1);
    expect((await t.post(`/comments/step/${g.steps[0].stepid}`, { token: moderator.token, body: { text: 'A comment' } })).statusCode).toBe(201);
    expect((await coldRead(g.guideid)).json().steps[0].lines[0].text_rendered).toBe('<em>old rendering</em>');
    t.clock.advance(1);
    // The stored record built a second ago from it is as old as it: not served now (this
    // process, which took it from the store when it was valid, serves it a TTL more).
    expect((await coldRead(g.guideid)).json().steps[0].lines[0].text_rendered).not.toContain('old rendering');
  });
});

describe('the stored record read ahead of the head (PostgreSQL)', () => {
  /** The statements `fn` ran, with when each started and ended (ms), in the order they started. */
  async function started(fn: () => Promise<unknown>): Promise<Array<{ sql: string; at: number; end: number }>> {
    const seen: Array<{ sql: string; at: number; end: number }> = [];
    t.app.dbHandle.setQueryListener!((e) => {
      const end = performance.now();
      seen.push({ sql: e.query.sql, at: end - e.queryDurationMillis, end });
    });
    try {
      await fn();
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    return seen.sort((a, b) => a.at - b.at);
  }
  const isRecordRead = (q: string) => q.includes('from "guide_records"');
  const isHeadRead = (q: string) => q.includes('from "guides"') && q.includes('"reader_revisionid"') && !q.includes('"introduction"');

  it('a read this process keeps nothing of asks for the stored record before the head answers (SQLite: after), and answers it', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const built = await coldRead(g.guideid);
    guideCaches(t.app).guides.clear();
    const store = storedRecords(t.app);
    const hits = store.hits;
    let res: Awaited<ReturnType<typeof t.get>> | undefined;
    const timed = await started(async () => { res = await t.get(`/guides/${g.guideid}`); });
    expect(res!.body).toBe(built.body);
    expect(store.hits).toBe(hits + 1);
    // Only one read of the stored record either way.
    const records = timed.filter((q) => isRecordRead(q.sql));
    const heads = timed.filter((q) => isHeadRead(q.sql));
    expect([records.length, heads.length], timed.map((q) => q.sql).join('\n')).toEqual([1, 1]);
    // PostgreSQL: sent while the head's query is out (both at once); SQLite: after it.
    if (t.dialect === 'postgres') expect(records[0].at).toBeLessThan(heads[0].end);
    else expect(records[0].at).toBeGreaterThanOrEqual(heads[0].end);
  });

  it('a record read ahead is still checked against the head: an older revision, a guide that is not there or not readable', async () => {
    const g = await makePublishedGuide(t, author, 1);
    await coldRead(g.guideid);
    await markStored(g.guideid, '', 'Stored before the edit');
    // An edit makes a new revision: the row read ahead is of the older one, so the record is built anew.
    const edit = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Edited after the record was stored.' } });
    expect(edit.statusCode, edit.body).toBe(200);
    const store = storedRecords(t.app);
    const misses = store.misses;
    const after = await coldRead(g.guideid);
    expect(store.misses).toBe(misses + 1);
    expect([after.json().title, after.json().summary]).toEqual([g.title, 'Edited after the record was stored.']);
    // Not there, and private: the same answers as without a read ahead.
    guideCaches(t.app).guides.clear();
    expect((await t.get('/guides/99999999')).statusCode).toBe(404);
    const hidden = await makeGuide(t, author);
    await coldRead(hidden.guideid, author);
    guideCaches(t.app).guides.clear();
    const anonymous = await t.get(`/guides/${hidden.guideid}`);
    expect([401, 403, 404]).toContain(anonymous.statusCode);
    expect(anonymous.body).not.toContain(hidden.title);
  });

  it('a read of a guide this process keeps asks for no stored record', async () => {
    const g = await makePublishedGuide(t, author, 1);
    await coldRead(g.guideid);
    for (let i = 0; i < 3; i++) await t.get(`/guides/${g.guideid}`);
    const order = (await started(() => t.get(`/guides/${g.guideid}`))).map((q) => q.sql);
    expect(order.filter(isRecordRead)).toEqual([]);
  });
});

describe('stored records sent gzipped as they are', () => {
  const gzipped = { 'accept-encoding': 'gzip, deflate, br' };

  it('a read that misses the process cache gives a client that accepts gzip the stored bytes, unchanged, with the same tag', async () => {
    const g = await makePublishedGuide(t, author, 3);
    const built = await coldRead(g.guideid);
    const [row] = await storedRows(g.guideid);
    // Stored as a gzip member (level 1: zlib's head says "fastest").
    expect([...row.body.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
    expect(gunzipSync(row.body).toString()).toBe(built.body);
    guideCaches(t.app).guides.clear();
    const res = await t.get(`/guides/${g.guideid}`, { headers: gzipped });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('Origin, Accept-Encoding');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.rawPayload.equals(Buffer.from(row.body))).toBe(true);
    expect(Number(res.headers['content-length'])).toBe(row.body.length);
    expect(gunzipSync(res.rawPayload).toString()).toBe(built.body);
    expect(res.headers.etag).toBe(built.headers.etag);
    // Its tag back: a 304 with nothing to decode.
    const again = await t.get(`/guides/${g.guideid}`, { headers: { ...gzipped, 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['content-encoding']).toBeUndefined();
    // A client that does not take gzip, or asks for another format, gets the same record in
    // identity (from the stored bytes: the process keeps them at the third read, the first here).
    for (const [headers, query] of [[{}, ''], [{ 'accept-encoding': 'gzip;q=0, identity' }, ''], [{ 'accept-encoding': 'br' }, ''], [gzipped, '?pretty']] as const) {
      const plain = await t.get(`/guides/${g.guideid}${query}`, { headers });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Origin');
      expect(JSON.parse(plain.body)).toEqual(built.json());
    }
    // Kept by this process the third time (ByteLru.admitsFromBelow): that read may still
    // be sent gzipped, the next ones come from the process cache, in identity (what it
    // keeps: the hot set fills it as it is), with the same tag.
    guideCaches(t.app).guides.clear();
    const store = storedRecords(t.app);
    const hits = store.hits;
    for (let i = 0; i < 3; i++) {
      const third = await t.get(`/guides/${g.guideid}`, { headers: gzipped });
      expect(third.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(third.rawPayload).toString()).toBe(built.body);
    }
    expect(store.hits).toBe(hits + 3);
    const kept = await t.get(`/guides/${g.guideid}`, { headers: gzipped });
    expect(store.hits).toBe(hits + 3);
    expect(kept.headers['content-encoding']).toBeUndefined();
    expect(kept.body).toBe(built.body);
    expect(kept.headers.etag).toBe(built.headers.etag);
  });

  it('concurrent readers of one stored record each get their coding; a record stored as raw deflate (before gzip) is sent in identity', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const built = await coldRead(g.guideid);
    guideCaches(t.app).guides.clear();
    // Same record, one stored read shared: each answer in the coding its request accepts.
    const [a, b] = await Promise.all([t.get(`/guides/${g.guideid}`, { headers: gzipped }), t.get(`/guides/${g.guideid}`)]);
    expect(a.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(a.rawPayload).toString()).toBe(built.body);
    expect(b.headers['content-encoding']).toBeUndefined();
    expect(b.body).toBe(built.body);
    // markStored writes raw deflate, the form of records stored before 2026-11-28: still read.
    await markStored(g.guideid, '', 'Stored as raw deflate');
    guideCaches(t.app).guides.clear();
    const old = await t.get(`/guides/${g.guideid}`, { headers: gzipped });
    expect(old.statusCode).toBe(200);
    expect(old.headers['content-encoding']).toBeUndefined();
    expect(old.json().title).toBe('Stored as raw deflate');
  });

  it('a built answer and one for a caller with a class of their own are sent in identity', async () => {
    const g = await makePublishedGuide(t, author, 1);
    guideCaches(t.app).guides.clear();
    const first = await t.get(`/guides/${g.guideid}`, { headers: gzipped });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-encoding']).toBeUndefined();
    await flushStoredRecords(t.app);
    guideCaches(t.app).guides.clear();
    const byAdmin = await t.get(`/guides/${g.guideid}`, { token: admin.token, headers: gzipped });
    // An Admin reads the record stored for anyone (no private prerequisite): gzipped too.
    expect(byAdmin.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(byAdmin.rawPayload).toString()).toBe(first.body);
  });
});

describe('stored records inflated into buffers lent for one answer', () => {
  /** A GET over a real socket of `agent` (light-my-request copies what is written; a socket's pending write holds the buffer itself). */
  function get(port: number, agent: Agent, path: string): Promise<{ status: number; encoding: string | undefined; body: string }> {
    return new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: `${BASE_PATH}${path}`, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      }).on('error', reject).end();
    });
  }

  it('reads over real sockets that miss the process cache, many at once, each get their own record, from buffers lent and given back', async () => {
    const guides = await Promise.all(Array.from({ length: 20 }, (_, i) => makePublishedGuide(t, author, 3, { title: `Lent for one answer ${i}` })));
    const built = new Map<number, string>();
    for (const g of guides) built.set(g.guideid, (await coldRead(g.guideid)).body);
    if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const lent = lentRecords();
    try {
      // Three rounds of 20 reads on 4 sockets: 60 lent from a pool of a few buffers, each lent
      // again once its answer was written. (Clearing the cache forgets the offers too: no read is kept.)
      for (let round = 0; round < 3; round++) {
        guideCaches(t.app).guides.clear();
        const answers = await Promise.all(guides.map((g) => get(port, agent, `/guides/${g.guideid}`)));
        for (const [i, a] of answers.entries()) {
          expect(a.status).toBe(200);
          expect(a.encoding).toBeUndefined();
          expect(a.body).toBe(built.get(guides[i].guideid));
        }
      }
    } finally {
      agent.destroy();
    }
    expect(lentRecords()).toBe(lent + 60);
  });
});
