import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';

let admin: TestUser;
let user: TestUser;
const SUMMARY_FIELDS = ['image', 'join_date', 'privileges', 'reputation', 'teams', 'unique_username', 'url', 'userid', 'username'];

const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  user = await makeUser(t, { username: 'Zelda Zebra', unique_username: 'zelda' });
});

describe('GET /user', () => {
  it('answers the logged-in user with private fields', async () => {
    const res = await t.get('/user', { token: user.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ userid: user.userid, email: user.email, username: 'Zelda Zebra', badge_counts: { bronze: 1, silver: 0, gold: 0 } });
  });
  it('401 without a token', async () => {
    expect((await t.get('/user')).statusCode).toBe(401);
  });
});

describe('GET /users', () => {
  it('lists user summaries with enabled and banned, exactly those fields', async () => {
    const res = await t.get('/users');
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(list[0]).sort()).toEqual([...SUMMARY_FIELDS, 'banned', 'enabled'].sort());
    expect(list.map((u: { userid: number }) => u.userid)).toEqual([...list.map((u: { userid: number }) => u.userid)].sort((a, b) => a - b));
  });

  it('honours order, offset, limit and joinedSince', async () => {
    t.clock.advance(100);
    const late = await makeUser(t);
    const desc = (await t.get('/users?order=DESC&limit=1')).json();
    expect(desc).toHaveLength(1);
    expect(desc[0].userid).toBe(late.userid);
    const since = (await t.get(`/users?joinedSince=${t.clock.now()}`)).json();
    expect(since.map((u: { userid: number }) => u.userid)).toEqual([late.userid]);
    const second = (await t.get('/users?offset=1&limit=1')).json();
    expect(second[0].userid).toBe(user.userid);
    expect((await t.get('/users?joinedSince=-5')).statusCode).toBe(422);
  });

  it('shows a user\'s teams', async () => {
    const team = await makeTeam(t, admin, [{ user }]);
    const res = (await t.get('/users')).json().find((u: { userid: number }) => u.userid === user.userid);
    expect(res.teams).toContain(team.teamid);
  });
});

