import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { enc, makeCategory, makeWiki } from '../../helpers/factories/wikis.js';

const LIGHT_FIELDS = ['dataType', 'wikiid', 'title', 'display_title', 'namespace', 'summary', 'url', 'text', 'image'].sort();

/** A stand-in LibreTranslate server on the loopback interface: upper-cases, counts calls. */
function fakeLibreTranslate() {
  const calls: Array<{ q: string[]; source: string; target: string; api_key?: string }> = [];
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = JSON.parse(data);
      calls.push(body);
      if (req.url !== '/translate' || body.q.includes('FAIL')) {
        res.writeHead(500).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ translatedText: body.q.map((q: string) => `[${body.target}] ${q}`) }));
    });
  });
  return { server, calls };
}

let author: TestUser;
let user: TestUser;
// Titles are unique per file run; the tree: root > mid > leaf, plus a stub and a second root.
let root: any, mid: any, leaf: any, stub: any, other: any;

const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
  root = await makeCategory(t, author, unique('Root '), { display_title: 'The root' });
  mid = await makeCategory(t, author, unique('Mid '), { parent: root.title });
  leaf = await makeCategory(t, author, unique('Leaf '), { parent: mid.title, identification: 'Look at the *plate*.' });
  stub = await makeCategory(t, author, unique('Stub '), { parent: mid.title, stub: true });
  other = await makeCategory(t, author, unique('Other '));
});

describe('category records', () => {
  it('carry parent, children, guides, stub and identification', async () => {
    const res = await t.get(`/wikis/CATEGORY/${enc(mid.title)}`);
    expect(res.json()).toMatchObject({ parent: root.title, children: [leaf.title, stub.title].sort(), guides: [], stub: false, identification_raw: '' });
    expect((await t.get(`/wikis/CATEGORY/${enc(root.title)}`)).json()).toMatchObject({ parent: null, children: [mid.title] });
    expect(stub.stub).toBe(true);
    expect(leaf.identification_rendered).toContain('plate');
  });

  it('422 for an unknown parent at creation', async () => {
    const res = await t.post('/wikis', { token: author.token, body: { namespace: 'CATEGORY', title: unique('x'), contents: 'y', parent: unique('nope') } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'parent', code: 'invalid_value' });
  });
});

