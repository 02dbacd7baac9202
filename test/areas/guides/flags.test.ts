// Guide flags: only the known flag ids, and a flag is a change of the guide (revisionid,
// a new revision, modified_date).
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeModerator, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';

let author: TestUser;
let moderator: TestUser;
const t = appForFile({}, async () => {
  [author, moderator] = await Promise.all([makeAuthor(t), makeModerator(t)]);
});

const revisionsOf = async (guideid: number) =>
  (await t.db.selectFrom('guide_revisions').select('action').where('guideid', '=', guideid).orderBy('revisionid').execute()).map((r) => r.action);
const page = (g: { guideid: number }) => t.app.inject({ method: 'GET', url: `/Guide/${g.guideid}` });

describe('flag ids are checked against the known set', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('%s is 404 for PUT and DELETE, stores nothing, and the guide page still answers', async (flagid) => {
    const g = await makePublishedGuide(t, author);
    for (const token of [author.token, moderator.token]) {
      const put = await t.put(`/guides/${g.guideid}/flags/${flagid}?revisionid=${g.revisionid}`, { token });
      expect(put.statusCode, put.body).toBe(404);
      expect(put.json().code).toBe('not_found');
      expect((await t.del(`/guides/${g.guideid}/flags/${flagid}?revisionid=${g.revisionid}`, { token })).statusCode).toBe(404);
    }
    expect(await t.db.selectFrom('guide_flags').select('flagid').where('guideid', '=', g.guideid).execute()).toEqual([]);
    expect((await t.get(`/guides/${g.guideid}`)).json()).toMatchObject({ revisionid: g.revisionid, flags: [] });
    expect((await page(g)).statusCode).toBe(200);
  });

  it('a guide page with an unknown flag stored by an older version still answers 200, showing only known flags', async () => {
    const g = await makePublishedGuide(t, author);
    await t.db.insertInto('guide_flags').values([
      { guideid: g.guideid, flagid: 'constructor', userid: author.userid, date: t.clock.now() },
      { guideid: g.guideid, flagid: 'DANGER', userid: author.userid, date: t.clock.now() },
    ]).execute();
    const res = await page(g);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('>Danger</span>');
    expect(res.body).not.toContain('constructor');
  });
});

describe('a flag changes the guide', () => {
  it('PUT and DELETE take the current revisionid, make a new revision and move modified_date, so modifiedSince finds the guide', async () => {
    const g = await makePublishedGuide(t, author);
    t.clock.advance(100);
    const since = t.clock.now();
    expect((await t.get(`/guides?modifiedSince=${since}&limit=200`)).json().map((x: { guideid: number }) => x.guideid)).not.toContain(g.guideid);

    const set = await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${g.revisionid}`, { token: author.token });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().revisionid).toBeGreaterThan(g.revisionid);
    expect(set.json().modified_date).toBe(since);
    expect((await t.get(`/guides?modifiedSince=${since}&limit=200`)).json().map((x: { guideid: number }) => x.guideid)).toContain(g.guideid);
    expect(await revisionsOf(g.guideid)).toEqual(['create', 'flag']);

    t.clock.advance(100);
    const cleared = await t.del(`/guides/${g.guideid}/flags/DANGER?revisionid=${set.json().revisionid}`, { token: author.token });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ flags: [], modified_date: since + 100 });
    expect(cleared.json().revisionid).toBeGreaterThan(set.json().revisionid);
    expect(await revisionsOf(g.guideid)).toEqual(['create', 'flag', 'unflag']);

    const starred = await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${cleared.json().revisionid}`, { token: moderator.token });
    expect(starred.statusCode).toBe(200);
    expect(await revisionsOf(g.guideid)).toEqual(['create', 'flag', 'unflag', 'flag']);
  });

  it('a stale revisionid is 409 with the current guide and changes nothing; none is 422', async () => {
    const g = await makePublishedGuide(t, author);
    const stale = await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${g.revisionid - 1}`, { token: author.token });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ guideid: g.guideid, revisionid: g.revisionid, flags: [] });
    const missing = await t.put(`/guides/${g.guideid}/flags/DANGER`, { token: author.token });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect((await t.del(`/guides/${g.guideid}/flags/DANGER`, { token: author.token })).statusCode).toBe(422);
    expect(await t.db.selectFrom('guide_flags').select('flagid').where('guideid', '=', g.guideid).execute()).toEqual([]);
    expect(await revisionsOf(g.guideid)).toEqual(['create']);
  });

  it('setting a flag the guide has, or removing one it lacks, changes nothing: 200, same revisionid and modified_date', async () => {
    const g = await makePublishedGuide(t, author);
    const set = (await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${g.revisionid}`, { token: author.token })).json();
    t.clock.advance(50);
    const again = await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${set.revisionid}`, { token: author.token });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ revisionid: set.revisionid, modified_date: set.modified_date, flags: ['DANGER'] });
    const absent = await t.del(`/guides/${g.guideid}/flags/DEATH?revisionid=${set.revisionid}`, { token: author.token });
    expect(absent.statusCode).toBe(200);
    expect(absent.json()).toMatchObject({ revisionid: set.revisionid, modified_date: set.modified_date, flags: ['DANGER'] });
    expect((await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${g.revisionid}`, { token: author.token })).statusCode).toBe(409);
    expect(await revisionsOf(g.guideid)).toEqual(['create', 'flag']);
  });
});