describe('GET /users/{userid}', () => {
  it('answers one user with badge counts', async () => {
    const res = await t.get(`/users/${user.userid}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ userid: user.userid, unique_username: 'zelda', badge_counts: { bronze: expect.any(Number) } });
    expect(res.json().email).toBeUndefined();
  });
  it('404 unknown, 422 not a number', async () => {
    expect((await t.get('/users/987654')).statusCode).toBe(404);
    expect((await t.get('/users/abc')).statusCode).toBe(422);
  });
});

describe('PATCH /users/{userid}', () => {
  it('lets a user edit their own profile', async () => {
    const u = await makeUser(t);
    const res = await t.patch(`/users/${u.userid}`, { token: u.token, body: { username: 'Renamed', about: 'Hello', unique_username: 'renamed_one' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ username: 'Renamed', about: 'Hello', unique_username: 'renamed_one' });
    expect((await t.db.selectFrom('users').select('username_lower').where('userid', '=', u.userid).executeTakeFirstOrThrow()).username_lower).toBe('renamed');
  });

  it('refuses another user (403), privileges from a non-Admin (403), unknown user (404), bad body (422), no token (401)', async () => {
    const u = await makeUser(t);
    expect((await t.patch(`/users/${user.userid}`, { token: u.token, body: { about: 'x' } })).statusCode).toBe(403);
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { privileges: ['Admin'] } })).statusCode).toBe(403);
    expect((await t.patch('/users/99999', { token: admin.token, body: { about: 'x' } })).statusCode).toBe(404);
    const bad = await t.patch(`/users/${u.userid}`, { token: u.token, body: { unique_username: 'NO SPACES' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('unique_username');
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { nonsense: 1 } })).statusCode).toBe(422);
    expect((await t.patch(`/users/${u.userid}`, { body: { about: 'x' } })).statusCode).toBe(401);
    const row = await t.db.selectFrom('users').select(['privileges', 'about']).where('userid', '=', u.userid).executeTakeFirstOrThrow();
    expect(row).toEqual({ privileges: 'User', about: '' });
  });

  it('needs the current password to change one\'s own password, and ends other sessions', async () => {
    const u = await makeUser(t);
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { password: 'a new password' } })).json().errors[0]).toMatchObject({ field: 'current_password', code: 'missing_field' });
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { password: 'a new password', current_password: 'wrong one' } })).statusCode).toBe(422);
    const other = (await t.post('/user/token', { body: { email: u.email, password: u.password } })).json().authToken;
    const ok = await t.patch(`/users/${u.userid}`, { token: u.token, body: { password: 'a new password', current_password: u.password } });
    expect(ok.statusCode).toBe(200);
    expect((await t.get('/user', { token: other })).statusCode).toBe(401);
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(200);
    expect((await t.post('/user/token', { body: { email: u.email, password: 'a new password' } })).statusCode).toBe(201);
  });

  it('lets an Admin set privileges, SSO and employee ids, and ban; duplicates are 422', async () => {
    const u = await makeUser(t);
    const res = await t.patch(`/users/${u.userid}`, { token: admin.token, body: { privileges: ['Author', 'User'], sso_userid: 'sso-1', employee_id: 'E-1', banned: true } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ privileges: ['Author', 'User'], banned: t.clock.now() });
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(401); // banned
    const v = await makeUser(t);
    const dup = await t.patch(`/users/${v.userid}`, { token: admin.token, body: { employee_id: 'E-1' } });
    expect(dup.statusCode).toBe(422);
    expect(dup.json().errors[0]).toMatchObject({ field: 'employee_id', code: 'duplicate' });
  });

  it('takes banned as the record shows it (a UNIX time, 0: not banned) and as a boolean', async () => {
    const u = await makeUser(t);
    const patch = (banned: unknown) => t.patch(`/users/${u.userid}`, { token: admin.token, body: { banned } });
    const stored = async () => (await t.db.selectFrom('users').select('banned').where('userid', '=', u.userid).executeTakeFirstOrThrow()).banned;
    const at = t.clock.now() - 3600;
    let res = await patch(at);
    expect(res.statusCode).toBe(200);
    expect(res.json().banned).toBe(at);
    expect(await stored()).toBe(at);
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(401);
    // Sending back what the record shows changes nothing; true keeps the time of the ban.
    expect((await patch(res.json().banned)).json().banned).toBe(at);
    expect((await patch(true)).json().banned).toBe(at);
    res = await patch(0);
    expect(res.statusCode).toBe(200);
    expect(res.json().banned).toBe(0);
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(200);
    expect((await patch(true)).json().banned).toBe(t.clock.now());
    expect((await patch(false)).json().banned).toBe(0);
    for (const bad of [-1, 1.5, 'yes', null]) {
      const refused = await patch(bad);
      expect(refused.statusCode, JSON.stringify(bad)).toBe(422);
      expect(refused.json().errors[0].field).toBe('banned');
    }
    expect(await stored()).toBe(0);
    // Still Admin only.
    expect((await t.patch(`/users/${u.userid}`, { token: u.token, body: { banned: 0 } })).statusCode).toBe(403);
  });
});

describe('lookups', () => {
  it('by SSO id (logged in), e-mail and employee id (Admin)', async () => {
    const u = await makeUser(t);
    await t.patch(`/users/${u.userid}`, { token: admin.token, body: { sso_userid: 'okta|42', employee_id: 'EMP-42' } });
    expect((await t.get('/users/sso/okta%7C42', { token: user.token })).json().userid).toBe(u.userid);
    expect((await t.get('/users/sso/okta%7C42')).statusCode).toBe(401);
    expect((await t.get(`/users/email/${encodeURIComponent(u.email.toUpperCase())}`, { token: admin.token })).json().userid).toBe(u.userid);
    expect((await t.get(`/users/email/${encodeURIComponent(u.email)}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/users/employee_id/EMP-42', { token: admin.token })).json().userid).toBe(u.userid);
    expect((await t.get('/users/employee_id/EMP-42', { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/users/employee_id/none', { token: admin.token })).statusCode).toBe(404);
  });
});

describe('search', () => {
  it('finds users by display-name prefix, case-insensitively', async () => {
    await makeUser(t, { username: 'Zeppelin Pilot' });
    const res = await t.get('/users/search/ZE');
    expect(res.statusCode).toBe(200);
    const names = res.json().map((u: { username: string }) => u.username);
    expect(names).toEqual(expect.arrayContaining(['Zelda Zebra', 'Zeppelin Pilot']));
    expect(names.every((n: string) => n.toLowerCase().startsWith('ze'))).toBe(true);
    expect((await t.get('/users/search/ze?limit=1')).json()).toHaveLength(1);
    expect((await t.get('/users/search/%25')).json()).toEqual([]);
  });
  it('the deprecated searchnames works and says so', async () => {
    const res = await t.get('/users/searchnames/zel');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.json()[0].username).toBe('Zelda Zebra');
  });
});

describe('badges', () => {
  it('lists earned badges; a team lead earns Team lead', async () => {
    const lead = await makeUser(t);
    await makeTeam(t, lead);
    const res = await t.get(`/users/${lead.userid}/badges`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((b: { badgeid: string }) => b.badgeid)).toEqual(expect.arrayContaining(['welcome', 'teammate', 'team_lead']));
    expect((await t.get('/user/badges', { token: lead.token })).json()).toHaveLength(res.json().length);
    expect((await t.get(`/users/${lead.userid}`)).json().badge_counts).toEqual({ bronze: 2, silver: 1, gold: 0 });
    expect((await t.get('/users/424242/badges')).statusCode).toBe(404);
    expect((await t.get('/user/badges')).statusCode).toBe(401);
  });
});

describe('POST /users/unique_usernames', () => {
  it('reports validity and availability per name', async () => {
    const res = await t.post('/users/unique_usernames', { body: { unique_usernames: ['zelda', 'free_name', 'Bad Name'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { unique_username: 'zelda', valid: true, available: false },
      { unique_username: 'free_name', valid: true, available: true },
      { unique_username: 'Bad Name', valid: false, available: false },
    ]);
    expect((await t.post('/users/unique_usernames', { body: { unique_usernames: [] } })).statusCode).toBe(422);
  });
});

describe('POST /users/createByEmails', () => {
  it('creates accounts, reports existing and invalid addresses, and mails a reset link', async () => {
    const res = await t.post('/users/createByEmails', { token: admin.token, body: { emails: ['fresh1@example.com', user.email, 'not an email'], privileges: ['Author'] } });
    expect(res.statusCode).toBe(200);
    const [a, b, c] = res.json().results;
    expect(a).toMatchObject({ email: 'fresh1@example.com', status: 'created' });
    expect(b).toMatchObject({ status: 'exists', userid: user.userid });
    expect(c).toMatchObject({ status: 'invalid', userid: null });
    expect((await t.get(`/users/${a.userid}`)).json().privileges).toEqual(['Author']);
    const mail = await t.db.selectFrom('jobs').select('payload').where('type', '=', 'mail.send').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
    expect(JSON.parse(mail.payload).to).toBe('fresh1@example.com');
    const created = (await t.get('/users/created_users', { token: admin.token })).json();
    expect(created.map((u: { userid: number }) => u.userid)).toContain(a.userid);
    expect((await t.post('/user/token', { body: { email: 'fresh1@example.com', password: '' } })).statusCode).toBe(401);
  });
  it('is Admin only', async () => {
    const author = await makeAuthor(t);
    expect((await t.post('/users/createByEmails', { token: author.token, body: { emails: ['x9@example.com'] } })).statusCode).toBe(403);
    expect((await t.post('/users/createByEmails', { body: { emails: ['x9@example.com'] } })).statusCode).toBe(401);
    expect((await t.post('/users/createByEmails', { token: admin.token, body: { emails: 'x9@example.com' } })).statusCode).toBe(422);
    expect(await t.db.selectFrom('users').select('userid').where('email', '=', 'x9@example.com').executeTakeFirst()).toBeUndefined();
  });
  it('created_users needs a login', async () => {
    expect((await t.get('/users/created_users')).statusCode).toBe(401);
  });
});
