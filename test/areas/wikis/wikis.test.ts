import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { enc, makeCategory, makeComment, makeWiki } from '../../helpers/factories/wikis.js';

// The specification's light wiki record, exactly.
const LIGHT_FIELDS = ['dataType', 'wikiid', 'title', 'display_title', 'namespace', 'summary', 'url', 'text', 'image'].sort();
// The specification's full wiki record fields, then the further ones every namespace has.
const SPEC_FULL = ['wikiid', 'langid', 'url', 'fullUrl', 'editUrl', 'namespace', 'title', 'revisionid', 'contents_raw', 'contents_json'];
const FULL_FIELDS = [...SPEC_FULL, 'contents_rendered', 'display_title', 'description', 'image', 'table_of_contents', 'source_langid', 'translations', 'tags', 'author', 'created_date', 'modified_date', 'can_edit'];
const NAMESPACE_FIELDS: Record<string, string[]> = {
  CATEGORY: ['parent', 'children', 'guides', 'stub', 'identification_raw', 'identification_rendered'],
  ITEM: ['item_type', 'suppliers'],
  TEAM: ['team'],
  USER: ['user'],
  INFO: [],
  WIKI: [],
};
const keysOf = (o: object) => Object.keys(o).sort();
const fullKeys = (ns: string) => [...FULL_FIELDS, ...NAMESPACE_FIELDS[ns]].sort();

