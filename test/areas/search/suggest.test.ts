import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { enc, makeCategory, makeComment, makeWiki } from '../../helpers/factories/wikis.js';

const LIGHT_FIELDS = ['dataType', 'wikiid', 'title', 'display_title', 'namespace', 'summary', 'url', 'text', 'image'].sort();

let admin: TestUser;
let author: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [admin, author, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

async function suggest(query: string, params = '') {
  const res = await t.get(`/suggest/${enc(query)}${params}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['query', 'results']);
  expect(body.query).toBe(query);
  return body.results as Array<Record<string, any>>;
}
const titles = (results: Array<Record<string, any>>) => results.map((r) => r.title);

describe('GET /suggest/{query}', () => {
  it('finds a wiki by the start of any word of its title, as a light wiki record', async () => {
    const w = await makeWiki(t, author, { title: 'Centrifugal Xylopump', description: 'Moves water.', contents: 'Impeller inside.' });
    for (const q of ['centri', 'Centrifugal', 'xylo', 'CENTRIFUGAL XYL', 'xylop cent']) {
      expect(titles(await suggest(q)), q).toEqual(['Centrifugal Xylopump']);
    }
    const [r] = await suggest('xylo');
    expect(Object.keys(r).sort()).toEqual(LIGHT_FIELDS);
    expect(r).toEqual({ dataType: 'wiki', wikiid: w.wikiid, title: w.title, display_title: w.title, namespace: 'WIKI', summary: 'Moves water.', url: w.url, text: 'Impeller inside.', image: null });
  });

  it('matches prefixes only: not the middle of a word, and every word must match', async () => {
    await makeWiki(t, author, { title: 'Quokkaphone handset' });
    expect(await suggest('kkaphone')).toEqual([]);
    expect(await suggest('quokka zzz')).toEqual([]);
    expect(titles(await suggest('quokka hand'))).toEqual(['Quokkaphone handset']);
  });

  it('finds words of the summary, the contents and of comments on the wiki, after title matches', async () => {
    const inContents = await makeWiki(t, author, { title: 'Gearbox', contents: 'Check the wombatlever daily.' });
    const inComment = await makeWiki(t, author, { title: 'Motor' });
    await makeComment(t, user, 'wiki', inComment.wikiid, { text: 'The wombatlever of this motor squeaks.' });
    const inTitle = await makeWiki(t, author, { title: 'Wombatlever spare' });
    const ids = (await suggest('wombatlever')).map((r) => r.wikiid);
    expect(ids[0]).toBe(inTitle.wikiid);
    expect(ids.slice(1).sort()).toEqual([inContents.wikiid, inComment.wikiid].sort());
  });

  it('ranks titles that start with the query first, then titles holding every word, then the rest', async () => {
    const body = await makeWiki(t, author, { title: 'Valve assembly', contents: 'The narwhalpump sits below.' });
    const word = await makeWiki(t, author, { title: 'Big narwhalpump housing' });
    const prefix = await makeWiki(t, author, { title: 'Narwhalpump seal kit' });
    const prefixShort = await makeWiki(t, author, { title: 'Narwhalpump' });
    expect((await suggest('narwhalpump')).map((r) => r.wikiid)).toEqual([prefixShort.wikiid, prefix.wikiid, word.wikiid, body.wikiid]);
    // The whole query as a title prefix beats the same words elsewhere in a title.
    const exact = await makeWiki(t, author, { title: 'Seal kit narwhalpump' });
    expect((await suggest('seal kit'))[0].wikiid).toBe(exact.wikiid);
    expect((await suggest('narwhalpump seal')).map((r) => r.wikiid).slice(0, 2)).toEqual([prefix.wikiid, exact.wikiid]);
  });

  it('answers at most 10 results', async () => {
    for (let i = 0; i < 12; i++) await makeWiki(t, author, { title: `Limitcheck item ${i}` });
    const results = await suggest('limitcheck');
    expect(results).toHaveLength(10);
    expect(new Set(results.map((r) => r.wikiid)).size).toBe(10);
  });

  it('the default language only, unless showAllLanguages; translations are found in their language', async () => {
    const w = await makeWiki(t, author, { title: 'Impeller wheel' });
    await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { display_title: 'Laufradschaufel', contents: 'Deutsch' } });
    const german = await makeWiki(t, author, { title: 'Dichtungsring', langid: 'de' });
    expect(await suggest('laufrad')).toEqual([]);
    expect(await suggest('dichtung')).toEqual([]);
    const all = await suggest('laufrad', '?showAllLanguages=true');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ wikiid: w.wikiid, display_title: 'Laufradschaufel', title: 'Impeller wheel', text: 'Deutsch' });
    expect((await suggest('dichtung', '?showAllLanguages=true')).map((r) => r.wikiid)).toEqual([german.wikiid]);
    // The English version is found in English.
    expect((await suggest('impeller wh')).map((r) => r.display_title)).toEqual(['Impeller wheel']);
    // Both language versions match a word they share.
    expect((await suggest('impeller', '?showAllLanguages=true')).filter((r) => r.wikiid === w.wikiid).map((r) => r.display_title).sort()).toEqual(['Impeller wheel', 'Laufradschaufel']);
  });

  it('doctypes: category, device (ITEM and CATEGORY), wiki (every namespace), question (none), all', async () => {
    const cat = await makeCategory(t, author, 'Okapidevice family');
    const item = await makeWiki(t, author, { namespace: 'ITEM', title: 'Okapidevice belt', item_type: 'part' });
    const page = await makeWiki(t, author, { title: 'Okapidevice manual' });
    const info = await makeWiki(t, admin, { namespace: 'INFO', title: 'Okapidevice about' });
    const ids = async (params: string) => (await suggest('okapidevice', params)).map((r) => r.wikiid).sort((a, b) => a - b);
    const sorted = (...xs: number[]) => xs.sort((a, b) => a - b);
    expect(await ids('?doctypes=category')).toEqual([cat.wikiid]);
    expect(await ids('?doctypes=device')).toEqual(sorted(cat.wikiid, item.wikiid));
    expect(await ids('?doctypes=wiki')).toEqual(sorted(cat.wikiid, item.wikiid, page.wikiid, info.wikiid));
    expect(await ids('')).toEqual(sorted(cat.wikiid, item.wikiid, page.wikiid, info.wikiid));
    expect(await ids('?doctypes=all')).toEqual(sorted(cat.wikiid, item.wikiid, page.wikiid, info.wikiid));
    expect(await ids('?doctypes=question')).toEqual([]);
    expect(await ids('?doctypes=guide')).toEqual([]);
    expect(await ids('?doctypes=question,category')).toEqual([cat.wikiid]);
    expect(await ids('?doctypes=Category, Device')).toEqual(sorted(cat.wikiid, item.wikiid));
    const bad = await t.get('/suggest/okapidevice?doctypes=category,movies');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('doctypes');
  });

  it('an empty query, or one without letters or digits, answers no results', async () => {
    for (const path of ['/suggest/', '/suggest', `/suggest/${enc('  ')}`, `/suggest/${enc('*!?')}`, `/suggest/${enc('"')}`]) {
      const res = await t.get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.json().results, path).toEqual([]);
    }
    expect((await t.get('/suggest/')).json()).toEqual({ query: '', results: [] });
    // Nothing to search for is answered at once, but the doctypes are still checked.
    for (const path of ['/suggest?doctypes=movies', `/suggest/${enc('*!?')}?doctypes=guide,movies`]) {
      const bad = await t.get(path);
      expect(bad.statusCode, path).toBe(422);
      expect(bad.json().errors[0].field, path).toBe('doctypes');
    }
  });

  it('GET /suggest (nothing typed) reads nothing from the database: the benchmark\'s floor', async () => {
    const queries: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => queries.push(e.query.sql));
    try {
      for (const path of ['/suggest', '/suggest?doctypes=guide', '/suggest?showAllLanguages=true']) expect((await t.get(path)).json(), path).toEqual({ query: '', results: [] });
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(queries).toEqual([]);
  });

  it('query syntax is not interpreted: quotes, operators and LIKE wildcards are plain text', async () => {
    await makeWiki(t, author, { title: 'Percent 100% guide' });
    expect(await suggest('NOT OR AND')).toEqual([]);
    expect(titles(await suggest('percent 100%'))).toEqual(['Percent 100% guide']);
    expect(await suggest('"percent')).toHaveLength(1);
    expect(await suggest('per%')).toHaveLength(1);
    expect(await suggest('_ercent')).toEqual([]);
  });
});

describe('the index follows every write at once', () => {
  it('a new wiki, a title change, a translation, a deletion', async () => {
    const w = await makeWiki(t, author, { title: 'Marmotvalve' });
    expect(titles(await suggest('marmot'))).toEqual(['Marmotvalve']);
    const edited = (await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { display_title: 'Beaverflap' } })).json();
    expect((await suggest('beaverfl')).map((r) => r.display_title)).toEqual(['Beaverflap']);
    // The title still finds it (it is part of the indexed text), after display-title matches.
    expect((await suggest('marmot')).map((r) => r.wikiid)).toEqual([w.wikiid]);
    await t.del(`/wikis/WIKI/${enc(w.title)}?revisionid=${edited.revisionid}`, { token: author.token });
    expect(await suggest('beaverfl')).toEqual([]);
    expect(await suggest('marmot')).toEqual([]);
  });

  it('a comment edit and deletion', async () => {
    const w = await makeWiki(t, author, { title: 'Plain page' });
    const c = await makeComment(t, user, 'wiki', w.wikiid, { text: 'ocelotgasket is worn' });
    expect((await suggest('ocelotgasket')).map((r) => r.wikiid)).toEqual([w.wikiid]);
    await t.patch(`/comments/${c.commentid}`, { token: user.token, body: { text: 'lynxgasket is worn' } });
    expect(await suggest('ocelotgasket')).toEqual([]);
    expect((await suggest('lynxgasket')).map((r) => r.wikiid)).toEqual([w.wikiid]);
    await t.del(`/comments/${c.commentid}`, { token: user.token });
    expect(await suggest('lynxgasket')).toEqual([]);
  });

  it('past the candidates ranked per tier (1000 body matches), titles that start with the query still come first', async () => {
    const body = Array.from({ length: 1000 }, (_, i) => ({ namespace: 'WIKI', title: `Manual page ${i} okapi`, summary: 'Mentions xeruses in passing.' }));
    await t.db.insertInto('wikis').values(body).execute();
    const first = await t.db.insertInto('wikis').values({ namespace: 'WIKI', title: 'Xerus habitat' }).returning('wikiid').executeTakeFirstOrThrow();
    const within = await t.db.insertInto('wikis').values({ namespace: 'WIKI', title: 'The xerus enclosure' }).returning('wikiid').executeTakeFirstOrThrow();
    const results = await suggest('xeru');
    expect(results).toHaveLength(10);
    expect(results.slice(0, 2).map((r) => r.wikiid)).toEqual([first.wikiid, within.wikiid]);
    expect(results.slice(2).every((r) => r.title.startsWith('Manual page'))).toBe(true);
  });

  it('rows written by any code, straight to the table, are indexed by the database itself', async () => {
    const row = await t.db.insertInto('wikis').values({ namespace: 'CATEGORY', title: 'Armadillo drives' }).returning('wikiid').executeTakeFirstOrThrow();
    expect((await suggest('armadillo', '?doctypes=category')).map((r) => r.wikiid)).toEqual([row.wikiid]);
    await t.db.updateTable('wikis').set({ title: 'Pangolin drives' }).where('wikiid', '=', row.wikiid).execute();
    expect(await suggest('armadillo')).toEqual([]);
    expect((await suggest('pangolin')).map((r) => r.title)).toEqual(['Pangolin drives']);
    await t.db.deleteFrom('wikis').where('wikiid', '=', row.wikiid).execute();
    expect(await suggest('pangolin')).toEqual([]);
  });
});
