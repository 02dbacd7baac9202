import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeTeam, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeComment, makePost, makeWiki } from '../../helpers/factories/wikis.js';

// The specification's Comment: top-level ones carry media and replies; replies neither.
const REPLY_FIELDS = ['commentid', 'locale', 'context', 'contextid', 'parentid', 'title', 'text_raw', 'text_rendered', 'date', 'modified_date', 'status', 'status_reason', 'author'].sort();
const COMMENT_FIELDS = [...REPLY_FIELDS, 'media', 'replies'].sort();
const AUTHOR_FIELDS = ['userid', 'username', 'join_date', 'image', 'teams', 'reputation'].sort();
const keysOf = (o: object) => Object.keys(o).sort();

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
let other: TestUser;
let wiki: any;
let info: any;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [admin, author, moderator, user, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeModerator(t), makeUser(t), makeUser(t)]);
  wiki = await makeWiki(t, author, { display_title: 'Pump care' });
  info = await makeWiki(t, admin, { namespace: 'INFO', title: unique('About ') });
});

describe('POST /comments/{context}/{contextid}', () => {
  it('comments on a wiki: 201 with the comment record, stored', async () => {
    const res = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'Is the *seal* included?' } });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(keysOf(c)).toEqual(COMMENT_FIELDS);
    expect(keysOf(c.author)).toEqual(AUTHOR_FIELDS);
    expect(c).toMatchObject({
      locale: 'en', context: 'wiki', contextid: wiki.wikiid, parentid: null, title: 'Pump care', text_raw: 'Is the *seal* included?',
      date: t.clock.now(), modified_date: 0, status: 'open', status_reason: 'manual', media: [], replies: [],
      author: { userid: user.userid, username: user.username, teams: [], image: null },
    });
    expect(c.text_rendered).toContain('<p>');
    const row = await t.db.selectFrom('comments').selectAll().where('commentid', '=', c.commentid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ context: 'wiki', contextid: wiki.wikiid, userid: user.userid, langid: 'en', parentid: null, text_raw: 'Is the *seal* included?' });
  });

  it('the author carries every team, ascending, an avatar and reputation; a team joined since shows at the next read', async () => {
    const member = await makeUser(t);
    const teams = [];
    for (let i = 0; i < 11; i++) teams.push(await makeTeam(t, admin));
    const ids = teams.map((x) => x.teamid).sort((a, b) => a - b);
    // Joined newest team first: the record orders by teamid, not by when (numbers, not text).
    for (const teamid of [...ids.slice(1)].reverse()) await t.db.insertInto('team_members').values({ teamid, userid: member.userid, is_lead: 0, join_date: t.clock.now() }).execute();
    const avatar = await t.db.insertInto('images').values({ guid: unique('avatar'), userid: member.userid, width: 64, height: 64, mime: 'image/png', created_date: 1 }).returning('imageid').executeTakeFirstOrThrow();
    await t.db.updateTable('users').set({ imageid: avatar.imageid, reputation: 7 }).where('userid', '=', member.userid).execute();
    const c = await makeComment(t, member, 'wiki', wiki.wikiid, { text: 'Which torque for the flange?' });
    expect(c.author.teams).toEqual(ids.slice(1));
    expect(c.author).toMatchObject({ userid: member.userid, username: member.username, reputation: 7, image: { id: avatar.imageid } });
    // The new comment's author (read by its insert) is the author every later read shows.
    expect((await t.get(`/comments/${c.commentid}`)).json().author).toEqual(c.author);
    await t.db.insertInto('team_members').values({ teamid: ids[0], userid: member.userid, is_lead: 0, join_date: t.clock.now() }).execute();
    expect((await t.get(`/comments/${c.commentid}`)).json().author.teams).toEqual(ids);
    const other = await makeComment(t, user, 'wiki', wiki.wikiid, { text: 'No teams here at all.' });
    expect(other.author.teams).toEqual([]);
  });

  it('trims the text and escapes HTML', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid, { text: '  <b>bold</b> claim  ' });
    expect(c.text_raw).toBe('<b>bold</b> claim');
    expect(c.text_rendered).not.toContain('<b>');
  });

  it('takes langid or langId (site languages only); default the document\'s language', async () => {
    expect((await makeComment(t, user, 'wiki', wiki.wikiid, { langid: 'de' })).locale).toBe('de');
    expect((await makeComment(t, user, 'wiki', wiki.wikiid, { langId: 'de' })).locale).toBe('de');
    const bad = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'hello there', langId: 'it' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('langId');
  });

  it('INFO pages take the info context, other wikis the wiki context', async () => {
    expect((await makeComment(t, user, 'info', info.wikiid)).context).toBe('info');
    expect((await t.post(`/comments/wiki/${info.wikiid}`, { token: user.token, body: { text: 'hello there' } })).statusCode).toBe(404);
    expect((await t.post(`/comments/info/${wiki.wikiid}`, { token: user.token, body: { text: 'hello there' } })).statusCode).toBe(404);
  });

  it('404 for an unknown document; 422 for an unknown context or a non-integer id; 401 without a token', async () => {
    expect((await t.post('/comments/wiki/999999', { token: user.token, body: { text: 'hello there' } })).json()).toMatchObject({ code: 'not_found', message: 'Wiki not found.' });
    expect((await t.post('/comments/post/999999', { token: user.token, body: { text: 'hello there' } })).statusCode).toBe(404);
    expect((await t.post('/comments/guide/999999', { token: user.token, body: { text: 'hello there' } })).statusCode).toBe(404);
    expect((await t.post('/comments/step/999999', { token: user.token, body: { text: 'hello there' } })).statusCode).toBe(404);
    expect((await t.post(`/comments/video/${wiki.wikiid}`, { token: user.token, body: { text: 'hello there' } })).json().errors[0].field).toBe('context');
    expect((await t.post('/comments/wiki/abc', { token: user.token, body: { text: 'hello there' } })).json().errors[0].field).toBe('contextid');
    expect((await t.post(`/comments/wiki/${wiki.wikiid}`, { body: { text: 'hello there' } })).statusCode).toBe(401);
  });

  it('422 missing_field without text, out_of_range past 10000 characters (no public registration)', async () => {
    expect((await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: {} })).json().errors[0]).toMatchObject({ field: 'text', code: 'missing_field' });
    expect((await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: '   ' } })).json().errors[0]).toMatchObject({ field: 'text', code: 'missing_field' });
    expect((await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'x'.repeat(10001) } })).json().errors[0]).toMatchObject({ field: 'text', code: 'out_of_range' });
    expect((await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'ok' } })).statusCode).toBe(201);
  });

  it('attaches images and videos to top-level comments', async () => {
    const img = await t.db.insertInto('images').values({ guid: unique('img'), userid: user.userid, width: 640, height: 480, mime: 'image/png', created_date: 1 }).returning('imageid').executeTakeFirstOrThrow();
    const vid = await t.db.insertInto('videos').values({ guid: unique('vid'), userid: user.userid, filename: 'clip.mp4', created_date: 1 }).returning('videoid').executeTakeFirstOrThrow();
    const c = await makeComment(t, user, 'wiki', wiki.wikiid, { media: [{ type: 'image', id: img.imageid }, { type: 'video', id: vid.videoid }] });
    expect(c.media).toHaveLength(2);
    expect(c.media[0]).toMatchObject({ image: { id: img.imageid }, width: 640, height: 480, ratio: 'FOUR_THREE' });
    expect(c.media[1]).toMatchObject({ videoid: vid.videoid, filename: 'clip.mp4' });
    const bad = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'look at this', media: [{ type: 'image', id: img.imageid }, { type: 'image', id: 999999 }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ field: 'media[1].id', index: 1 });
    expect(await t.db.selectFrom('comments').select('commentid').where('text_raw', '=', 'look at this').execute()).toEqual([]);
  });

  it('answers the comment as written, as GET /comments/{id} then reads it (with media, and as a reply), reading nothing back', async () => {
    const img = await t.db.insertInto('images').values({ guid: unique('img'), userid: user.userid, width: 640, height: 480, mime: 'image/png', created_date: 1 }).returning('imageid').executeTakeFirstOrThrow();
    const sql: string[] = [];
    t.app.dbHandle.setQueryListener!((e) => { sql.push(e.query.sql); });
    let top: any;
    try {
      top = await makeComment(t, user, 'wiki', wiki.wikiid, { text: 'See [b]this[/b]', media: [{ type: 'image', id: img.imageid }] });
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(sql.filter((q) => /^select .* from "comments"/.test(q) || /from "comment_media"/.test(q))).toEqual([]);
    // The transaction: begin, the comment (returning its row), its media, commit.
    expect(sql.slice(sql.findIndex((q) => /^begin/i.test(q)), sql.findIndex((q) => /^commit/i.test(q)) + 1)).toHaveLength(4);
    expect(top.media).toHaveLength(1);
    expect((await t.get(`/comments/${top.commentid}`)).json()).toEqual(top);
    const reply = await makeComment(t, author, 'wiki', wiki.wikiid, { parentid: top.commentid, text: 'An answer' });
    expect((await t.get(`/comments/${reply.commentid}`)).json()).toEqual(reply);
  });
  it('comments posted at once (committed together on SQLite): each answered with its own row and author, all stored and searchable', async () => {
    const posters = [user, other, author, moderator, admin, user, other, author];
    const texts = posters.map((_, i) => `Posted at once, number ${i} of the burst`);
    const answers = await Promise.all(posters.map((p, i) => t.post(`/comments/wiki/${wiki.wikiid}`, { token: p.token, body: { text: texts[i] } })));
    expect(answers.map((r) => r.statusCode)).toEqual(posters.map(() => 201));
    const comments = answers.map((r) => r.json());
    expect(comments.map((c) => c.text_raw)).toEqual(texts);
    expect(comments.map((c) => c.author.userid)).toEqual(posters.map((p) => p.userid));
    expect(new Set(comments.map((c) => c.commentid)).size).toBe(posters.length);
    const ids = comments.map((c) => c.commentid);
    const rows = await t.db.selectFrom('comments').select(['commentid', 'userid', 'text_raw']).where('commentid', 'in', ids).orderBy('commentid').execute();
    expect(rows).toEqual(comments.map((c) => ({ commentid: c.commentid, userid: c.author.userid, text_raw: c.text_raw })).sort((a, b) => a.commentid - b.commentid));
    const docs = await t.db.selectFrom('search_docs').select('docid').where('kind', '=', 'comment').where('docid', 'in', ids).execute();
    expect(docs).toHaveLength(posters.length);
  });
});