let admin: TestUser;
let author: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de', 'fr'] } }, async () => {
  [admin, author, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

describe('POST /wikis', () => {
  it('creates a WIKI page: 201 with the full record, stored with its first revision', async () => {
    const title = unique('Lockout ');
    const res = await t.post('/wikis', { token: author.token, body: { namespace: 'WIKI', title, contents: 'Lock out *every* machine.\n\nThen test.', display_title: 'Lockout procedure', description: 'How to lock out.', table_of_contents: true } });
    expect(res.statusCode).toBe(201);
    const w = res.json();
    expect(keysOf(w)).toEqual(fullKeys('WIKI'));
    expect(w).toMatchObject({
      namespace: 'WIKI', title, display_title: 'Lockout procedure', description: 'How to lock out.', langid: 'en', source_langid: 'en',
      translations: ['en'], tags: [], image: null, table_of_contents: true, created_date: t.clock.now(), modified_date: t.clock.now(), can_edit: true,
      contents_raw: 'Lock out *every* machine.\n\nThen test.',
    });
    expect(w.url).toBe(`http://test.local/api/2.0/wikis/WIKI/${enc(title)}`);
    expect(w.fullUrl).toBe(`${w.url}?langid=en`);
    expect(w.editUrl).toBe(`${w.url}?langid=en&revisionid=${w.revisionid}`);
    expect(w.author).toMatchObject({ userid: author.userid, username: author.username });
    // Rendering goes through the markup module: escaped HTML, one paragraph per block.
    expect(w.contents_rendered).toContain('<p>');
    expect(w.contents_rendered).not.toContain('\n\n');
    expect(w.contents_json).toMatchObject({ type: 'doc' });
    expect(w.contents_json.content).toHaveLength(2);
    const row = await t.db.selectFrom('wikis').selectAll().where('wikiid', '=', w.wikiid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ namespace: 'WIKI', title, revisionid: w.revisionid, userid: author.userid, table_of_contents: 1 });
    const revs = await t.db.selectFrom('wiki_revisions').selectAll().where('wikiid', '=', w.wikiid).execute();
    expect(revs).toHaveLength(1);
    expect(revs[0]).toMatchObject({ revisionid: w.revisionid, action: 'create', langid: 'en', contents_raw: 'Lock out *every* machine.\n\nThen test.' });
  });

  it('escapes HTML in the contents', async () => {
    const w = await makeWiki(t, author, { contents: '<script>alert(1)</script>' });
    expect(w.contents_rendered).not.toContain('<script>');
    expect(w.contents_rendered).toContain('&lt;script&gt;');
  });

  it('takes contents_json instead of contents', async () => {
    const doc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'From a tree.' }] }] };
    const w = await makeWiki(t, author, { contents: undefined, contents_json: doc });
    expect(w.contents_raw).toBe('From a tree.');
  });

  it('422 missing_field for namespace, title and contents', async () => {
    for (const [body, field] of [
      [{ title: 'x', contents: 'y' }, 'namespace'],
      [{ namespace: 'WIKI', contents: 'y' }, 'title'],
      [{ namespace: 'WIKI', title: unique('t') }, 'contents'],
    ] as const) {
      const res = await t.post('/wikis', { token: author.token, body });
      expect(res.statusCode, field).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ field, code: 'missing_field' });
    }
  });

  it('422 for an unknown namespace, a bad title, a field of another namespace, an unknown image or language', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ namespace: 'COURSE', title: 'x', contents: 'y' }, 'namespace', 'invalid_value'],
      [{ namespace: 'WIKI', title: 'a/b', contents: 'y' }, 'title', 'invalid_value'],
      [{ namespace: 'WIKI', title: '   ', contents: 'y' }, 'title', 'invalid_value'],
      [{ namespace: 'WIKI', title: unique('t'), contents: 'y', parent: 'Equipment' }, 'parent', 'invalid_value'],
      [{ namespace: 'CATEGORY', title: unique('t'), contents: 'y', item_type: 'part' }, 'item_type', 'invalid_value'],
      [{ namespace: 'WIKI', title: unique('t'), contents: 'y', image: 999999 }, 'image', 'invalid_value'],
      [{ namespace: 'WIKI', title: unique('t'), contents: 'y', langid: 'it' }, 'langid', 'invalid_value'],
      [{ namespace: 'WIKI', title: unique('t'), contents: 'y', unknown: 1 }, 'unknown', 'invalid_value'],
      [{ namespace: 'ITEM', title: unique('t'), contents: 'y', item_type: 'gadget' }, 'item_type', 'invalid_value'],
    ];
    for (const [body, field, code] of cases) {
      const res = await t.post('/wikis', { token: admin.token, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors[0], JSON.stringify(body)).toMatchObject({ field, code });
    }
  });

  it('422 duplicate for a title the namespace already has; the same title in another namespace is fine', async () => {
    const title = unique('Same ');
    await makeWiki(t, author, { title });
    const res = await t.post('/wikis', { token: author.token, body: { namespace: 'WIKI', title, contents: 'again' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'title', code: 'duplicate' });
    await makeWiki(t, author, { namespace: 'ITEM', title });
  });

  it('401 without a token; 403 for a plain user (WIKI) and for an Author (INFO)', async () => {
    expect((await t.post('/wikis', { body: { namespace: 'WIKI', title: 'x', contents: 'y' } })).statusCode).toBe(401);
    expect((await t.post('/wikis', { token: user.token, body: { namespace: 'WIKI', title: unique('x'), contents: 'y' } })).statusCode).toBe(403);
    expect((await t.post('/wikis', { token: author.token, body: { namespace: 'INFO', title: unique('x'), contents: 'y' } })).statusCode).toBe(403);
    const info = await makeWiki(t, admin, { namespace: 'INFO', title: unique('Info ') });
    expect(keysOf(info)).toEqual(fullKeys('INFO'));
  });

  it('ITEM wikis carry item_type and suppliers', async () => {
    const suppliers = [{ name: 'Seals Inc.', url: 'https://seals.example', price: '1.20', currency: 'EUR', sku: 'OR-1' }];
    const w = await makeWiki(t, author, { namespace: 'ITEM', title: unique('O-Ring '), item_type: 'part', suppliers });
    expect(keysOf(w)).toEqual(fullKeys('ITEM'));
    expect(w).toMatchObject({ item_type: 'part', suppliers });
    const tool = await makeWiki(t, author, { namespace: 'ITEM', title: unique('Wrench '), item_type: 'tool' });
    expect(tool).toMatchObject({ item_type: 'tool', suppliers: [] });
    const bad = await t.post('/wikis', { token: author.token, body: { namespace: 'ITEM', title: unique('x'), contents: 'y', suppliers: [{ url: null, price: null, currency: null, sku: null }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ field: 'suppliers[0].name', code: 'missing_field', index: 0 });
  });

  it('TEAM wikis: the title is an existing teamid, written by the team\'s leads; shown with the team\'s name', async () => {
    const lead = await makeUser(t);
    const member = await makeUser(t);
    const team = await makeTeam(t, lead, [{ user: member }]);
    expect((await t.post('/wikis', { token: member.token, body: { namespace: 'TEAM', title: String(team.teamid), contents: 'x' } })).statusCode).toBe(403);
    const bad = await t.post('/wikis', { token: admin.token, body: { namespace: 'TEAM', title: 'crew', contents: 'x' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('title');
    expect((await t.post('/wikis', { token: admin.token, body: { namespace: 'TEAM', title: '999999', contents: 'x' } })).statusCode).toBe(422);
    const w = await makeWiki(t, lead, { namespace: 'TEAM', title: String(team.teamid), contents: 'We fix things.' });
    expect(keysOf(w)).toEqual(fullKeys('TEAM'));
    expect(w.display_title).toBe(team.name);
    expect(w.team).toMatchObject({ teamid: team.teamid, name: team.name });
  });

  it('USER wikis: the title is the userid, written by that user', async () => {
    const me = await makeUser(t);
    expect((await t.post('/wikis', { token: user.token, body: { namespace: 'USER', title: String(me.userid), contents: 'x' } })).statusCode).toBe(403);
    const w = await makeWiki(t, me, { namespace: 'USER', title: String(me.userid), contents: 'About me.' });
    expect(keysOf(w)).toEqual(fullKeys('USER'));
    expect(w.display_title).toBe(me.username);
    expect(w.user).toMatchObject({ userid: me.userid, username: me.username });
  });
});

describe('GET /wikis/{namespace}/{title}', () => {
  it('answers the wiki to anyone, can_edit for the caller', async () => {
    const w = await makeWiki(t, author);
    const anon = await t.get(`/wikis/WIKI/${enc(w.title)}`);
    expect(anon.statusCode).toBe(200);
    expect(anon.json()).toMatchObject({ wikiid: w.wikiid, can_edit: false, revisionid: w.revisionid });
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`, { token: author.token })).json().can_edit).toBe(true);
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`, { token: user.token })).json().can_edit).toBe(false);
  });

  it('404 for an unknown title or the wrong namespace; 422 for an unknown namespace', async () => {
    const w = await makeWiki(t, author);
    expect((await t.get(`/wikis/WIKI/${enc(unique('nope'))}`)).statusCode).toBe(404);
    expect((await t.get(`/wikis/ITEM/${enc(w.title)}`)).statusCode).toBe(404);
    expect((await t.get(`/wikis/NOPE/${enc(w.title)}`)).statusCode).toBe(422);
  });

  it('?revisionid= shows an earlier revision; 404 for a revision of another wiki', async () => {
    const w = await makeWiki(t, author, { contents: 'first' });
    const edited = (await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'second' } })).json();
    const old = await t.get(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ revisionid: w.revisionid, contents_raw: 'first' });
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`)).json()).toMatchObject({ revisionid: edited.revisionid, contents_raw: 'second' });
    const other = await makeWiki(t, author);
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}?revisionid=${other.revisionid}`)).statusCode).toBe(404);
  });
});

