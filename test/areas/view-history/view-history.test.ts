import { describe, expect, it, vi } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';
import { ViewRecorder, viewRecorder } from '../../../src/areas/view-history/view-history.recorder.js';

const ENTRY_FIELDS = ['userid', 'username', 'doc_type', 'docid', 'date'].sort();

let admin: TestUser;
let moderator: TestUser;
let author: TestUser;
let reader: TestUser;
let wiki: any;
const t = appForFile({}, async () => {
  [admin, moderator, author, reader] = await Promise.all([makeAdmin(t), makeModerator(t), makeAuthor(t), makeUser(t)]);
  wiki = await makeWiki(t, author);
});

describe('recording views', () => {
  it('a logged-in reader\'s view of a wiki is recorded (after the read, in a batch); anonymous reads are not', async () => {
    const w = await makeWiki(t, author);
    await t.get(`/wikis/WIKI/${enc(w.title)}`);
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`, { token: reader.token })).statusCode).toBe(200);
    // Not written by the read itself...
    const recorder = viewRecorder(t.db);
    expect(recorder.pending).toBeGreaterThan(0);
    // ...but the list writes what is pending first.
    const res = await t.get(`/user_view_history/wiki/${w.wikiid}`, { token: moderator.token });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0]).sort()).toEqual(ENTRY_FIELDS);
    expect(list[0]).toEqual({ userid: reader.userid, username: reader.username, doc_type: 'WIKI', docid: String(w.wikiid), date: t.clock.now() });
    const row = await t.db.selectFrom('view_history').selectAll().where('docid', '=', w.wikiid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ userid: reader.userid, doc_type: 'wiki', langid: 'en' });
  });
});

describe('GET /user_view_history/user/{userid}', () => {
  it('the user\'s views, newest first, within start_date and end_date, paginated', async () => {
    const u = await makeUser(t);
    const w2 = await makeWiki(t, author);
    const t0 = t.clock.now();
    await t.get(`/wikis/WIKI/${enc(wiki.title)}`, { token: u.token });
    t.clock.advance(100);
    await t.get(`/wikis/WIKI/${enc(w2.title)}`, { token: u.token });
    t.clock.advance(100);
    await t.get(`/wikis/WIKI/${enc(wiki.title)}`, { token: u.token });
    const get = async (q = '') => {
      const res = await t.get(`/user_view_history/user/${u.userid}${q}`, { token: u.token });
      expect(res.statusCode).toBe(200);
      return res.json().map((e: { docid: string; date: number }) => [e.docid, e.date - t0]);
    };
    expect(await get()).toEqual([[String(wiki.wikiid), 200], [String(w2.wikiid), 100], [String(wiki.wikiid), 0]]);
    expect(await get(`?start_date=${t0 + 100}`)).toEqual([[String(wiki.wikiid), 200], [String(w2.wikiid), 100]]);
    expect(await get(`?end_date=${t0 + 100}`)).toEqual([[String(w2.wikiid), 100], [String(wiki.wikiid), 0]]);
    expect(await get(`?start_date=${t0 + 100}&end_date=${t0 + 100}`)).toEqual([[String(w2.wikiid), 100]]);
    expect(await get('?limit=1&offset=1')).toEqual([[String(w2.wikiid), 100]]);
    // An Admin may read anyone's.
    expect((await t.get(`/user_view_history/user/${u.userid}`, { token: admin.token })).json()).toHaveLength(3);
  });

  it('403 for another user, 401 without a token, 404 unknown user, 422 bad dates', async () => {
    expect((await t.get(`/user_view_history/user/${reader.userid}`, { token: author.token })).statusCode).toBe(403);
    expect((await t.get(`/user_view_history/user/${reader.userid}`, { token: moderator.token })).statusCode).toBe(403);
    expect((await t.get(`/user_view_history/user/${reader.userid}`)).statusCode).toBe(401);
    expect((await t.get('/user_view_history/user/999999', { token: admin.token })).statusCode).toBe(404);
    expect((await t.get(`/user_view_history/user/${reader.userid}?start_date=yesterday`, { token: reader.token })).json().errors[0].field).toBe('start_date');
    expect((await t.get(`/user_view_history/user/${reader.userid}?end_date=-5`, { token: reader.token })).json().errors[0].field).toBe('end_date');
  });
});

describe('GET /user_view_history/{doc_type}/{docid}', () => {
  it('who viewed a wiki, for Moderators and Admins; doc_type in either case', async () => {
    const w = await makeWiki(t, author);
    const [u1, u2] = await Promise.all([makeUser(t), makeUser(t)]);
    await t.get(`/wikis/WIKI/${enc(w.title)}`, { token: u1.token });
    t.clock.advance(5);
    await t.get(`/wikis/WIKI/${enc(w.title)}?langid=en`, { token: u2.token });
    const list = (await t.get(`/user_view_history/WIKI/${w.wikiid}`, { token: admin.token })).json();
    expect(list.map((e: { userid: number }) => e.userid)).toEqual([u2.userid, u1.userid]);
    expect(list.every((e: { doc_type: string }) => e.doc_type === 'WIKI')).toBe(true);
    expect((await t.get(`/user_view_history/wiki/${w.wikiid}?start_date=${t.clock.now()}`, { token: moderator.token })).json()).toHaveLength(1);
  });

  it('403 for Users and Authors, 401, 404 for an unknown document (guides: none yet), 422 for another doc_type', async () => {
    expect((await t.get(`/user_view_history/wiki/${wiki.wikiid}`, { token: reader.token })).statusCode).toBe(403);
    expect((await t.get(`/user_view_history/wiki/${wiki.wikiid}`, { token: author.token })).statusCode).toBe(403);
    expect((await t.get(`/user_view_history/wiki/${wiki.wikiid}`)).statusCode).toBe(401);
    expect((await t.get('/user_view_history/wiki/999999', { token: admin.token })).statusCode).toBe(404);
    expect((await t.get('/user_view_history/guide/999999', { token: admin.token })).statusCode).toBe(404);
    expect((await t.get(`/user_view_history/video/${wiki.wikiid}`, { token: admin.token })).json().errors[0].field).toBe('doc_type');
  });
});

describe('the recorder', () => {
  it('writes a batch within a second, without the reader waiting, and at once when the buffer fills', async () => {
    vi.useFakeTimers();
    try {
      const r = new ViewRecorder(t.db, { maxBuffer: 3 });
      expect(r.flushMs).toBeLessThanOrEqual(1000);
      const count = async () => Number((await t.db.selectFrom('view_history').select((eb) => eb.fn.countAll<number>().as('n')).where('docid', '=', 424242).executeTakeFirstOrThrow()).n);
      r.record({ userid: reader.userid, doc_type: 'wiki', docid: 424242, langid: 'en', date: 1 });
      expect(r.pending).toBe(1);
      expect(await count()).toBe(0);
      await vi.advanceTimersByTimeAsync(r.flushMs);
      await r.flush();
      expect(r.pending).toBe(0);
      expect(await count()).toBe(1);
      for (let i = 0; i < 3; i++) r.record({ userid: reader.userid, doc_type: 'wiki', docid: 424242, langid: 'en', date: 2 });
      expect(r.pending).toBe(0);
      await r.flush();
      expect(await count()).toBe(4);
      await r.close();
      r.record({ userid: reader.userid, doc_type: 'wiki', docid: 424242, langid: 'en', date: 3 });
      expect(r.pending).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a view whose user is gone is dropped, the others of its batch are written', async () => {
    const errors: unknown[] = [];
    const r = new ViewRecorder(t.db, { onError: (e) => errors.push(e) });
    r.record({ userid: reader.userid, doc_type: 'wiki', docid: 434343, langid: 'en', date: 1 });
    r.record({ userid: 99999999, doc_type: 'wiki', docid: 434343, langid: 'en', date: 1 });
    r.record({ userid: author.userid, doc_type: 'wiki', docid: 434343, langid: 'en', date: 1 });
    await r.flush();
    const rows = await t.db.selectFrom('view_history').select('userid').where('docid', '=', 434343).orderBy('viewid').execute();
    expect(rows.map((x) => x.userid)).toEqual([reader.userid, author.userid]);
    expect(errors).toHaveLength(1);
  });

  it('closing the app writes the pending views', async () => {
    const t2 = await buildTestApp();
    try {
      const u = await makeUser(t2);
      const w = await makeWiki(t2, await makeAuthor(t2));
      await t2.get(`/wikis/WIKI/${enc(w.title)}`, { token: u.token });
      expect(viewRecorder(t2.db).pending).toBe(1);
      await t2.app.close();
      const rows = await t2.db.selectFrom('view_history').select(['userid', 'docid']).execute();
      expect(rows).toEqual([{ userid: u.userid, docid: w.wikiid }]);
    } finally {
      await t2.close();
    }
  });
});
