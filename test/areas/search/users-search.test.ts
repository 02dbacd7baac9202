import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';

const SUMMARY_FIELDS = ['userid', 'username', 'unique_username', 'join_date', 'image', 'reputation', 'url', 'teams', 'privileges'].sort();

let admin: TestUser;
let alice: TestUser, alicia: TestUser, bob: TestUser, carl: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  alice = await makeUser(t, { username: 'Aliqua Cooper' });
  alicia = await makeUser(t, { username: 'Aliquam Keys' });
  bob = await makeUser(t, { username: 'Bob Aliquando' });
  carl = await makeUser(t, { username: 'Carl Nobody', unique_username: 'aliquid_carl' });
});

const search = async (q: string, params = '') => {
  const res = await t.get(`/users/search/${encodeURIComponent(q)}${params}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
};

describe('GET /users/search/{search} (the search index)', () => {
  it('names starting with the search first, then names with a word starting with it, then unique usernames', async () => {
    const found = await search('aliq');
    expect(found.map((u) => u.userid).slice(0, 2).sort()).toEqual([alice.userid, alicia.userid].sort());
    expect(found.map((u) => u.userid).slice(2)).toEqual([bob.userid, carl.userid]);
    expect(Object.keys(found[0]).sort()).toEqual(SUMMARY_FIELDS);
  });

  it('every word must start a word of the name, in any order', async () => {
    expect((await search('coop aliq')).map((u) => u.userid)).toEqual([alice.userid]);
    expect(await search('liqua')).toEqual([]);
  });

  it('offset and limit page through the same order', async () => {
    const all = (await search('aliq')).map((u) => u.userid);
    expect((await search('aliq', '?limit=2')).map((u) => u.userid)).toEqual(all.slice(0, 2));
    expect((await search('aliq', '?limit=2&offset=2')).map((u) => u.userid)).toEqual(all.slice(2, 4));
  });

  it('follows renames and disabling at once', async () => {
    const u = await makeUser(t, { username: 'Quetzal Rider' });
    expect((await search('quetz')).map((x) => x.userid)).toEqual([u.userid]);
    await t.patch(`/users/${u.userid}`, { token: u.token, body: { username: 'Condor Rider' } });
    expect(await search('quetz')).toEqual([]);
    expect((await search('condor')).map((x) => x.userid)).toEqual([u.userid]);
    await t.patch(`/users/${u.userid}`, { token: admin.token, body: { enabled: false } });
    expect(await search('condor')).toEqual([]);
  });

  it('the deprecated /users/searchnames/{search} answers the same', async () => {
    const res = await t.get('/users/searchnames/aliq');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(await search('aliq'));
  });

  it('no letters or digits: no users; 422 for a search too long or a bad limit', async () => {
    expect(await search('%')).toEqual([]);
    expect((await t.get(`/users/search/${'a'.repeat(101)}`)).statusCode).toBe(422);
    expect((await t.get('/users/search/aliq?limit=0')).statusCode).toBe(422);
  });
});