describe('replies', () => {
  it('reply through parentid: one level, with an author and no media; the parent lists its replies in order', async () => {
    const parent = await makeComment(t, user, 'wiki', wiki.wikiid, { langid: 'de' });
    const r1 = await makeComment(t, author, 'wiki', wiki.wikiid, { parentid: parent.commentid, text: 'First answer' });
    const r2 = await makeComment(t, moderator, 'wiki', wiki.wikiid, { parentid: parent.commentid, text: 'Second answer' });
    expect(keysOf(r1)).toEqual(REPLY_FIELDS);
    expect(r1).toMatchObject({ parentid: parent.commentid, locale: 'de', title: parent.title, author: { userid: author.userid } });
    const got = (await t.get(`/comments/${parent.commentid}`)).json();
    expect(got.replies.map((r: { commentid: number }) => r.commentid)).toEqual([r1.commentid, r2.commentid]);
    expect(keysOf(got.replies[0])).toEqual(REPLY_FIELDS);
    expect(keysOf(got.replies[0].author)).toEqual(AUTHOR_FIELDS);
    expect(keysOf((await t.get(`/comments/${r1.commentid}`)).json())).toEqual(REPLY_FIELDS);
  });

  it('422: a reply to a reply, to a comment on another document, to an unknown comment, or with media', async () => {
    const parent = await makeComment(t, user, 'wiki', wiki.wikiid);
    const reply = await makeComment(t, author, 'wiki', wiki.wikiid, { parentid: parent.commentid });
    const elsewhere = await makeComment(t, user, 'info', info.wikiid);
    for (const [parentid, extra] of [[reply.commentid, {}], [elsewhere.commentid, {}], [999999, {}], [parent.commentid, { media: [{ type: 'image', id: 1 }] }]] as const) {
      const res = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'nested reply', parentid, ...extra } });
      expect(res.statusCode, String(parentid)).toBe(422);
      expect(['parentid', 'media']).toContain(res.json().errors[0].field);
    }
  });
});

