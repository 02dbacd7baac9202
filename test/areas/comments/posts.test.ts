import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeComment, makePost } from '../../helpers/factories/wikis.js';

const POST_FIELDS = ['postid', 'title', 'text_raw', 'text_rendered', 'locale', 'author', 'date', 'modified_date', 'comment_count', 'url'].sort();

let moderator: TestUser;
let user: TestUser;
let other: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [moderator, user, other] = await Promise.all([makeModerator(t), makeUser(t), makeUser(t)]);
});

describe('POST /posts', () => {
  it('any user starts a discussion: 201 with the post', async () => {
    const res = await t.post('/posts', { token: user.token, body: { title: ' Which grease? ', text: 'For the *bearings*.', langid: 'de' } });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(Object.keys(p).sort()).toEqual(POST_FIELDS);
    expect(p).toMatchObject({ title: 'Which grease?', text_raw: 'For the *bearings*.', locale: 'de', date: t.clock.now(), modified_date: 0, comment_count: 0, author: { userid: user.userid } });
    expect(p.url).toBe(`http://test.local/api/2.0/posts/${p.postid}`);
    expect(p.text_rendered).toContain('<p>');
  });

  it('401 without a token; 422 without title or text, blank ones, or a foreign language', async () => {
    expect((await t.post('/posts', { body: { title: 'x', text: 'y' } })).statusCode).toBe(401);
    for (const [body, field] of [[{ text: 'y' }, 'title'], [{ title: 'x' }, 'text'], [{ title: ' ', text: 'y' }, 'title'], [{ title: 'x', text: ' ' }, 'text'], [{ title: 'x', text: 'y', langid: 'fr' }, 'langid']] as const) {
      const res = await t.post('/posts', { token: user.token, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });
});

describe('GET /posts and /posts/{postid}', () => {
  it('lists by postid, filters by language, paginates; one post; 404', async () => {
    const a = await makePost(t, user);
    const b = await makePost(t, other, { langid: 'de' });
    const all = (await t.get('/posts?limit=200')).json().map((p: { postid: number }) => p.postid);
    expect(all.indexOf(a.postid)).toBeLessThan(all.indexOf(b.postid));
    const desc = (await t.get('/posts?order=DESC&limit=1')).json();
    expect(desc[0].postid).toBe(Math.max(...all));
    expect((await t.get('/posts?langid=de')).json().every((p: { locale: string }) => p.locale === 'de')).toBe(true);
    expect((await t.get(`/posts/${a.postid}`)).json()).toMatchObject({ postid: a.postid, title: a.title });
    expect((await t.get('/posts/999999')).statusCode).toBe(404);
    expect((await t.get('/posts/999999/comments')).statusCode).toBe(404);
    expect((await t.get('/posts?order=UP')).statusCode).toBe(422);
  });
});

describe('PATCH /posts/{postid}', () => {
  it('the author or a Moderator edits; others 403; 401; 404; 422', async () => {
    const p = await makePost(t, user);
    t.clock.advance(10);
    const res = await t.patch(`/posts/${p.postid}`, { token: user.token, body: { title: 'New title' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: 'New title', text_raw: p.text_raw, modified_date: t.clock.now() });
    expect((await t.patch(`/posts/${p.postid}`, { token: moderator.token, body: { text: 'moderated' } })).json().text_raw).toBe('moderated');
    expect((await t.patch(`/posts/${p.postid}`, { token: other.token, body: { text: 'x' } })).statusCode).toBe(403);
    expect((await t.patch(`/posts/${p.postid}`, { body: { text: 'x' } })).statusCode).toBe(401);
    expect((await t.patch('/posts/999999', { token: moderator.token, body: { text: 'x' } })).statusCode).toBe(404);
    expect((await t.patch(`/posts/${p.postid}`, { token: user.token, body: { title: '' } })).statusCode).toBe(422);
  });
});

describe('DELETE /posts/{postid}', () => {
  it('the author deletes: 204, and the comments on it go; others 403; 401; 404', async () => {
    const p = await makePost(t, user);
    const c = await makeComment(t, other, 'post', p.postid);
    expect((await t.del(`/posts/${p.postid}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.del(`/posts/${p.postid}`)).statusCode).toBe(401);
    expect((await t.del(`/posts/${p.postid}`, { token: user.token })).statusCode).toBe(204);
    expect((await t.get(`/posts/${p.postid}`)).statusCode).toBe(404);
    expect((await t.get(`/comments/${c.commentid}`)).statusCode).toBe(404);
    expect((await t.del(`/posts/${p.postid}`, { token: user.token })).statusCode).toBe(404);
  });
});
