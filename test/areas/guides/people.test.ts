import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { FLAG_FIELDS, keys, LIGHT_GUIDE_FIELDS, sorted, USER_SUMMARY_FIELDS } from './records.js';

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  moderator = await makeModerator(t);
  user = await makeUser(t);
});

const ids = (list: Array<{ guideid: number }>) => list.map((g) => g.guideid);

describe('completions', () => {
  it('PUT and DELETE /guides/{id}/completed answer the status; the lists show them, newest first', async () => {
    const me = await makeUser(t);
    const a = await makePublishedGuide(t, author);
    const b = await makePublishedGuide(t, author);
    const put = await t.put(`/guides/${a.guideid}/completed`, { token: me.token });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ guideid: a.guideid, langid: 'en', userid: me.userid, completed: true, completed_date: t.clock.now() });
    expect((await t.put(`/guides/${a.guideid}/completed`, { token: me.token })).statusCode).toBe(200);
    t.clock.advance(10);
    await t.put(`/guides/${b.guideid}/completed`, { token: me.token });
    const mine = (await t.get('/user/completions', { token: me.token })).json();
    expect(ids(mine)).toEqual([b.guideid, a.guideid]);
    expect(keys(mine[0])).toEqual(sorted(LIGHT_GUIDE_FIELDS));
    expect(ids((await t.get(`/users/${me.userid}/completions`)).json())).toEqual([b.guideid, a.guideid]);
    const del = await t.del(`/guides/${a.guideid}/completed`, { token: me.token });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ guideid: a.guideid, langid: 'en', userid: me.userid, completed: false, completed_date: null });
    expect(ids((await t.get('/user/completions', { token: me.token })).json())).toEqual([b.guideid]);
    expect((await t.get('/user/completions?limit=1&offset=1', { token: me.token })).json()).toEqual([]);
  });

  it('others do not see completions of private guides', async () => {
    const me = await makeUser(t);
    const g = await makePublishedGuide(t, author);
    await t.put(`/guides/${g.guideid}/completed`, { token: me.token });
    await t.del(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`, { token: author.token });
    expect(ids((await t.get(`/users/${me.userid}/completions`)).json())).toEqual([]);
    expect(ids((await t.get(`/users/${me.userid}/completions`, { token: admin.token })).json())).toEqual([g.guideid]);
  });

  it('401, 403 on a private guide, 404, 422', async () => {
    const priv = await makeGuide(t, author);
    expect((await t.put(`/guides/${priv.guideid}/completed`)).statusCode).toBe(401);
    expect((await t.put(`/guides/${priv.guideid}/completed`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del('/guides/999999/completed', { token: user.token })).statusCode).toBe(404);
    expect((await t.get('/user/completions')).statusCode).toBe(401);
    expect((await t.get('/users/999999/completions')).statusCode).toBe(404);
    expect((await t.get('/user/completions?limit=500', { token: user.token })).statusCode).toBe(422);
  });
});

describe('favorites', () => {
  it('PUT and DELETE /user/favorites/guides/{id}; GET for oneself and for a user', async () => {
    const me = await makeUser(t);
    const a = await makePublishedGuide(t, author);
    const put = await t.put(`/user/favorites/guides/${a.guideid}`, { token: me.token });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ guideid: a.guideid, langid: 'en', userid: me.userid, favorited: true, favorited_date: t.clock.now() });
    expect(ids((await t.get('/user/favorites/guides', { token: me.token })).json())).toEqual([a.guideid]);
    expect(ids((await t.get(`/users/${me.userid}/favorites/guides`)).json())).toEqual([a.guideid]);
    const del = await t.del(`/user/favorites/guides/${a.guideid}`, { token: me.token });
    expect(del.statusCode).toBe(200);
    expect(del.json().favorited).toBe(false);
    expect((await t.get('/user/favorites/guides', { token: me.token })).json()).toEqual([]);
  });

  it('401, 403, 404', async () => {
    const priv = await makeGuide(t, author);
    expect((await t.put(`/user/favorites/guides/${priv.guideid}`)).statusCode).toBe(401);
    expect((await t.put(`/user/favorites/guides/${priv.guideid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.put('/user/favorites/guides/999999', { token: user.token })).statusCode).toBe(404);
    expect((await t.get('/user/favorites/guides')).statusCode).toBe(401);
    expect((await t.get('/users/999999/favorites/guides')).statusCode).toBe(404);
  });
});

