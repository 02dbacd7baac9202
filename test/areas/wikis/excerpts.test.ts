// Wiki excerpts (the `text` of light records) are computed when a text is written, with
// the linear parser, and stored; reads only read them. A hostile text (`[a` x 40000, whose
// excerpt a regular expression took seconds to compute at every read) costs the writer
// linear work once, and readers nothing.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';
import { makeImage } from '../../helpers/factories/guides.js';
import { countSteps, stepsTaken } from '../../../src/markup/index.js';
import { plainExcerpt } from '../../../src/areas/wikis/wikis.queries.js';
import * as excerptMigration from '../../../src/db/migrations/2026_11_23_1000_wiki_excerpts.js';

let author: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

const stored = async (wikiid: number) => (await t.db.selectFrom('wikis').select('excerpt').where('wikiid', '=', wikiid).executeTakeFirstOrThrow()).excerpt;
const light = async (namespace: string, wikiid: number, query = '') =>
  (await t.get(`/wikis/${namespace}?limit=200${query}`)).json().find((l: { wikiid: number }) => l.wikiid === wikiid);

describe('wiki excerpts', () => {
  it('are the plain text of what is written: marks, tags and embeds go, link labels stay', async () => {
    // An embed names an image the writer may use (their own).
    const image = await makeImage(t, author.userid);
    const w = await makeWiki(t, author, { contents: `== Intro ==\n'''Bold''' and [https://e.test|a link], [guide|3|a guide]. [image|${image}]\n\n* one\n* two\n\n[code]\nx < y\n[/code]` });
    expect(await stored(w.wikiid)).toBe('Intro Bold and a link, a guide. one two x < y');
    expect((await light('WIKI', w.wikiid)).text).toBe('Intro Bold and a link, a guide. one two x < y');
  });

  it('are cut at a word, at most 200 characters', () => {
    const text = plainExcerpt('word '.repeat(100));
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toMatch(/^(word )+word…$/);
  });

  it('are read as stored, not computed at read time', async () => {
    const w = await makeWiki(t, author, { contents: 'Original words.' });
    await t.db.updateTable('wikis').set({ excerpt: 'Stored excerpt' }).where('wikiid', '=', w.wikiid).execute();
    const before = stepsTaken();
    expect((await light('WIKI', w.wikiid)).text).toBe('Stored excerpt');
    expect(stepsTaken() - before).toBe(0);
  });

  it('follow every write: edit, translation, revert', async () => {
    const w = await makeWiki(t, author, { contents: "''First'' text" });
    expect(await stored(w.wikiid)).toBe('First text');
    const edited = await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: "'''Second''' text" } });
    expect(edited.statusCode).toBe(200);
    expect(await stored(w.wikiid)).toBe('Second text');
    const de = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${edited.json().revisionid}`, { token: author.token, body: { contents: '++Deutsch++ Text' } });
    expect(de.statusCode).toBe(200);
    expect((await light('WIKI', w.wikiid, '&langid=de')).text).toBe('Deutsch Text');
    expect((await light('WIKI', w.wikiid)).text).toBe('Second text');
    const reverted = await t.post(`/wikis/WIKI/${enc(w.title)}/revert?revisionid=${edited.json().revisionid}`, { token: author.token, body: { target_revisionid: w.revisionid } });
    expect(reverted.statusCode, reverted.body).toBeLessThan(300);
    expect(await stored(w.wikiid)).toBe('First text');
  });

  it('a hostile text in one\'s USER wiki: linear work once at write, none at read', async () => {
    const hostile = '[a'.repeat(40_000);
    const small = countSteps(() => plainExcerpt('[a'.repeat(5_000))).steps;
    const large = countSteps(() => plainExcerpt(hostile), 200 * hostile.length).steps;
    expect(large).toBeLessThanOrEqual(10 * small);
    const res = await t.post('/wikis', { token: user.token, body: { namespace: 'USER', title: String(user.userid), contents: hostile } });
    expect(res.statusCode, res.body).toBe(201);
    expect(await stored(res.json().wikiid)).toBe(`${'[a'.repeat(99)}[…`);
    const before = stepsTaken();
    const list = await t.get('/wikis/USER?limit=200');
    expect(list.statusCode).toBe(200);
    expect(stepsTaken() - before).toBe(0);
  });

  it('the migration fills in the excerpts of the rows that exist', async () => {
    const w = await makeWiki(t, author, { contents: "Before the ''migration''." });
    await excerptMigration.down(t.db);
    await excerptMigration.up(t.db);
    expect(await stored(w.wikiid)).toBe('Before the migration.');
    const de = await t.db.selectFrom('wiki_translations').select(['wikiid', 'contents_raw', 'excerpt']).execute();
    expect(de.length).toBeGreaterThan(0);
    for (const r of de) expect(r.excerpt).toBe(plainExcerpt(r.contents_raw));
  });
});
