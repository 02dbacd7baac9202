import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';
import { nextVersion } from '../../../src/areas/wikis/wikis.service.js';
import { flushWikiRecords, wikiCache } from '../../../src/areas/wikis/wikis.cache.js';

// The specification's release record; for wikis guideid is null and wikiid is added.
const RELEASE_FIELDS = ['releaseid', 'guideid', 'langid', 'revisionid', 'user', 'status', 'title', 'init_date', 'release_date', 'notes', 'type', 'href', 'version', 'wikiid'].sort();

let admin: TestUser;
let author: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [admin, author, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

describe('wiki tags', () => {
  it('PUT adds a tag (creating it) as a new revision, stored in the shared tag storage; GET lists them alphabetically', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    expect((await t.get(`${path}/tags`)).json()).toEqual([]);
    const res = await t.put(`${path}/tag?revisionid=${w.revisionid}`, { token: author.token, body: { tag: '  zebra   crossing ' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ wikiid: w.wikiid, tags: ['zebra crossing'] });
    expect(res.json().revisionid).toBeGreaterThan(w.revisionid);
    const alpha = await t.put(`${path}/tag?revisionid=${res.json().revisionid}`, { token: author.token, body: { tag: 'alpha' } });
    expect(alpha.statusCode).toBe(200);
    expect((await t.get(`${path}/tags`)).json()).toEqual(['alpha', 'zebra crossing']);
    const stored = await t.db.selectFrom('doc_tags').innerJoin('tags', 'tags.tagid', 'doc_tags.tagid').select(['tags.tag', 'doc_tags.doctype']).where('doc_tags.docid', '=', w.wikiid).where('doc_tags.doctype', '=', 'wiki').orderBy('tags.tag').execute();
    expect(stored).toEqual([{ tag: 'alpha', doctype: 'wiki' }, { tag: 'zebra crossing', doctype: 'wiki' }]);
    const revisions = await t.db.selectFrom('wiki_revisions').select(['action', 'contents_raw']).where('wikiid', '=', w.wikiid).orderBy('revisionid').execute();
    expect(revisions).toEqual([
      { action: 'create', contents_raw: 'Some contents.' }, { action: 'tag', contents_raw: 'Some contents.' }, { action: 'tag', contents_raw: 'Some contents.' },
    ]);
  });

  it('DELETE removes a tag given in the body or the query, answering the wiki', async () => {
    let w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    for (const tag of ['a', 'b', 'c']) w = (await t.put(`${path}/tag?revisionid=${w.revisionid}`, { token: author.token, body: { tag } })).json();
    const res = await t.del(`${path}/tag?revisionid=${w.revisionid}`, { token: author.token, body: { tag: 'a' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().tags).toEqual(['b', 'c']);
    const byQuery = await t.del(`${path}/tag?tag=b&revisionid=${res.json().revisionid}`, { token: author.token });
    expect(byQuery.json().tags).toEqual(['c']);
  });

  it('errors: 401, 403, 404, 422 missing or blank tag or revisionid, 409 for a stale revisionid', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    const rev = `?revisionid=${w.revisionid}`;
    expect((await t.put(`${path}/tag${rev}`, { body: { tag: 'x' } })).statusCode).toBe(401);
    expect((await t.put(`${path}/tag${rev}`, { token: user.token, body: { tag: 'x' } })).statusCode).toBe(403);
    expect((await t.del(`${path}/tag${rev}`, { token: user.token, body: { tag: 'x' } })).statusCode).toBe(403);
    expect((await t.put(`/wikis/WIKI/${enc(unique('no'))}/tag${rev}`, { token: author.token, body: { tag: 'x' } })).statusCode).toBe(404);
    expect((await t.get(`/wikis/WIKI/${enc(unique('no'))}/tags`)).statusCode).toBe(404);
    expect((await t.put(`${path}/tag${rev}`, { token: author.token, body: {} })).json().errors[0]).toMatchObject({ field: 'tag', code: 'missing_field' });
    expect((await t.put(`${path}/tag${rev}`, { token: author.token, body: { tag: '   ' } })).json().errors[0]).toMatchObject({ field: 'tag', code: 'invalid_value' });
    expect((await t.del(`${path}/tag${rev}`, { token: author.token })).json().errors[0]).toMatchObject({ field: 'tag', code: 'missing_field' });
    for (const method of ['PUT', 'DELETE'] as const) {
      const missing = await t.request(method, `${path}/tag`, { token: author.token, body: { tag: 'x' } });
      expect(missing.statusCode).toBe(422);
      expect(missing.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    }
    const stale = await t.put(`${path}/tag?revisionid=${w.revisionid + 99}`, { token: author.token, body: { tag: 'x' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ wikiid: w.wikiid, tags: [], revisionid: w.revisionid });
    expect((await t.get(`${path}/tags`)).json()).toEqual([]);
    expect((await t.put(`${path}/tag${rev}`, { token: author.token, body: { tag: 'x' } })).statusCode).toBe(200);
  });

  it('a tag of a translation is a revision of that translation; the source keeps its revisionid', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    const de = await t.patch(`${path}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Inhalt.' } });
    expect(de.statusCode, de.body).toBe(200);
    const tagged = await t.put(`${path}/tag?langid=de&revisionid=${de.json().revisionid}`, { token: author.token, body: { tag: 'übersetzt' } });
    expect(tagged.statusCode, tagged.body).toBe(200);
    expect(tagged.json()).toMatchObject({ langid: 'de', tags: ['übersetzt'] });
    expect(tagged.json().revisionid).toBeGreaterThan(de.json().revisionid);
    expect((await t.get(path)).json()).toMatchObject({ revisionid: w.revisionid, tags: ['übersetzt'] });
    // The source's revisionid is not the translation's: 409 with the translation.
    expect((await t.put(`${path}/tag?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { tag: 'x' } })).statusCode).toBe(409);
  });

  it('tags belong to the wiki in every language: a tag through one language shows at once in the kept and stored records of the others', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    const de = (await t.patch(`${path}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Inhalt.' } })).json();
    // Both languages read, kept by this process and stored, before the tags change.
    expect((await t.get(path)).json()).toMatchObject({ langid: 'en', tags: [] });
    expect((await t.get(`${path}?langid=de`)).json()).toMatchObject({ langid: 'de', tags: [] });
    await flushWikiRecords(t.app);
    const stored = await t.db.selectFrom('wiki_records').select('langid').where('wikiid', '=', w.wikiid).orderBy('langid').execute();
    expect(stored.map((r) => r.langid)).toEqual(['de', 'en']);
    const tagged = await t.put(`${path}/tag?revisionid=${w.revisionid}`, { token: author.token, body: { tag: 'english' } });
    expect(tagged.json()).toMatchObject({ langid: 'en', tags: ['english'] });
    // This process's kept German record; then, nothing kept, a read that must not take the German record stored before the tag.
    expect((await t.get(`${path}?langid=de`)).json()).toMatchObject({ langid: 'de', revisionid: de.revisionid, tags: ['english'] });
    await flushWikiRecords(t.app);
    wikiCache(t.app).clear();
    expect((await t.get(`${path}?langid=de`)).json()).toMatchObject({ langid: 'de', revisionid: de.revisionid, tags: ['english'] });
    expect((await t.get(path)).json()).toMatchObject({ langid: 'en', tags: ['english'] });
    await flushWikiRecords(t.app);
    const removed = await t.del(`${path}/tag?langid=de&revisionid=${de.revisionid}`, { token: author.token, body: { tag: 'english' } });
    expect(removed.json()).toMatchObject({ langid: 'de', tags: [] });
    expect((await t.get(path)).json()).toMatchObject({ langid: 'en', revisionid: tagged.json().revisionid, tags: [] });
    wikiCache(t.app).clear();
    expect((await t.get(path)).json()).toMatchObject({ langid: 'en', revisionid: tagged.json().revisionid, tags: [] });
  });
});

describe('POST /wikis/{wikiid}/releases', () => {
  it('releases the current revision: 201 with the release record, versions counting up', async () => {
    const w = await makeWiki(t, author, { display_title: 'Handbook' });
    const res = await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token, body: { notes: 'First release' } });
    expect(res.statusCode).toBe(201);
    const r = res.json();
    expect(Object.keys(r).sort()).toEqual(RELEASE_FIELDS);
    expect(r).toMatchObject({
      guideid: null, wikiid: w.wikiid, langid: 'en', revisionid: w.revisionid, status: 'released', title: 'Handbook', notes: 'First release',
      type: 'major', version: '1.0', init_date: t.clock.now(), release_date: t.clock.now(), user: { userid: author.userid },
    });
    expect(r.href).toBe(`${w.url}?langid=en&revisionid=${w.revisionid}`);
    // The href reads the released revision.
    expect((await t.get(r.href.replace('http://test.local/api/2.0', ''))).json().revisionid).toBe(w.revisionid);
    const minor = (await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token, body: { type: 'minor' } })).json();
    expect(minor.version).toBe('1.1');
    const major = (await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token })).json();
    expect(major.version).toBe('2.0');
    const named = (await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token, body: { version: '2024-Q1', title: 'Spring' } })).json();
    expect(named).toMatchObject({ version: '2024-Q1', title: 'Spring' });
  });

  it('releases a translation by its own revision', async () => {
    const w = await makeWiki(t, author);
    const de = (await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Deutsch' } })).json();
    const stale = await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token, body: { langid: 'de' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ langid: 'de', revisionid: de.revisionid });
    const res = await t.post(`/wikis/${w.wikiid}/releases?revisionid=${de.revisionid}`, { token: author.token, body: { langid: 'de' } });
    expect(res.json()).toMatchObject({ langid: 'de', revisionid: de.revisionid, version: '1.0' });
    expect((await t.post(`/wikis/${w.wikiid}/releases?revisionid=1`, { token: author.token, body: { langid: 'fr' } })).statusCode).toBe(404);
  });

  it('errors: 422 missing revisionid, 409 stale, 404 unknown wiki, 403, 401, 422 bad type', async () => {
    const w = await makeWiki(t, author);
    expect((await t.post(`/wikis/${w.wikiid}/releases`, { token: author.token })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const stale = await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid + 50}`, { token: author.token });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().wikiid).toBe(w.wikiid);
    expect((await t.post(`/wikis/999999/releases?revisionid=1`, { token: author.token })).statusCode).toBe(404);
    expect((await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`)).statusCode).toBe(401);
    expect((await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token, body: { type: 'patch' } })).json().errors[0].field).toBe('type');
    expect(await t.db.selectFrom('wiki_releases').select('releaseid').where('wikiid', '=', w.wikiid).execute()).toEqual([]);
  });

  it('nextVersion counts past the highest N.M', () => {
    expect(nextVersion([], 'major')).toBe('1.0');
    expect(nextVersion([], 'minor')).toBe('0.1');
    expect(nextVersion(['1.0', '1.3', '0.9', 'x', null], 'minor')).toBe('1.4');
    expect(nextVersion(['1.0', '10.2', '9.9'], 'major')).toBe('11.0');
  });
});

describe('DELETE /wikis/releases/{releaseid}', () => {
  it('marks the release removed and answers it; removing again is harmless; removed versions are reused', async () => {
    const w = await makeWiki(t, author);
    const r = (await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token })).json();
    const res = await t.del(`/wikis/releases/${r.releaseid}`, { token: admin.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...r, status: 'removed' });
    expect((await t.del(`/wikis/releases/${r.releaseid}`, { token: author.token })).json().status).toBe('removed');
    const row = await t.db.selectFrom('wiki_releases').select('status').where('releaseid', '=', r.releaseid).executeTakeFirstOrThrow();
    expect(row.status).toBe('removed');
    expect((await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token })).json().version).toBe('1.0');
  });

  it('404 unknown, 403 for those who may not edit the wiki, 401, 422 not an integer', async () => {
    const w = await makeWiki(t, author);
    const r = (await t.post(`/wikis/${w.wikiid}/releases?revisionid=${w.revisionid}`, { token: author.token })).json();
    expect((await t.del('/wikis/releases/999999', { token: author.token })).statusCode).toBe(404);
    expect((await t.del(`/wikis/releases/${r.releaseid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del(`/wikis/releases/${r.releaseid}`)).statusCode).toBe(401);
    expect((await t.del('/wikis/releases/abc', { token: author.token })).statusCode).toBe(422);
  });
});