describe('GET /comments and GET /comments/{commentid}', () => {
  let lt: TestApp;
  let u: TestUser;
  let w1: any;
  let ids: number[];
  beforeAll(async () => {
    lt = await buildTestApp({ config: { languages: ['en', 'de'] } });
    u = await makeUser(lt);
    const a = await makeAuthor(lt);
    w1 = await makeWiki(lt, a);
    const i1 = await makeWiki(lt, await makeAdmin(lt), { namespace: 'INFO', title: 'About' });
    const c1 = await makeComment(lt, u, 'wiki', w1.wikiid);
    lt.clock.advance(100);
    const c2 = await makeComment(lt, u, 'info', i1.wikiid, { langid: 'de' });
    lt.clock.advance(100);
    const c3 = await makeComment(lt, u, 'wiki', w1.wikiid);
    await makeComment(lt, a, 'wiki', w1.wikiid, { parentid: c1.commentid });
    ids = [c1.commentid, c2.commentid, c3.commentid];
  });
  afterAll(() => lt.close());

  it('lists top-level comments (replies inside them) by commentid, ASC or DESC, paginated', async () => {
    const res = await lt.get('/comments');
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((c: { commentid: number }) => c.commentid)).toEqual(ids);
    expect(list[0].replies).toHaveLength(1);
    expect(keysOf(list[0])).toEqual(COMMENT_FIELDS);
    expect((await lt.get('/comments?order=DESC')).json().map((c: { commentid: number }) => c.commentid)).toEqual([...ids].reverse());
    expect((await lt.get('/comments?limit=1&offset=1')).json().map((c: { commentid: number }) => c.commentid)).toEqual([ids[1]]);
  });

  it('filters by context, langid, createdSince and modifiedSince (activity anywhere in the thread)', async () => {
    // The reply to the first thread was created at start + 200: createdSince finds that thread too.
    const get = async (q: string) => (await lt.get(`/comments?${q}`)).json().map((c: { commentid: number }) => c.commentid);
    expect(await get('context=info')).toEqual([ids[1]]);
    expect(await get('context=wiki')).toEqual([ids[0], ids[2]]);
    expect(await get('langid=de')).toEqual([ids[1]]);
    const start = 1_800_000_000;
    expect(await get(`createdSince=${start + 100}`)).toEqual([ids[0], ids[1], ids[2]]);
    expect(await get(`createdSince=${start + 200}`)).toEqual([ids[0], ids[2]]);
    expect(await get(`createdSince=${start + 201}`)).toEqual([]);
    // Editing the reply of the first thread makes that thread modified since.
    lt.clock.advance(1000);
    const since = lt.clock.now();
    expect(await get(`modifiedSince=${since}`)).toEqual([]);
    const reply = (await lt.get(`/comments/${ids[0]}`)).json().replies[0];
    const editor = await makeAdmin(lt);
    expect((await lt.patch(`/comments/${reply.commentid}`, { token: editor.token, body: { text: 'edited reply' } })).statusCode).toBe(200);
    expect(await get(`modifiedSince=${since}`)).toEqual([ids[0]]);
    expect(await get(`modifiedSince=${since}&context=info`)).toEqual([]);
    // Editing is no creation: createdSince does not find the edited thread...
    expect(await get(`createdSince=${since}`)).toEqual([]);
    // ...a new reply is: its thread comes back whole, the old comment with both replies.
    lt.clock.advance(10);
    const replied = lt.clock.now();
    const thread = (await lt.get(`/comments/${ids[1]}`)).json();
    await makeComment(lt, u, 'info', thread.contextid, { parentid: ids[1] });
    const found = (await lt.get(`/comments?createdSince=${replied}`)).json();
    expect(found.map((c: { commentid: number }) => c.commentid)).toEqual([ids[1]]);
    expect(found[0].replies).toHaveLength(1);
    expect(await get(`createdSince=${replied}&context=wiki`)).toEqual([]);
  });

  it('422 for an unknown context or order, a bad limit or a negative timestamp', async () => {
    for (const [q, field] of [['context=video', 'context'], ['order=UP', 'order'], ['limit=0', 'limit'], ['createdSince=-1', 'createdSince']]) {
      const res = await lt.get(`/comments?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });

  it('GET one: 200, 404 unknown, 422 not an integer', async () => {
    expect((await lt.get(`/comments/${ids[1]}`)).json()).toMatchObject({ commentid: ids[1], context: 'info', locale: 'de' });
    expect((await lt.get('/comments/999999')).statusCode).toBe(404);
    expect((await lt.get('/comments/abc')).statusCode).toBe(422);
  });
});

describe('PATCH /comments/{commentid}', () => {
  it('the author edits the text; modified_date is set', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid);
    t.clock.advance(30);
    const res = await t.patch(`/comments/${c.commentid}`, { token: user.token, body: { text: 'Better words' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ commentid: c.commentid, text_raw: 'Better words', modified_date: t.clock.now(), date: c.date });
    expect((await t.db.selectFrom('comments').select('text_raw').where('commentid', '=', c.commentid).executeTakeFirstOrThrow()).text_raw).toBe('Better words');
  });

  it('Moderators and Admins edit anyone\'s; another user may not (403); 401; 404; 422', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid);
    expect((await t.patch(`/comments/${c.commentid}`, { token: moderator.token, body: { text: 'moderated' } })).statusCode).toBe(200);
    expect((await t.patch(`/comments/${c.commentid}`, { token: admin.token, body: { text: 'administered' } })).statusCode).toBe(200);
    expect((await t.patch(`/comments/${c.commentid}`, { token: other.token, body: { text: 'hijacked' } })).statusCode).toBe(403);
    expect((await t.patch(`/comments/${c.commentid}`, { token: author.token, body: { text: 'hijacked' } })).statusCode).toBe(403);
    expect((await t.patch(`/comments/${c.commentid}`, { body: { text: 'anon' } })).statusCode).toBe(401);
    expect((await t.patch('/comments/999999', { token: admin.token, body: { text: 'nothing' } })).statusCode).toBe(404);
    expect((await t.patch(`/comments/${c.commentid}`, { token: user.token, body: {} })).json().errors[0]).toMatchObject({ field: 'text', code: 'missing_field' });
    expect((await t.patch(`/comments/${c.commentid}`, { token: user.token, body: { text: 'x', media: [] } })).json().errors[0].field).toBe('media');
    expect((await t.get(`/comments/${c.commentid}`)).json().text_raw).toBe('administered');
  });
});

describe('DELETE /comments/{commentid}', () => {
  it('the author deletes: 204, and the replies go with a top-level comment', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid);
    const r = await makeComment(t, other, 'wiki', wiki.wikiid, { parentid: c.commentid });
    const res = await t.del(`/comments/${c.commentid}`, { token: user.token });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.get(`/comments/${c.commentid}`)).statusCode).toBe(404);
    expect((await t.get(`/comments/${r.commentid}`)).statusCode).toBe(404);
  });

  it('deleting a reply leaves its parent', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid);
    const r = await makeComment(t, other, 'wiki', wiki.wikiid, { parentid: c.commentid });
    expect((await t.del(`/comments/${r.commentid}`, { token: moderator.token })).statusCode).toBe(204);
    expect((await t.get(`/comments/${c.commentid}`)).json().replies).toEqual([]);
  });

  it('403 for another user, 401, 404', async () => {
    const c = await makeComment(t, user, 'wiki', wiki.wikiid);
    expect((await t.del(`/comments/${c.commentid}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.del(`/comments/${c.commentid}`)).statusCode).toBe(401);
    expect((await t.del('/comments/999999', { token: admin.token })).statusCode).toBe(404);
    expect((await t.get(`/comments/${c.commentid}`)).statusCode).toBe(200);
  });
});