describe('PATCH /wikis/{namespace}/{title}', () => {
  it('changes only the fields sent, keeps a revision, answers the new record', async () => {
    const w = await makeWiki(t, author, { contents: 'old', description: 'keep me' });
    t.clock.advance(60);
    const res = await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'new', display_title: 'Shown' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ contents_raw: 'new', display_title: 'Shown', description: 'keep me', title: w.title, modified_date: t.clock.now(), created_date: w.created_date });
    expect(body.revisionid).toBeGreaterThan(w.revisionid);
    const revs = await t.db.selectFrom('wiki_revisions').select(['revisionid', 'action', 'contents_raw']).where('wikiid', '=', w.wikiid).orderBy('revisionid').execute();
    expect(revs.map((r) => [r.action, r.contents_raw])).toEqual([['create', 'old'], ['edit', 'new']]);
  });

  it('422 missing_field without revisionid; 409 with the current wiki for a stale one', async () => {
    const w = await makeWiki(t, author);
    const missing = await t.patch(`/wikis/WIKI/${enc(w.title)}`, { token: author.token, body: { contents: 'x' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const ok = (await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'first edit' } })).json();
    const stale = await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'lost edit' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ wikiid: w.wikiid, revisionid: ok.revisionid, contents_raw: 'first edit' });
    expect(keysOf(stale.json())).toEqual(fullKeys('WIKI'));
  });

  it('of two racing edits with the same revisionid exactly one wins', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`;
    const results = await Promise.all([
      t.patch(path, { token: author.token, body: { contents: 'A' } }),
      t.patch(path, { token: admin.token, body: { contents: 'B' } }),
      t.patch(path, { token: author.token, body: { contents: 'C' } }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
    const winner = results.find((r) => r.statusCode === 200)!.json();
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`)).json()).toMatchObject({ revisionid: winner.revisionid, contents_raw: winner.contents_raw });
    expect(await t.db.selectFrom('wiki_revisions').select('revisionid').where('wikiid', '=', w.wikiid).execute()).toHaveLength(2);
  });

  it('401, 403, 404, and 422 for the title or a field of another namespace', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`;
    expect((await t.patch(path, { body: { contents: 'x' } })).statusCode).toBe(401);
    expect((await t.patch(path, { token: user.token, body: { contents: 'x' } })).statusCode).toBe(403);
    expect((await t.patch(`/wikis/WIKI/${enc(unique('nope'))}?revisionid=1`, { token: author.token, body: { contents: 'x' } })).statusCode).toBe(404);
    const title = await t.patch(path, { token: author.token, body: { title: 'renamed' } });
    expect(title.statusCode).toBe(422);
    expect(title.json().errors[0].field).toBe('title');
    const item = await t.patch(path, { token: author.token, body: { suppliers: [] } });
    expect(item.statusCode).toBe(422);
    expect(item.json().errors[0]).toMatchObject({ field: 'suppliers', code: 'invalid_value' });
  });

  it('edits ITEM fields, the image and the stub flag', async () => {
    const img = await t.db.insertInto('images').values({ guid: unique('g'), userid: author.userid, width: 800, height: 600, mime: 'image/jpeg', created_date: 1 }).returning('imageid').executeTakeFirstOrThrow();
    const w = await makeWiki(t, author, { namespace: 'ITEM', title: unique('Belt '), item_type: 'part' });
    const res = await t.patch(`/wikis/ITEM/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { item_type: 'tool', suppliers: [{ name: 'S', url: null, price: null, currency: null, sku: null }], image: img.imageid } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ item_type: 'tool', suppliers: [{ name: 'S' }], image: { id: img.imageid } });
    const removed = await t.patch(`/wikis/ITEM/${enc(w.title)}?revisionid=${res.json().revisionid}`, { token: author.token, body: { image: null } });
    expect(removed.json().image).toBeNull();
  });
});

