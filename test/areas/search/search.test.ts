// GET /search/{query} (issue 62, item 8): the suggester's index and ranking a page at a
// time, with offset/limit (limit up to 200), a type/doctypes filter and a count; only what
// an anonymous reader may read (public guides; not private or deleted ones).
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

async function search(query: string, params = '') {
  const res = await t.get(`/search/${enc(query)}${params}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['limit', 'moreResults', 'offset', 'query', 'results', 'totalResults']);
  expect(body.query).toBe(query);
  return body as { limit: number; offset: number; totalResults: number; moreResults: boolean; results: Array<Record<string, any>> };
}

describe('GET /search/{query}', () => {
  it('answers guides and wikis as suggest shows them, in suggest\'s order, with the page and a count', async () => {
    const wiki = await makeWiki(t, author, { title: 'Zanderflux wiki', description: 'About it.' });
    const guide = await makePublishedGuide(t, author, 0, { title: 'Zanderflux replacement' });
    const body = await search('zanderflux');
    expect(body).toMatchObject({ limit: 10, offset: 0, totalResults: 2, moreResults: false });
    const suggested = (await t.get(`/suggest/zanderflux`)).json().results;
    expect(body.results).toEqual(suggested);
    const g = body.results.find((r) => r.dataType === 'guide')!;
    expect(g).toMatchObject({ guideid: guide.guideid, title: 'Zanderflux replacement', url: guide.url });
    expect(body.results.find((r) => r.dataType === 'wiki')).toMatchObject({ wikiid: wiki.wikiid, title: 'Zanderflux wiki' });
  });

  it('pages with offset and limit (at most 200), counting every match', async () => {
    for (let i = 0; i < 12; i++) await makeWiki(t, author, { title: `Quillback part ${String(i).padStart(2, '0')}` });
    const first = await search('quillback', '?limit=5');
    expect(first).toMatchObject({ limit: 5, offset: 0, totalResults: 12, moreResults: true });
    expect(first.results).toHaveLength(5);
    const last = await search('quillback', '?limit=5&offset=10');
    expect(last).toMatchObject({ limit: 5, offset: 10, totalResults: 12, moreResults: false });
    expect(last.results.map((r) => r.title)).toEqual(['Quillback part 10', 'Quillback part 11']);
    const all = await search('quillback', '?limit=200');
    expect(all.results.map((r) => r.title)).toEqual(Array.from({ length: 12 }, (_, i) => `Quillback part ${String(i).padStart(2, '0')}`));
    expect((await t.get('/search/quillback?limit=201')).statusCode).toBe(422);
    expect((await t.get('/search/quillback?limit=0')).statusCode).toBe(422);
    expect((await t.get('/search/quillback?offset=-1')).statusCode).toBe(422);
  });

  it('filters by type or doctypes, as suggest does; an unknown one is a 422 naming it', async () => {
    await makeWiki(t, author, { title: 'Marlinspike wiki' });
    await makePublishedGuide(t, author, 0, { title: 'Marlinspike splice' });
    expect((await search('marlinspike', '?type=guide')).results.map((r) => r.dataType)).toEqual(['guide']);
    expect((await search('marlinspike', '?doctypes=wiki')).results.map((r) => r.dataType)).toEqual(['wiki']);
    expect((await search('marlinspike', '?doctypes=guide,wiki')).totalResults).toBe(2);
    const bad = await t.get('/search/marlinspike?type=nope');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('type');
  });

  it('shows only what an anonymous reader may read: no private or deleted guides', async () => {
    await makeGuide(t, author, { title: 'Hushwhistle draft' });
    const gone = await makePublishedGuide(t, author, 0, { title: 'Hushwhistle gone' });
    expect((await t.del(`/guides/${gone.guideid}?revisionid=${gone.revisionid}`, { token: author.token })).statusCode).toBeLessThan(300);
    await makePublishedGuide(t, author, 0, { title: 'Hushwhistle public' });
    const body = await search('hushwhistle');
    expect(body.results.map((r) => r.title)).toEqual(['Hushwhistle public']);
    expect(body.totalResults).toBe(1);
  });

  it('a query with nothing to look for answers no results', async () => {
    expect(await search('!!!')).toEqual({ query: '!!!', limit: 10, offset: 0, totalResults: 0, moreResults: false, results: [] });
  });
});