describe('sites with public registration', () => {
  it('comment text is 12 to 1024 characters', async () => {
    const pt = await buildTestApp({ config: { publicRegistration: true } });
    try {
      const u = await makeUser(pt);
      const w = await makeWiki(pt, await makeAuthor(pt));
      const post = (text: string) => pt.post(`/comments/wiki/${w.wikiid}`, { token: u.token, body: { text } });
      expect((await post('x'.repeat(11))).json().errors[0]).toMatchObject({ field: 'text', code: 'out_of_range' });
      expect((await post('x'.repeat(12))).statusCode).toBe(201);
      expect((await post('é'.repeat(1024))).statusCode).toBe(201);
      expect((await post('x'.repeat(1025))).json().errors[0]).toMatchObject({ field: 'text', code: 'out_of_range' });
      const c = (await post('a fine comment')).json();
      expect((await pt.patch(`/comments/${c.commentid}`, { token: u.token, body: { text: 'too short' } })).statusCode).toBe(422);
    } finally {
      await pt.close();
    }
  });
});

describe('discussion posts', () => {
  it('comments in the post context answer a post; the post counts them', async () => {
    const p = await makePost(t, user, { title: 'Grease?', text: 'Which grease?' });
    const c = await makeComment(t, author, 'post', p.postid, { text: 'Lithium grease.' });
    expect(c).toMatchObject({ context: 'post', contextid: p.postid, title: 'Grease?' });
    await makeComment(t, user, 'post', p.postid, { parentid: c.commentid, text: 'Thanks!' });
    expect((await t.get(`/posts/${p.postid}`)).json().comment_count).toBe(2);
    const list = (await t.get(`/posts/${p.postid}/comments`)).json();
    expect(list.map((x: { commentid: number }) => x.commentid)).toEqual([c.commentid]);
    expect(list[0].replies).toHaveLength(1);
  });
});
