// Browser sessions (issue 62, item 2; docs/security.md, "The session cookie"): a login sets
// exactly one cookie, `session_cp`, tied to the token it issued; it authenticates reads,
// pages and files; a write it alone authenticates must come from PUBLIC_URL's origin; a
// login from another origin sets none; logout and every end of the token end it.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile, buildTestApp } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { hashToken } from '../../../src/http/passwords.js';

const SITE = 'https://cp.example.com';
const t = appForFile({ config: { publicUrl: SITE } });

function setCookies(res: LightMyRequestResponse): string[] {
  const h = res.headers['set-cookie'];
  return h === undefined ? [] : [h].flat().map(String);
}

/** Logs in; the answer, its token and the cookie's value (null without one). */
async function logIn(user: TestUser, headers: Record<string, string> = {}) {
  const res = await t.post('/user/token', { body: { email: user.email, password: user.password }, headers });
  expect(res.statusCode, res.body).toBe(201);
  const cookies = setCookies(res);
  const value = cookies.length ? /^session_cp=([^;]*)/.exec(cookies[0])![1] : null;
  return { res, token: res.json().authToken as string, cookies, cookie: value };
}

const withCookie = (value: string, extra: Record<string, string> = {}) => ({ headers: { cookie: `other=1; session_cp=${value}`, ...extra } });

describe('the session cookie', () => {
  it('a login sets exactly one cookie, session_cp, HttpOnly, SameSite=Lax, Path=/, no Domain, Secure over https, new at every login', async () => {
    const user = await makeUser(t);
    const first = await logIn(user);
    expect(first.cookies).toHaveLength(1);
    const attrs = first.cookies[0].split(';').map((s) => s.trim());
    expect(attrs[0]).toMatch(/^session_cp=[A-Za-z0-9_-]{40,}$/);
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Secure']));
    expect(attrs.some((a) => /^domain=/i.test(a))).toBe(false);
    const second = await logIn(user);
    expect(second.cookie).not.toBe(first.cookie);
    expect(first.cookie).not.toBe(first.token);
    // Only hashes are stored, the cookie's beside its token's.
    const row = await t.db.selectFrom('tokens').select(['token_hash', 'session_hash']).where('token_hash', '=', hashToken(first.token)).executeTakeFirstOrThrow();
    expect(row.session_hash).toBe(hashToken(first.cookie!));
  });

  it('no Secure flag when PUBLIC_URL is plain http', async () => {
    const plain = await buildTestApp({ config: { publicUrl: 'http://plain.local' } });
    try {
      const user = await makeUser(plain);
      const res = await plain.post('/user/token', { body: { email: user.email, password: user.password } });
      expect(setCookies(res)).toHaveLength(1);
      expect(setCookies(res)[0]).not.toMatch(/secure/i);
    } finally {
      await plain.close();
    }
  });

  it('authenticates API reads as the user it was issued to', async () => {
    const user = await makeUser(t);
    const { cookie } = await logIn(user);
    const me = await t.get('/user', withCookie(cookie!));
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().userid).toBe(user.userid);
    // A cookie this server never set is no one (and is told to go).
    const stranger = await t.get('/user', withCookie('x'.repeat(43)));
    expect(stranger.statusCode).toBe(401);
    expect(setCookies(stranger)[0]).toMatch(/^session_cp=;.*Max-Age=0/);
  });

  it('a write authenticated by the cookie alone needs PUBLIC_URL\'s origin (Origin, else Referer): 403 csrf_origin', async () => {
    const user = await makeUser(t);
    const { cookie } = await logIn(user);
    const body = { about: 'written by a page' };
    for (const headers of [{}, { origin: 'https://evil.example' }, { referer: 'https://evil.example/cp' }, { origin: 'null' }, { origin: 'http://cp.example.com' }] as Array<Record<string, string>>) {
      const res = await t.patch(`/users/${user.userid}`, { body, ...withCookie(cookie!, headers) });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().code, res.body).toBe('csrf_origin');
    }
    expect((await t.patch(`/users/${user.userid}`, { body, ...withCookie(cookie!, { origin: SITE }) })).statusCode).toBe(200);
    expect((await t.patch(`/users/${user.userid}`, { body, ...withCookie(cookie!, { referer: `${SITE}/Guide/x/1` }) })).statusCode).toBe(200);
    // The token in Authorization is not subject to it (a browser never sends it by itself).
    const { token } = await logIn(user);
    expect((await t.patch(`/users/${user.userid}`, { body, token, headers: { origin: 'https://evil.example' } })).statusCode).toBe(200);
  });

  it('a login from a foreign Origin sets no cookie; from the site itself it does', async () => {
    const user = await makeUser(t);
    expect((await logIn(user, { origin: 'https://evil.example' })).cookies).toEqual([]);
    expect((await logIn(user, { origin: SITE })).cookies).toHaveLength(1);
  });

  it('CORS never allows credentials', async () => {
    const user = await makeUser(t);
    const { res, cookie } = await logIn(user, { origin: 'https://app.example' });
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const read = await t.get('/user', withCookie(cookie ?? (await logIn(user)).cookie!, { origin: 'https://app.example' }));
    expect(read.headers['access-control-allow-credentials']).toBeUndefined();
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/2.0/user', headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' } });
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('logout clears the cookie and ends it, by the cookie or by the token', async () => {
    const user = await makeUser(t);
    const a = await logIn(user);
    const out = await t.del('/user/token', withCookie(a.cookie!, { origin: SITE }));
    expect(out.statusCode).toBe(204);
    expect(setCookies(out)[0]).toMatch(/^session_cp=;.*Max-Age=0/);
    expect((await t.get('/user', withCookie(a.cookie!))).statusCode).toBe(401);
    expect((await t.get('/user', { token: a.token })).statusCode).toBe(401);

    const b = await logIn(user);
    expect((await t.del('/user/token', { token: b.token })).statusCode).toBe(204);
    expect((await t.get('/user', withCookie(b.cookie!))).statusCode).toBe(401);
  });

  it('every other end of its token ends it: a password change, a ban, expiry', async () => {
    const admin = await makeAdmin(t);
    const user = await makeUser(t);
    const a = await logIn(user);
    const changed = await t.patch(`/users/${user.userid}`, { token: (await logIn(user)).token, body: { password: 'another password 42', current_password: user.password } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await t.get('/user', withCookie(a.cookie!))).statusCode).toBe(401);
    user.password = 'another password 42';
    const b = await logIn(user);
    expect((await t.get('/user', withCookie(b.cookie!))).statusCode).toBe(200);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', user.userid).execute();
    expect((await t.get('/user', withCookie(b.cookie!))).statusCode).toBe(401);
    await t.db.updateTable('users').set({ enabled: 1 }).where('userid', '=', user.userid).execute();
    expect((await t.get('/user', withCookie(b.cookie!))).statusCode).toBe(200);
    t.clock.advance(t.config.tokenTtl + 1);
    expect((await t.get('/user', withCookie(b.cookie!))).statusCode).toBe(401);
    expect(admin.userid).toBeGreaterThan(0);
  });
});
