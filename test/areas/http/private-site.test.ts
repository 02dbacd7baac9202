// Private sites (issue 62, item 1; docs/security.md, "Private sites"): with PRIVATE_SITE=true
// nothing is readable without a login. Every GET operation of the API document answers an
// anonymous caller 401 (but the API index); logging in, resets and the routes authenticated
// by a token in their URL stay open; guide pages answer the login page and unsigned media
// paths 401, unless the browser's session cookie is sent.
import { describe, expect, it } from 'vitest';
import { appForFile, buildTestApp } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeImage, makePublishedGuide } from '../../helpers/factories/guides.js';
import { imageVariantUrl } from '../../../src/areas/media/media.urls.js';
import { BASE_PATH } from '../../../src/app.js';

const SITE = 'http://private.test';
let admin: TestUser;
let guide: { guideid: number; url: string };
const t = appForFile({ config: { privateSite: true, publicUrl: SITE } }, async (app) => {
  admin = await makeAdmin(app);
  guide = await makePublishedGuide(app, admin, 1);
});

/** GET operations an anonymous caller may call on a private site. */
const OPEN_GETS = new Set(['/']);

async function sessionOf(user: TestUser): Promise<string> {
  const res = await t.post('/user/token', { body: { email: user.email, password: user.password } });
  expect(res.statusCode).toBe(201);
  return /session_cp=([^;]*)/.exec(String(res.headers['set-cookie']))![1];
}