describe('translations', () => {
  it('the first edit in a site language creates the translation; GET in that language answers it, other languages the source', async () => {
    const w = await makeWiki(t, author, { contents: 'Hello', display_title: 'Greeting', description: 'en summary' });
    // Before any translation, German readers get the source, and its revisionid.
    const before = (await t.get(`/wikis/WIKI/${enc(w.title)}?langid=de`)).json();
    expect(before).toMatchObject({ langid: 'en', revisionid: w.revisionid });
    const res = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${before.revisionid}`, { token: author.token, body: { contents: 'Hallo', display_title: 'Gruß' } });
    expect(res.statusCode).toBe(200);
    const de = res.json();
    expect(de).toMatchObject({ langid: 'de', contents_raw: 'Hallo', display_title: 'Gruß', description: 'en summary', source_langid: 'en', translations: ['en', 'de'] });
    expect(de.revisionid).toBeGreaterThan(w.revisionid);
    expect(de.editUrl).toContain(`langid=de&revisionid=${de.revisionid}`);
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}?langid=de`)).json()).toMatchObject({ langid: 'de', contents_raw: 'Hallo' });
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}?langid=fr`)).json()).toMatchObject({ langid: 'en', contents_raw: 'Hello' });
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`)).json()).toMatchObject({ langid: 'en', contents_raw: 'Hello', revisionid: w.revisionid });
    // The translation has its own revisions.
    const stale = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'x' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ langid: 'de', revisionid: de.revisionid });
    const again = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${de.revisionid}`, { token: author.token, body: { description: 'de summary' } });
    expect(again.json()).toMatchObject({ langid: 'de', description: 'de summary', contents_raw: 'Hallo' });
    // Light records in German.
    const list = (await t.get(`/wikis/WIKI?langid=de&limit=200`)).json();
    expect(list.find((l: { wikiid: number }) => l.wikiid === w.wikiid)).toMatchObject({ display_title: 'Gruß', summary: 'de summary', text: 'Hallo' });
  });

  it('a translation takes only texts; a language outside the site is refused', async () => {
    const w = await makeWiki(t, author);
    const img = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'x', table_of_contents: true } });
    expect(img.statusCode).toBe(422);
    expect(img.json().errors[0]).toMatchObject({ field: 'table_of_contents', code: 'invalid_value' });
    const it_ = await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=it&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'x' } });
    expect(it_.statusCode).toBe(422);
    expect(it_.json().errors[0].field).toBe('langid');
  });

  it('DELETE with a translation\'s langid removes only that translation', async () => {
    const w = await makeWiki(t, author);
    const de = (await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Deutsch' } })).json();
    expect((await t.del(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token })).statusCode).toBe(409);
    expect((await t.del(`/wikis/WIKI/${enc(w.title)}?langid=fr&revisionid=${w.revisionid}`, { token: author.token })).statusCode).toBe(404);
    const res = await t.del(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${de.revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(204);
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}?langid=de`)).json()).toMatchObject({ langid: 'en', translations: ['en'] });
  });
});