describe('a user\'s guides', () => {
  it('GET /user/guides lists guides the user created or edited, private ones too, by guideid', async () => {
    const me = await makeAuthor(t);
    const mine = await makeGuide(t, me);
    const theirs = await makePublishedGuide(t, author);
    await t.patch(`/guides/${theirs.guideid}?revisionid=${theirs.revisionid}`, { token: me.token, body: { summary: 'edited by me' } });
    await makePublishedGuide(t, author);
    const res = await t.get('/user/guides?limit=200&order=DESC', { token: me.token });
    expect(res.statusCode).toBe(200);
    expect(ids(res.json())).toEqual([theirs.guideid, mine.guideid]);
    expect(ids((await t.get(`/users/${me.userid}/guides`)).json())).toEqual([theirs.guideid]);
    expect(ids((await t.get(`/users/${me.userid}/guides`, { token: me.token })).json())).toEqual([mine.guideid, theirs.guideid]);
    expect((await t.get('/user/guides')).statusCode).toBe(401);
    expect((await t.get('/users/999999/guides')).statusCode).toBe(404);
    expect((await t.get('/user/guides?order=SIDEWAYS', { token: me.token })).statusCode).toBe(422);
  });
});

describe('collaborators', () => {
  it('users: PUT adds (idempotent), GET lists user summaries, DELETE removes; each answers the list', async () => {
    const g = await makeGuide(t, author);
    const helper = await makeUser(t);
    const put = await t.put(`/guides/${g.guideid}/users/${helper.userid}`, { token: author.token });
    expect(put.statusCode).toBe(200);
    expect(put.json().map((u: { userid: number }) => u.userid)).toEqual([helper.userid]);
    expect(keys(put.json()[0])).toEqual(sorted(USER_SUMMARY_FIELDS));
    expect((await t.put(`/guides/${g.guideid}/users/${helper.userid}`, { token: author.token })).json()).toHaveLength(1);
    expect((await t.get(`/guides/${g.guideid}/users`, { token: helper.token })).json()).toEqual(put.json());
    const del = await t.del(`/guides/${g.guideid}/users/${helper.userid}`, { token: author.token });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual([]);
    expect((await t.get(`/guides/${g.guideid}`, { token: helper.token })).statusCode).toBe(403);
  });

  it('teams: PUT, GET and DELETE answer team summaries', async () => {
    const g = await makeGuide(t, author);
    const team = await makeTeam(t, user);
    const put = await t.put(`/guides/${g.guideid}/teams/${team.teamid}`, { token: admin.token });
    expect(put.statusCode).toBe(200);
    expect(put.json().map((x: { teamid: number }) => x.teamid)).toEqual([team.teamid]);
    expect(put.json()[0]).toMatchObject({ name: team.name, member_count: 1 });
    expect((await t.get(`/guides/${g.guideid}/teams`, { token: user.token })).json()).toEqual(put.json());
    expect((await t.del(`/guides/${g.guideid}/teams/${team.teamid}`, { token: author.token })).json()).toEqual([]);
  });

  it('only the owner, Authors and Admins manage them: 401, 403, 404, 422', async () => {
    const g = await makeGuide(t, author);
    const helper = await makeUser(t);
    await t.put(`/guides/${g.guideid}/users/${helper.userid}`, { token: author.token });
    const third = await makeUser(t);
    expect((await t.put(`/guides/${g.guideid}/users/${third.userid}`)).statusCode).toBe(401);
    expect((await t.put(`/guides/${g.guideid}/users/${third.userid}`, { token: helper.token })).statusCode).toBe(403);
    expect((await t.put(`/guides/${g.guideid}/users/999999`, { token: author.token })).statusCode).toBe(404);
    expect((await t.put(`/guides/${g.guideid}/teams/999999`, { token: author.token })).statusCode).toBe(404);
    expect((await t.put(`/guides/999999/users/${third.userid}`, { token: author.token })).statusCode).toBe(404);
    expect((await t.del(`/guides/${g.guideid}/users/${third.userid}`, { token: author.token })).statusCode).toBe(404);
    expect((await t.get(`/guides/${g.guideid}/users`)).statusCode).toBe(401);
    expect((await t.get(`/guides/${g.guideid}/users`, { token: third.token })).statusCode).toBe(403);
    expect((await t.put(`/guides/${g.guideid}/users/abc`, { token: author.token })).statusCode).toBe(422);
  });
});