describe('PRIVATE_SITE=true', () => {
  it('every GET operation of the API document answers an anonymous caller 401, with nothing of the site in it (but the index)', async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema?: { type?: string } }> }>> };
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!ops.get) continue;
      const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        const p = ops.get.parameters?.find((x) => x.in === 'path' && x.name === name);
        return p?.schema?.type === 'integer' ? String(guide.guideid) : 'CATEGORY';
      });
      const res = await t.get(url);
      walked++;
      if (OPEN_GETS.has(path)) {
        expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
        continue;
      }
      expect(res.statusCode, `GET ${url}: ${res.body.slice(0, 200)}`).toBe(401);
      expect(res.headers.etag, `GET ${url} has no tag`).toBeUndefined();
      expect(res.json().code).toBe('unauthorized');
    }
    expect(walked).toBeGreaterThan(100);
  });

  it('the document says so: a route anyone may call elsewhere needs a login here', async () => {
    const doc = t.app.swagger() as any;
    expect(doc.paths['/guides/{guideid}'].get['x-access']).toBe('user');
    expect(doc.paths['/suggest/{query}'].get['x-access']).toBe('user');
    expect(doc.paths['/user/token'].post['x-access']).toBe('none');
  });

  it('logging in, password resets and the API index stay open; registration only where it is public', async () => {
    const user = await makeUser(t);
    expect((await t.post('/user/token', { body: { email: user.email, password: user.password } })).statusCode).toBe(201);
    expect((await t.post('/users/reset_password', { body: { email: user.email } })).statusCode).toBe(200);
    expect((await t.post('/users/reset_password/complete', { body: { token: 'nope', password: 'a new password 1' } })).statusCode).toBe(422);
    expect((await t.get('/')).statusCode).toBe(200);
    expect((await t.post('/users', { body: { email: 'x@example.com', password: 'a password 123', username: 'x' } })).statusCode).toBe(401);
    expect((await t.post('/users/unique_usernames', { body: { unique_usernames: ['x'] } })).statusCode).toBe(401);
    // A module's commits are authenticated by the token in their URL: a wrong one is theirs to refuse, not a 401.
    expect((await t.post('/external_training_modules/commits/nope', { body: {} })).statusCode).not.toBe(401);

    const open = await buildTestApp({ config: { privateSite: true, publicRegistration: true, appIds: ['app'] } });
    try {
      const res = await open.post('/users', { body: { email: 'y@example.com', password: 'a password 123', username: 'y' }, headers: { 'x-app-id': 'app' } });
      expect(res.statusCode, res.body).toBe(201);
    } finally {
      await open.close();
    }
  });

  it('a token or the session cookie reads as before', async () => {
    const user = await makeUser(t);
    expect((await t.get(`/guides/${guide.guideid}`, { token: user.token })).statusCode).toBe(200);
    const cookie = await sessionOf(user);
    const read = await t.get(`/guides/${guide.guideid}`, { headers: { cookie: `session_cp=${cookie}` } });
    expect(read.statusCode).toBe(200);
    expect((await t.get('/suggest/Guide', { headers: { cookie: `session_cp=${cookie}` } })).statusCode).toBe(200);
  });

  it('a guide page answers the login page without a session, and the guide with one', async () => {
    const path = new URL(guide.url).pathname;
    const anonymous = await t.app.inject({ method: 'GET', url: path });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/text\/html/);
    expect(anonymous.body).toContain('<form method="post" action="/login">');
    expect(anonymous.body).toContain(`name="next" value="${path}"`);
    expect(anonymous.body).not.toContain('Step 1');
    const cookie = await sessionOf(await makeUser(t));
    const page = await t.app.inject({ method: 'GET', url: path, headers: { cookie: `session_cp=${cookie}` } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Step 1');
    expect(page.headers['cache-control']).toMatch(/^private/);
  });

  it('an unsigned media path needs a session, whether or not the file exists; a signed URL works without one', async () => {
    const imageid = await makeImage(t, admin.userid);
    const { guid } = await t.db.selectFrom('images').select('guid').where('imageid', '=', imageid).executeTakeFirstOrThrow();
    for (const url of [`/files/images/${guid}.standard`, '/files/images/00000000000000000000000000000000.standard', `/files/documents/${guid}.pdf`, `/files/videos/${guid}.mp4`]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(401);
    }
    const cookie = await sessionOf(await makeUser(t));
    // Past the gate: this test image has no file, so 404.
    expect((await t.app.inject({ method: 'GET', url: `/files/images/${guid}.standard`, headers: { cookie: `session_cp=${cookie}` } })).statusCode).toBe(404);
    const signed = new URL(imageVariantUrl(t.config, guid, 'standard'));
    expect((await t.app.inject({ method: 'GET', url: signed.pathname + signed.search })).statusCode).toBe(404);
  });

  it('the login form logs in, sets the cookie and goes back to a path of this site only', async () => {
    const user = await makeUser(t);
    const form = (fields: Record<string, string>, headers: Record<string, string> = { origin: SITE }) => t.app.inject({
      method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(fields).toString(),
    });
    const ok = await form({ login: user.email, password: user.password, next: '/Guide/x/1?lang=en' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/Guide/x/1?lang=en');
    expect(String(ok.headers['set-cookie'])).toMatch(/^session_cp=[A-Za-z0-9_-]+;.*HttpOnly/);
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/%0d%0aLocation:x']) {
      const res = await form({ login: user.email, password: user.password, next });
      expect(res.headers.location, next).toMatch(/^\/(?!\/|\\)/);
      expect(res.headers.location, next).not.toContain('evil');
    }
    const wrong = await form({ login: user.email, password: 'wrong password', next: '/Guide/x/1' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('The login or password is incorrect.');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const foreign = await form({ login: user.email, password: user.password }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['set-cookie']).toBeUndefined();
    const page = await t.app.inject({ method: 'GET', url: '/login?next=//evil.example' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="next" value="/"');
  });

  it('without PRIVATE_SITE the same reads are public (the default)', async () => {
    const pub = await buildTestApp();
    try {
      expect(pub.config.privateSite).toBe(false);
      const a = await makeAdmin(pub);
      const g = await makePublishedGuide(pub, a);
      expect((await pub.get(`/guides/${g.guideid}`)).statusCode).toBe(200);
      expect((await pub.app.inject({ method: 'GET', url: new URL(g.url).pathname })).statusCode).toBe(200);
      expect(BASE_PATH).toBe('/api/2.0');
    } finally {
      await pub.close();
    }
  });
});