describe('POST /wikis/{namespace}/{title}/revert', () => {
  it('makes an earlier revision current again as a new revision, keeping the history', async () => {
    const w = await makeWiki(t, author, { contents: 'v1', description: 'd1' });
    const v2 = (await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'v2', description: 'd2', table_of_contents: true } })).json();
    const res = await t.post(`/wikis/WIKI/${enc(w.title)}/revert?revisionid=${v2.revisionid}`, { token: author.token, body: { target_revisionid: w.revisionid } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ contents_raw: 'v1', description: 'd1', table_of_contents: false });
    expect(body.revisionid).toBeGreaterThan(v2.revisionid);
    const list = (await t.get(`/wikis/WIKI/${enc(w.title)}/revisions`)).json();
    expect(list.map((r: { action: string }) => r.action)).toEqual(['revert', 'edit', 'create']);
    expect(list[0]).toMatchObject({ revisionid: body.revisionid, langid: 'en', user: { userid: author.userid }, date: t.clock.now() });
  });

  it('reverts a translation within its language', async () => {
    const w = await makeWiki(t, author);
    const de1 = (await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'eins' } })).json();
    const de2 = (await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${de1.revisionid}`, { token: author.token, body: { contents: 'zwei' } })).json();
    const res = await t.post(`/wikis/WIKI/${enc(w.title)}/revert?langid=de&revisionid=${de2.revisionid}`, { token: author.token, body: { target_revisionid: de1.revisionid } });
    expect(res.json()).toMatchObject({ langid: 'de', contents_raw: 'eins' });
    // A revision of the source language is not a German revision.
    const wrong = await t.post(`/wikis/WIKI/${enc(w.title)}/revert?langid=de&revisionid=${res.json().revisionid}`, { token: author.token, body: { target_revisionid: w.revisionid } });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].field).toBe('target_revisionid');
  });

  it('409 stale, 422 missing revisionid or target, 422 a revision of another wiki, 403, 401, 404', async () => {
    const w = await makeWiki(t, author);
    const other = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}/revert`;
    const v2 = (await t.patch(`/wikis/WIKI/${enc(w.title)}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'v2' } })).json();
    expect((await t.post(`${path}?revisionid=${w.revisionid}`, { token: author.token, body: { target_revisionid: w.revisionid } })).statusCode).toBe(409);
    expect((await t.post(path, { token: author.token, body: { target_revisionid: w.revisionid } })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect((await t.post(`${path}?revisionid=${v2.revisionid}`, { token: author.token, body: {} })).json().errors[0]).toMatchObject({ field: 'target_revisionid', code: 'missing_field' });
    expect((await t.post(`${path}?revisionid=${v2.revisionid}`, { token: author.token, body: { target_revisionid: other.revisionid } })).statusCode).toBe(422);
    expect((await t.post(`${path}?revisionid=${v2.revisionid}`, { token: user.token, body: { target_revisionid: w.revisionid } })).statusCode).toBe(403);
    expect((await t.post(`${path}?revisionid=${v2.revisionid}`, { body: { target_revisionid: w.revisionid } })).statusCode).toBe(401);
    expect((await t.post(`/wikis/WIKI/${enc(unique('no'))}/revert?revisionid=1`, { token: author.token, body: { target_revisionid: 1 } })).statusCode).toBe(404);
  });
});

describe('DELETE /wikis/{namespace}/{title}', () => {
  it('204; the wiki, its tags and comments go, its revisions stay', async () => {
    const w = await makeWiki(t, author);
    const tagged = await t.put(`/wikis/WIKI/${enc(w.title)}/tag?revisionid=${w.revisionid}`, { token: author.token, body: { tag: 'doomed' } });
    expect(tagged.json().tags).toEqual(['doomed']);
    await makeComment(t, user, 'wiki', w.wikiid);
    const res = await t.del(`/wikis/WIKI/${enc(w.title)}?revisionid=${tagged.json().revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.get(`/wikis/WIKI/${enc(w.title)}`)).statusCode).toBe(404);
    expect(await t.db.selectFrom('doc_tags').select('tagid').where('doctype', '=', 'wiki').where('docid', '=', w.wikiid).execute()).toEqual([]);
    expect(await t.db.selectFrom('comments').select('commentid').where('context', '=', 'wiki').where('contextid', '=', w.wikiid).execute()).toEqual([]);
    expect(await t.db.selectFrom('wiki_revisions').select('action').where('wikiid', '=', w.wikiid).orderBy('revisionid').execute()).toEqual([{ action: 'create' }, { action: 'tag' }]);
  });

  it('422 missing revisionid, 409 stale (the wiki stays), 403, 401, 404', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    expect((await t.del(path, { token: author.token })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    const stale = await t.del(`${path}?revisionid=${w.revisionid + 1000}`, { token: author.token });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().wikiid).toBe(w.wikiid);
    expect((await t.del(`${path}?revisionid=${w.revisionid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del(`${path}?revisionid=${w.revisionid}`)).statusCode).toBe(401);
    expect((await t.del(`/wikis/WIKI/${enc(unique('no'))}?revisionid=1`, { token: author.token })).statusCode).toBe(404);
    expect((await t.get(path)).statusCode).toBe(200);
  });

  it('refuses a category with child categories', async () => {
    const parent = await makeCategory(t, author);
    await makeCategory(t, author, unique('Child '), { parent: parent.title });
    const res = await t.del(`/wikis/CATEGORY/${enc(parent.title)}?revisionid=${parent.revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].code).toBe('not_empty');
  });
});

