// Full guide reads and lists cost a fixed number of queries, whatever the number of
// steps, lines, images or rows: never one per step, line or row.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeImage, makePublishedGuide } from '../../helpers/factories/guides.js';
import { flushStoredRecords } from '../../../src/areas/guides/guides.stored.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  t.app.dbHandle.setQueryListener!(() => { n++; });
  try {
    await fn();
  } finally {
    t.app.dbHandle.setQueryListener!(null);
  }
  return n;
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
    const a = await countQueries(() => t.get('/guides?limit=2'));
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
