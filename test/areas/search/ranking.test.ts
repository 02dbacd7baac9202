// The one ranking of /suggest and /users/search (src/db/search.ts), asserted as exact
// orders: the same expectations run on SQLite and on PostgreSQL (TEST_DATABASE_URL), so
// both databases give the same results in the same order.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';
import { searchDocs } from '../../../src/db/search.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

type Hit = [string, number];
async function suggest(query: string): Promise<Hit[]> {
  const res = await t.get(`/suggest/${enc(query)}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results.map((r: { dataType: string; guideid?: number; wikiid?: number }) => [r.dataType, r.dataType === 'guide' ? r.guideid! : r.wikiid!]);
}
const users = async (query: string, params = '') => {
  const res = await t.get(`/users/search/${enc(query)}${params}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().map((u: { userid: number }) => u.userid);
};

describe('suggest: tier, title length, title by code point, then type and id', () => {
  it('orders every kind of tie the same way on both databases', async () => {
    // Tier 0, equal titles: guides before the wiki (type), guides by id. Some guide gets an id above the wiki's.
    const kitWiki = await makeWiki(t, author, { title: 'Quillon kit' });
    const kitGuides = [await makePublishedGuide(t, author, 0, { title: 'Quillon kit' })];
    while (kitGuides[kitGuides.length - 1].guideid <= kitWiki.wikiid) kitGuides.push(await makePublishedGuide(t, author, 0, { title: 'Quillon kit' }));
    // Tier 0, same length: code point order ('B' before 'a'), whatever the database's collation.
    const lower = await makeWiki(t, author, { title: 'quillon alfa' });
    const upper = await makeWiki(t, author, { title: 'Quillon Beta' });
    // Tier 1: every word starts a title word, not at its start; shorter first, whatever the word count.
    const twice = await makeWiki(t, author, { title: 'Big quillon quillon' });
    const once = await makeWiki(t, author, { title: 'A quillon' });
    // Tier 2: in the body only; shorter titles first, however often the word occurs.
    const often = await makeWiki(t, author, { title: 'Longer page', contents: 'quillon quillon quillon quillon' });
    const rare = await makeWiki(t, author, { title: 'Page', contents: 'One quillon.' });

    expect(await suggest('quillon')).toEqual([
      ...kitGuides.map((g): Hit => ['guide', g.guideid]), ['wiki', kitWiki.wikiid],
      ['wiki', upper.wikiid], ['wiki', lower.wikiid],
      ['wiki', once.wikiid], ['wiki', twice.wikiid],
      ['wiki', rare.wikiid], ['wiki', often.wikiid],
    ]);
    // Case does not change the tier.
    expect(await suggest('QUILLON')).toEqual(await suggest('quillon'));
  });

  it('matching is case-insensitive and diacritic-sensitive on both databases', async () => {
    const lock = await makeWiki(t, author, { title: 'Écluse du quai' });
    expect(await suggest('écluse')).toEqual([['wiki', lock.wikiid]]);
    expect(await suggest('ecluse')).toEqual([]);
    expect(await suggest('quai écl')).toEqual([['wiki', lock.wikiid]]);
  });
});

describe('suggest: which titles a common prefix ranks', () => {
  it('the first 200 titles in order of their lower-cased bytes, whatever order they were written in', async () => {
    // Five short titles written first, then 210 long ones that sort before them: the short
    // ones are past the 200 candidates, so the page holds the first long titles.
    const base = 3_000_000;
    const guide = (i: number, title: string) => ({ guideid: base + i, langid: 'en', revisionid: 1, userid: author.userid, type: 'replacement', category: 'Bulk', title, created_date: 0, modified_date: 0, public: 1 });
    const db = t.db as unknown as Kysely<any>;
    await db.insertInto('guides').values(Array.from({ length: 5 }, (_, i) => guide(i, `Xyloph z${i}`))).execute();
    await db.insertInto('guides').values(Array.from({ length: 210 }, (_, i) => guide(100 + i, `xyloph a long title ${String(i).padStart(3, '0')}`))).execute();
    const hits = await searchDocs(t.db, 'xyloph', { targets: [{ type: 'guide' }] }, { offset: 0, limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(Array.from({ length: 10 }, (_, i) => base + 100 + i));
    expect(hits.every((h) => h.tier === 0)).toBe(true);
  });
});

describe('user search: the same ranking', () => {
  it('tier, name length, name by code point, then userid', async () => {
    const tied = [await makeUser(t, { username: 'Zorbel Gamma' }), await makeUser(t, { username: 'Zorbel Gamma' })];
    const lowerName = await makeUser(t, { username: 'zorbel alfa' });
    const upperName = await makeUser(t, { username: 'Zorbel Beta' });
    const joined = await makeUser(t, { username: 'Zorbelkin' });
    const repeated = await makeUser(t, { username: 'Bo Zorbel Zorbel Zorbel' });
    const single = await makeUser(t, { username: 'Ann Zorbel' });
    const handle = await makeUser(t, { username: 'Nobody', unique_username: 'zorbel_handle' });
    const expected = [
      joined.userid, upperName.userid, lowerName.userid, tied[0].userid, tied[1].userid,
      single.userid, repeated.userid,
      handle.userid,
    ];
    expect(await users('zorbel')).toEqual(expected);
    expect(await users('zorbel', '?offset=3&limit=2')).toEqual(expected.slice(3, 5));
  });
});