describe('GET /wikis/{namespace}', () => {
  it('light records of the namespace, ordered by wikiid, paginated, modifiedSince', async () => {
    t.clock.advance(1000);
    const since = t.clock.now();
    const a = await makeWiki(t, author, { namespace: 'ITEM', title: unique('Z item '), contents: "Use '''carefully''': [link|/Guide/1|the guide].", description: 'An item' });
    const b = await makeWiki(t, author, { namespace: 'ITEM', title: unique('A item ') });
    const res = await t.get(`/wikis/ITEM?modifiedSince=${since}`);
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((l: { wikiid: number }) => l.wikiid)).toEqual([a.wikiid, b.wikiid]);
    expect(keysOf(list[0])).toEqual(LIGHT_FIELDS);
    expect(list[0]).toEqual({ dataType: 'wiki', wikiid: a.wikiid, title: a.title, display_title: a.title, namespace: 'ITEM', summary: 'An item', url: a.url, text: 'Use carefully: the guide.', image: null });
    expect((await t.get(`/wikis/ITEM?modifiedSince=${since}&limit=1&offset=1`)).json().map((l: { wikiid: number }) => l.wikiid)).toEqual([b.wikiid]);
    expect((await t.get(`/wikis/ITEM?modifiedSince=${t.clock.now() + 1}`)).json()).toEqual([]);
    const all = (await t.get('/wikis/ITEM?limit=200')).json();
    expect(all.every((l: { namespace: string }) => l.namespace === 'ITEM')).toBe(true);
  });

  it('display=titles answers the titles alphabetically', async () => {
    const res = await t.get('/wikis/ITEM?display=titles&limit=200');
    expect(res.statusCode).toBe(200);
    const titles = res.json();
    expect(titles.length).toBeGreaterThan(1);
    expect(titles.every((x: unknown) => typeof x === 'string')).toBe(true);
    expect([...titles].sort()).toEqual(titles);
  });

  it('422 for an unknown namespace or display, hierarchy outside CATEGORY, bad limit', async () => {
    expect((await t.get('/wikis/COURSE')).statusCode).toBe(422);
    expect((await t.get('/wikis/WIKI?display=tree')).json().errors[0].field).toBe('display');
    expect((await t.get('/wikis/WIKI?display=hierarchy')).json().errors[0].field).toBe('display');
    expect((await t.get('/wikis/WIKI?limit=201')).json().errors[0]).toMatchObject({ field: 'limit', code: 'out_of_range' });
  });
});