describe('flags', () => {
  it('GET /user/flags: the four user flags; Moderators also GUIDE_STARRED', async () => {
    const res = await t.get('/user/flags', { token: user.token });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().guide).sort()).toEqual(['DANGER', 'DEATH', 'GUIDE_DELETE', 'GUIDE_IN_PROGRESS']);
    const danger = res.json().guide.DANGER;
    expect(keys(danger)).toEqual(sorted(FLAG_FIELDS));
    expect(danger).toMatchObject({ flagid: 'DANGER', image: 'http://test.local/static/flags/DANGER.svg', title: 'Danger' });
    expect(Object.keys((await t.get('/user/flags', { token: moderator.token })).json().guide)).toContain('GUIDE_STARRED');
    expect((await t.get('/user/flags')).statusCode).toBe(401);
  });

  it('editors set and clear user flags; GUIDE_STARRED needs a Moderator', async () => {
    const g = await makePublishedGuide(t, author);
    const set = await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${g.revisionid}`, { token: author.token });
    expect(set.statusCode).toBe(200);
    expect(keys(set.json())).toEqual(sorted(LIGHT_GUIDE_FIELDS));
    expect(set.json().flags).toEqual(['DANGER']);
    let rev = set.json().revisionid;
    expect((await t.get(`/guides/${g.guideid}`)).json().flags).toEqual(['DANGER']);
    expect((await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${rev}`, { token: author.token })).statusCode).toBe(403);
    const starred = await t.put(`/guides/${g.guideid}/flags/GUIDE_STARRED?revisionid=${rev}`, { token: moderator.token });
    expect(starred.json().flags).toEqual(['DANGER', 'GUIDE_STARRED']);
    rev = starred.json().revisionid;
    expect((await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${rev}`, { token: user.token })).statusCode).toBe(403);
    const cleared = await t.del(`/guides/${g.guideid}/flags/DANGER?revisionid=${rev}`, { token: author.token });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().flags).toEqual(['GUIDE_STARRED']);
    rev = cleared.json().revisionid;
    expect((await t.put(`/guides/${g.guideid}/flags/NOT_A_FLAG?revisionid=${rev}`, { token: author.token })).statusCode).toBe(404);
    expect((await t.put('/guides/999999/flags/DANGER?revisionid=1', { token: author.token })).statusCode).toBe(404);
    expect((await t.put(`/guides/${g.guideid}/flags/DANGER?revisionid=${rev}`)).statusCode).toBe(401);
  });
});

describe('badges', () => {
  it('first guide and ten guides', async () => {
    const writer = await makeAuthor(t);
    const badges = async () => (await t.get(`/users/${writer.userid}/badges`)).json().map((b: { badgeid: string }) => b.badgeid);
    expect(await badges()).not.toContain('first_guide');
    await makeGuide(t, writer);
    expect(await badges()).toContain('first_guide');
    expect(await badges()).not.toContain('ten_guides');
    for (let i = 0; i < 9; i++) await makeGuide(t, writer);
    expect(await badges()).toContain('ten_guides');
  });
});
