import { sql } from 'kysely';
// Full guide reads and lists cost a fixed number of queries, whatever the number of
// steps, lines, images or rows: never one per step, line or row. An edit is a short
// transaction that writes the guide's row once, and its answer reads nothing it wrote again.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { statementsOf } from '../../helpers/capture-statements.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeImage, makePublishedGuide } from '../../helpers/factories/guides.js';
import { flushStoredRecords } from '../../../src/areas/guides/guides.stored.js';
import { guideCaches } from '../../../src/areas/guides/guides.cache.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  return (await queriesOf(fn)).length;
}

/** The SQL of every query `fn` runs, in order. */
const queriesOf = (fn: () => Promise<unknown>) => statementsOf(t, fn);

/** The statements of the one transaction among `sql`, its begin and commit included. */
function transactionOf(sql: string[]): string[] {
  const begin = sql.findIndex((q) => /^begin/i.test(q));
  const commit = sql.findIndex((q) => /^commit/i.test(q));
  expect(begin).toBeGreaterThanOrEqual(0);
  expect(sql.filter((q) => /^begin/i.test(q))).toHaveLength(1);
  return sql.slice(begin, commit + 1);
}

async function richGuide(steps: number) {
  const prereq = await makePublishedGuide(t, author);
  let g = await makePublishedGuide(t, author, 0, { prerequisites: [prereq.guideid], tags: ['a', 'b'], introduction: `See [guide|${prereq.guideid}] [image|${await makeImage(t, author.userid)}]` });
  for (let i = 0; i < steps; i++) {
    const images = [await makeImage(t, author.userid), await makeImage(t, author.userid)];
    g = await addStep(t, author, g, { media: { type: 'image', data: images }, lines: [line(`a [guide|${prereq.guideid}]`), line('b', { level: 1, bullet: 'red' }), line('c', { bullet: 'icon_note' })] });
  }
  return g;
}

describe('query counts', () => {
  it('GET /guides/{id}: the same number of queries for 1 step and for 12 steps', async () => {
    const small = await richGuide(1);
    const big = await richGuide(12);
    const a = await countQueries(() => t.get(`/guides/${small.guideid}`));
    await flushStoredRecords(t.app);
    const b = await countQueries(() => t.get(`/guides/${big.guideid}`));
    await flushStoredRecords(t.app);
    expect(b).toBe(a);
    // About fifteen to build, with the lookups of the titles stamp, the stored record and the rendered texts (guides.stored.ts).
    expect(a).toBeLessThanOrEqual(19);
    expect((await t.get(`/guides/${big.guideid}`)).json().steps).toHaveLength(12);
  });

  it('GET /guides/{id} answered from the cache reads one narrow row: the guide\'s head, not its texts', async () => {
    const g = await richGuide(2);
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200);
    await flushStoredRecords(t.app);
    const texts: string[] = [];
    t.app.dbHandle.setQueryListener!((event) => { texts.push(event.query.sql); });
    try {
      const hit = await t.get(`/guides/${g.guideid}`);
      expect(hit.statusCode).toBe(200);
      expect(hit.json().steps).toHaveLength(2);
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/from "guides"/);
    expect(texts[0]).not.toMatch(/introduction|conclusion|\*/);
  });

  it('GET /guides: the same number of queries for 2 rows and for 30', async () => {
    for (let i = 0; i < 30; i++) await makePublishedGuide(t, author);
    // The stamps are read again after a write (on SQLite only then: byte-cache.ts): a write
    // before each, so that both count that read.
    const touch = () => sql`update cache_stamps set stamp = stamp where key = 'guides'`.execute(t.db);
    await touch();
    const a = await countQueries(() => t.get('/guides?limit=2'));
    await touch();
    const b = await countQueries(() => t.get('/guides?limit=30'));
    expect(b).toBe(a);
    expect(a).toBeLessThanOrEqual(5);
  });

  it('a kept revision reads with a fixed number of queries too', async () => {
    const previous = async (guideid: number) => (await t.db.selectFrom('guide_revisions').select('revisionid').where('guideid', '=', guideid).orderBy('revisionid', 'desc').offset(1).limit(1).executeTakeFirstOrThrow()).revisionid;
    const small = await richGuide(2);
    const big = await richGuide(9);
    const [rs, rb] = [await previous(small.guideid), await previous(big.guideid)];
    const a = await countQueries(() => t.get(`/guides/${small.guideid}?revisionid=${rs}`));
    const b = await countQueries(() => t.get(`/guides/${big.guideid}?revisionid=${rb}`));
    expect(b).toBe(a);
    expect((await t.get(`/guides/${big.guideid}?revisionid=${rb}`)).json().steps).toHaveLength(8);
  });
});