describe('GET /wikis/CATEGORY?display=hierarchy', () => {
  it('nests the categories three levels deep, leaves are null, stubs hidden by default', async () => {
    const res = await t.get('/wikis/CATEGORY?display=hierarchy');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['display_titles', 'hierarchy']);
    expect(body.hierarchy[root.title]).toEqual({ [mid.title]: { [leaf.title]: null } });
    expect(body.hierarchy[other.title]).toBeNull();
    expect(body.display_titles[root.title]).toBe('The root');
    expect(body.display_titles[leaf.title]).toBe(leaf.title);
    expect(body.display_titles[stub.title]).toBeUndefined();
  });

  it('includeStubs shows the stubs', async () => {
    const body = (await t.get('/wikis/CATEGORY?display=hierarchy&includeStubs=true')).json();
    expect(body.hierarchy[root.title][mid.title]).toEqual({ [leaf.title]: null, [stub.title]: null });
    expect(body.display_titles[stub.title]).toBe(stub.title);
  });

  it('requireGuides keeps only categories with public guides (none have guides here)', async () => {
    const body = (await t.get('/wikis/CATEGORY?display=hierarchy&requireGuides=true')).json();
    expect(body).toEqual({ hierarchy: {}, display_titles: {} });
  });

  it('a kept hierarchy reads both stamps it is checked against in one query', async () => {
    for (const q of ['', '&requireGuides=true']) {
      const first = await t.get(`/wikis/CATEGORY?display=hierarchy${q}`);
      // A write that changes no stamp: on SQLite the stamps are read again only after one (byte-cache.ts).
      await t.db.updateTable('cache_stamps').set((eb) => ({ stamp: eb.ref('stamp') })).where('key', '=', 'categories').execute();
      const sql: string[] = [];
      t.app.dbHandle.setQueryListener!((e) => { sql.push(e.query.sql); });
      let again;
      try {
        again = await t.get(`/wikis/CATEGORY?display=hierarchy${q}`);
      } finally {
        t.app.dbHandle.setQueryListener!(null);
      }
      expect(again.body).toBe(first.body);
      // Only the stamp reads count: the app's background work (a job poll, the wiki records'
      // writer after another test's reads) may run queries of its own meanwhile.
      expect(sql.filter((q) => /cache_stamps/.test(q))).toHaveLength(1);
    }
  });

  it('langid: translated display titles where there are translations', async () => {
    const r = (await t.get(`/wikis/CATEGORY/${enc(leaf.title)}`)).json();
    await t.patch(`/wikis/CATEGORY/${enc(leaf.title)}?langid=de&revisionid=${r.revisionid}`, { token: author.token, body: { display_title: 'Blatt' } });
    const body = (await t.get('/wikis/CATEGORY?display=hierarchy&langid=de')).json();
    expect(body.display_titles[leaf.title]).toBe('Blatt');
    expect(body.display_titles[root.title]).toBe('The root');
    // Keys stay the titles.
    expect(body.hierarchy[root.title][mid.title]).toEqual({ [leaf.title]: null });
  });

  it('machineTranslateLangid without a translation server keeps the source titles', async () => {
    const body = (await t.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=fr')).json();
    expect(body.display_titles[root.title]).toBe('The root');
  });

  it('422 for a malformed language', async () => {
    expect((await t.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=French!')).json().errors[0].field).toBe('machineTranslateLangid');
  });

  it('is kept as bytes between changes, and any write that shows in it (through the API or in the database by hand) is seen at once', async () => {
    const read = async (query = '') => (await t.get(`/wikis/CATEGORY?display=hierarchy${query}`)).json();
    const first = await t.get('/wikis/CATEGORY?display=hierarchy');
    expect((await t.get('/wikis/CATEGORY?display=hierarchy')).body).toBe(first.body);
    const added = await makeCategory(t, author, unique('Added '), { parent: other.title });
    expect((await read()).hierarchy[other.title]).toEqual({ [added.title]: null });
    // As another server process sharing the database would write it: the triggers keep the stamp.
    await t.db.updateTable('wikis').set({ display_title: 'Renamed by hand' }).where('wikiid', '=', added.wikiid).execute();
    expect((await read()).display_titles[added.title]).toBe('Renamed by hand');
    await t.db.updateTable('wikis').set({ stub: 1 }).where('wikiid', '=', added.wikiid).execute();
    expect((await read()).hierarchy[other.title]).toBeNull();
    expect((await read('&includeStubs=true')).hierarchy[other.title]).toEqual({ [added.title]: null });
    await t.db.updateTable('wiki_translations').set({ display_title: 'Blatt (neu)' }).where('wikiid', '=', leaf.wikiid).where('langid', '=', 'de').execute();
    expect((await read('&langid=de')).display_titles[leaf.title]).toBe('Blatt (neu)');
    // requireGuides follows the guides: a public guide filed under a category brings it in.
    const shelf = await makeCategory(t, author, unique('Shelf '));
    expect((await read('&requireGuides=true')).hierarchy).toEqual({});
    const res = await t.post('/guides', { token: author.token, body: { type: 'replacement', title: unique('Guide '), category: shelf.title, public: true } });
    expect(res.statusCode).toBe(201);
    expect((await read('&requireGuides=true')).hierarchy).toEqual({ [shelf.title]: null });
    // ?pretty and XML are made from the kept bytes too.
    expect((await t.get('/wikis/CATEGORY?display=hierarchy&requireGuides=true&pretty')).body).toContain('\n  "hierarchy"');
    expect((await t.get('/wikis/CATEGORY?display=hierarchy&requireGuides=true&format=xml')).body).toContain('<hierarchy>');
  });
});

describe('machine translation through LibreTranslate', () => {
  it('translates display titles without a human translation, once per text (cached)', async () => {
    const fake = fakeLibreTranslate();
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    const t2 = await buildTestApp({ config: { languages: ['en', 'de'], libreTranslateUrl: url, libreTranslateApiKey: 'secret' } });
    try {
      const a = await makeUser(t2, { privileges: ['Author', 'User'] });
      const top = await makeCategory(t2, a, 'Pumps', { display_title: 'Pumps and valves' });
      await makeCategory(t2, a, 'Valves', { parent: 'Pumps' });
      await t2.patch(`/wikis/CATEGORY/Valves?langid=de&revisionid=${(await t2.get('/wikis/CATEGORY/Valves')).json().revisionid}`, { token: a.token, body: { display_title: 'Ventile' } });
      const body = (await t2.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=de')).json();
      expect(body.display_titles).toEqual({ Pumps: '[de] Pumps and valves', Valves: 'Ventile' });
      expect(fake.calls).toEqual([{ q: ['Pumps and valves'], source: 'en', target: 'de', format: 'text', api_key: 'secret' }]);
      // Asked again: answered from the cache.
      expect((await t2.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=de')).json().display_titles.Pumps).toBe('[de] Pumps and valves');
      expect(fake.calls).toHaveLength(1);
      // A failing server leaves the source text, and the failure is not cached.
      await t2.patch(`/wikis/CATEGORY/Pumps?revisionid=${top.revisionid}`, { token: a.token, body: { display_title: 'FAIL' } });
      expect((await t2.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=de')).json().display_titles.Pumps).toBe('FAIL');
      expect(await t2.db.selectFrom('translation_cache').select('source_text').execute()).toEqual([{ source_text: 'Pumps and valves' }]);
    } finally {
      await t2.close();
      await new Promise((r) => fake.server.close(r));
    }
  });
});

describe('GET /wikis/CATEGORY/{title}/children', () => {
  it('light records of the child categories, alphabetically', async () => {
    const res = await t.get(`/wikis/CATEGORY/${enc(mid.title)}/children`);
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((c: { title: string }) => c.title)).toEqual([leaf.title, stub.title].sort());
    expect(Object.keys(list[0]).sort()).toEqual(LIGHT_FIELDS);
    expect((await t.get(`/wikis/CATEGORY/${enc(mid.title)}/children?limit=1&offset=1`)).json()).toHaveLength(1);
    expect((await t.get(`/wikis/CATEGORY/${enc(leaf.title)}/children`)).json()).toEqual([]);
  });

  it('404 for an unknown category', async () => {
    expect((await t.get(`/wikis/CATEGORY/${enc(unique('no'))}/children`)).statusCode).toBe(404);
  });
});

describe('GET /wikis/CATEGORY/{title}/identification', () => {
  it('the identification text, raw and rendered', async () => {
    const res = await t.get(`/wikis/CATEGORY/${enc(leaf.title)}/identification`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['display_title', 'identification_raw', 'identification_rendered', 'image', 'langid', 'revisionid', 'title', 'wikiid']);
    expect(body).toMatchObject({ wikiid: leaf.wikiid, title: leaf.title, identification_raw: 'Look at the *plate*.', langid: 'en', image: null });
    expect(body.identification_rendered).toContain('<p>');
  });

  it('404 for an unknown category, or a wiki of another namespace', async () => {
    const w = await makeWiki(t, author);
    expect((await t.get(`/wikis/CATEGORY/${enc(w.title)}/identification`)).statusCode).toBe(404);
    expect((await t.get(`/wikis/CATEGORY/${enc(unique('no'))}/identification`)).statusCode).toBe(404);
  });
});

describe('GET /wikis/CATEGORY/{wikiid}/documents', () => {
  it('the category\'s guides (none yet)', async () => {
    const res = await t.get(`/wikis/CATEGORY/${leaf.wikiid}/documents`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('404 for a wikiid that is not a category; 422 for a non-integer', async () => {
    const w = await makeWiki(t, author);
    expect((await t.get(`/wikis/CATEGORY/${w.wikiid}/documents`)).statusCode).toBe(404);
    expect((await t.get('/wikis/CATEGORY/999999/documents')).statusCode).toBe(404);
    expect((await t.get('/wikis/CATEGORY/abc/documents')).statusCode).toBe(422);
  });
});

describe('PUT /wikis/CATEGORY/{title}/parent', () => {
  it('moves a category, as a new revision; null moves it to the top', async () => {
    const a = await makeCategory(t, author);
    const b = await makeCategory(t, author);
    const res = await t.put(`/wikis/CATEGORY/${enc(a.title)}/parent?revisionid=${a.revisionid}`, { token: author.token, body: { parent: b.title } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ parent: b.title });
    expect(res.json().revisionid).toBeGreaterThan(a.revisionid);
    expect((await t.get(`/wikis/CATEGORY/${enc(b.title)}`)).json().children).toEqual([a.title]);
    const top = await t.put(`/wikis/CATEGORY/${enc(a.title)}/parent?revisionid=${res.json().revisionid}`, { token: author.token, body: { parent: null } });
    expect(top.json()).toMatchObject({ parent: null });
    const revs = await t.db.selectFrom('wiki_revisions').select('action').where('wikiid', '=', a.wikiid).orderBy('revisionid').execute();
    expect(revs.map((r) => r.action)).toEqual(['create', 'parent', 'parent']);
  });

  it('refuses a cycle with 422: under itself or under a descendant', async () => {
    const r = (await t.get(`/wikis/CATEGORY/${enc(root.title)}`)).json();
    for (const parent of [root.title, mid.title, leaf.title]) {
      const res = await t.put(`/wikis/CATEGORY/${enc(root.title)}/parent?revisionid=${r.revisionid}`, { token: author.token, body: { parent } });
      expect(res.statusCode, parent).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ field: 'parent', code: 'cycle' });
    }
    expect((await t.get(`/wikis/CATEGORY/${enc(root.title)}`)).json()).toMatchObject({ parent: null, revisionid: r.revisionid });
  });

  it('two racing moves that together would make a cycle: one is refused', async () => {
    const a = await makeCategory(t, author);
    const b = await makeCategory(t, author);
    const [ra, rb] = await Promise.all([
      t.put(`/wikis/CATEGORY/${enc(a.title)}/parent?revisionid=${a.revisionid}`, { token: author.token, body: { parent: b.title } }),
      t.put(`/wikis/CATEGORY/${enc(b.title)}/parent?revisionid=${b.revisionid}`, { token: author.token, body: { parent: a.title } }),
    ]);
    expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 422]);
  });

  it('422 for an unknown parent, a missing revisionid or body; 409 stale; 403; 401; 404', async () => {
    const a = await makeCategory(t, author);
    const path = `/wikis/CATEGORY/${enc(a.title)}/parent`;
    expect((await t.put(`${path}?revisionid=${a.revisionid}`, { token: author.token, body: { parent: unique('no') } })).json().errors[0].field).toBe('parent');
    expect((await t.put(path, { token: author.token, body: { parent: null } })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect((await t.put(`${path}?revisionid=${a.revisionid}`, { token: author.token, body: {} })).json().errors[0]).toMatchObject({ field: 'parent', code: 'missing_field' });
    const stale = await t.put(`${path}?revisionid=${a.revisionid + 999}`, { token: author.token, body: { parent: null } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ wikiid: a.wikiid, revisionid: a.revisionid });
    expect((await t.put(`${path}?revisionid=${a.revisionid}`, { token: user.token, body: { parent: null } })).statusCode).toBe(403);
    expect((await t.put(`${path}?revisionid=${a.revisionid}`, { body: { parent: null } })).statusCode).toBe(401);
    expect((await t.put(`/wikis/CATEGORY/${enc(unique('no'))}/parent?revisionid=1`, { token: author.token, body: { parent: null } })).statusCode).toBe(404);
  });

  it('PATCH can move a category too, with the same cycle check', async () => {
    const a = await makeCategory(t, author);
    const b = await makeCategory(t, author, unique('B '), { parent: a.title });
    const cyc = await t.patch(`/wikis/CATEGORY/${enc(a.title)}?revisionid=${a.revisionid}`, { token: author.token, body: { parent: b.title } });
    expect(cyc.statusCode).toBe(422);
    expect(cyc.json().errors[0].code).toBe('cycle');
  });
});

describe('titles that are names of object properties', () => {
  // Last in the file: it adds categories at the top of the tree.
  it('__proto__, constructor and toString are categories like any other in the hierarchy', async () => {
    await makeCategory(t, author, '__proto__', { display_title: 'Proto' });
    await makeCategory(t, author, 'constructor', { parent: '__proto__' });
    await makeCategory(t, author, 'toString', { parent: 'constructor' });
    await makeCategory(t, author, 'hasOwnProperty');
    for (const q of ['', '&format=xml']) {
      const res = await t.get(`/wikis/CATEGORY?display=hierarchy${q}`);
      expect(res.statusCode).toBe(200);
      if (q) {
        expect(res.body).toContain('<item key="__proto__"><item key="constructor"><item key="toString" nil="true"/></item></item>');
        continue;
      }
      const body = JSON.parse(res.body);
      expect(Object.prototype.hasOwnProperty.call(body.hierarchy, '__proto__')).toBe(true);
      expect(body.hierarchy.__proto__).toEqual({ constructor: { toString: null } });
      expect(body.hierarchy.hasOwnProperty).toBeNull();
      expect(Object.prototype.hasOwnProperty.call(body.display_titles, '__proto__')).toBe(true);
      expect(body.display_titles.__proto__).toBe('Proto');
      expect(body.display_titles.constructor).toBe('constructor');
    }
  });
});