describe('query counts of writes', () => {
  it('PATCH /guides/{id}: a short transaction that writes the guide row once, a fixed number of queries for 1 step and for 12, and the answer a read then gives', async () => {
    const small = await richGuide(1);
    const big = await richGuide(12);
    let revisionids = { [small.guideid]: small.revisionid, [big.guideid]: big.revisionid };
    const edit = async (guideid: number, body: object) => {
      const res = await t.patch(`/guides/${guideid}?revisionid=${revisionids[guideid]}`, { token: author.token, body });
      expect(res.statusCode).toBe(200);
      revisionids = { ...revisionids, [guideid]: res.json().revisionid };
      return res.json();
    };
    await edit(small.guideid, { summary: 'first' });
    await edit(big.guideid, { summary: 'first' });
    await flushStoredRecords(t.app);
    let answer: any;
    const a = await queriesOf(async () => { answer = await edit(small.guideid, { summary: 'second' }); });
    const b = await queriesOf(() => edit(big.guideid, { summary: 'second' }));
    await flushStoredRecords(t.app);
    expect(b.length).toBe(a.length);
    // The lock (a write that changes nothing), the prerequisites, steps and tags the
    // revision keeps, the revision, the one statement that writes the change with it, and at
    // commit the audit log's entry (src/db/audit-append.ts: on PostgreSQL its lock too).
    const trx = transactionOf(a);
    expect(trx.length).toBeLessThanOrEqual(10);
    expect(trx.filter((q) => /^update "guides" set/.test(q) && !/^update "guides" set "cache_stamp" = "cache_stamp"/.test(q))).toHaveLength(1);
    // Nothing after the commit reads the guide's row, its prerequisites or its tags again.
    const after = a.slice(a.indexOf(trx[trx.length - 1]));
    expect(after.filter((q) => /from "guides" where "guideid" = (\?|\$\d+) and "langid" = (\?|\$\d+)/.test(q))).toHaveLength(0);
    expect(after.filter((q) => /select "prereq_guideid" from "guide_prereqs"|from "doc_tags"/.test(q))).toHaveLength(0);
    // Nor looks for a stored record of a revision it just made (the answer goes through the read cache).
    expect(after.filter((q) => /from "guide_records"/.test(q))).toHaveLength(0);
    expect(a.length).toBeLessThanOrEqual(24);
    expect(answer.summary).toBe('second');
    expect((await t.get(`/guides/${small.guideid}`, { token: author.token })).json()).toEqual(answer);
  });

  it('PATCH /guides/{id} that changes no step answers the kept steps\' bytes as they are: the same bytes and tag as a record built anew', async () => {
    let g = await makePublishedGuide(t, author);
    const texts = ['Quotes " and "steps":[ in a line', 'a ] b } c [ d {', 'back\\slash\\ and "\\"', 'Ünïcödé ✓ 𝄞'];
    for (const text of texts) g = await addStep(t, author, g, { title: `Step "${text}"`, lines: [line(text), line(`[${text}]`, { level: 1 })] });
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200); // kept in this process
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Edited "steps":[] here' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().steps.map((s: any) => s.lines[0].text_raw)).toEqual(texts);
    await flushStoredRecords(t.app);
    guideCaches(t.app).guides.clear();
    const fresh = await t.get(`/guides/${g.guideid}`);
    expect(fresh.body).toBe(res.body);
    expect(fresh.headers.etag).toBe(res.headers.etag);
  });

  it('PATCH /guides/{id} that changes the texts and the prerequisites: the answer shows them, as a read does, and so does the revision', async () => {
    const prereq = await makePublishedGuide(t, author);
    const g = await richGuide(2);
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { introduction: `Now see [guide|${prereq.guideid}] first.`, prerequisites: [prereq.guideid] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().introduction_rendered).toContain(`/${prereq.guideid}`);
    expect(res.json().prerequisites.map((p: any) => p.guideid)).toEqual([prereq.guideid]);
    await flushStoredRecords(t.app);
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).json()).toEqual(res.json());
    // The revision keeps the prerequisites written in the same transaction.
    const rev = await t.get(`/guides/${g.guideid}?revisionid=${res.json().revisionid}`, { token: author.token });
    expect(rev.json().prerequisites.map((p: any) => p.guideid)).toEqual([prereq.guideid]);
  });
});
