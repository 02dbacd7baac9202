import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';

let admin: TestUser;
const TEAM_FIELDS = ['description', 'image', 'latitude', 'location', 'longitude', 'member_count', 'name', 'new_member_since', 'owner', 'reputation', 'teamid'];

const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
});

describe('POST /teams and GET /teams', () => {
  it('an Admin creates a team; its owner is a lead member; the list shows exactly the summary fields', async () => {
    const owner = await makeUser(t);
    const res = await t.post('/teams', { token: admin.token, body: { name: 'Night shift', description: 'Line 2', owner: owner.userid, latitude: 48.1, longitude: 11.5 } });
    expect(res.statusCode).toBe(201);
    const team = res.json();
    expect(team).toMatchObject({ name: 'Night shift', owner: owner.userid, member_count: 1, latitude: 48.1, new_member_since: t.clock.now() });
    expect(team.join_code).toMatch(/\S{8,}/);
    const members = (await t.get(`/teams/${team.teamid}`)).json();
    expect(members).toHaveLength(1);
    expect(members[0]).toMatchObject({ userid: owner.userid, lead: true });
    const list = (await t.get('/teams?order=DESC&limit=200')).json();
    expect(list[0].teamid).toBe(team.teamid);
    expect(Object.keys(list[0]).sort()).toEqual(TEAM_FIELDS);
  });

  it('401/403/422 and nothing stored', async () => {
    const u = await makeUser(t);
    expect((await t.post('/teams', { body: { name: 'X' } })).statusCode).toBe(401);
    expect((await t.post('/teams', { token: u.token, body: { name: 'X' } })).statusCode).toBe(403);
    const bad = await t.post('/teams', { token: admin.token, body: { description: 'no name' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ field: 'name', code: 'missing_field' });
    expect((await t.post('/teams', { token: admin.token, body: { name: 'Y', latitude: 200 } })).json().errors[0]).toMatchObject({ field: 'latitude', code: 'out_of_range' });
    expect((await t.post('/teams', { token: admin.token, body: { name: 'Y', owner: 99999 } })).statusCode).toBe(422);
    const n = await t.db.selectFrom('teams').select((eb) => eb.fn.countAll<number>().as('n')).where('name', 'in', ['X', 'Y']).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });
});

describe('GET /teams/{teamid}', () => {
  it('404 for an unknown team, 422 for a bad id', async () => {
    expect((await t.get('/teams/99999')).statusCode).toBe(404);
    expect((await t.get('/teams/zero')).statusCode).toBe(422);
  });
});

describe('members', () => {
  it('the owner and leads invite anyone (lead flag kept); it counts once accepted; the answer is the member array', async () => {
    const owner = await makeUser(t);
    const lead = await makeUser(t);
    const a = await makeUser(t);
    const b = await makeUser(t);
    const team = await makeTeam(t, owner, [{ user: lead, lead: true }]);
    const r1 = await t.put(`/teams/${team.teamid}/users/${a.userid}`, { token: owner.token, body: { lead: true } });
    expect(r1.statusCode).toBe(202);
    expect(r1.json().find((m: { userid: number }) => m.userid === a.userid)).toMatchObject({ lead: true, status: 'invited' });
    expect((await t.put(`/teams/${team.teamid}/users/${a.userid}/accept`, { token: a.token })).statusCode).toBe(200);
    const r2 = await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: lead.token });
    expect(r2.statusCode).toBe(202);
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}/accept`, { token: b.token })).statusCode).toBe(200);
    const listed = (await t.get(`/teams/${team.teamid}`)).json();
    expect(listed.map((m: { userid: number }) => m.userid)).toEqual([owner.userid, lead.userid, a.userid, b.userid]);
    expect(listed.find((m: { userid: number }) => m.userid === a.userid)).toMatchObject({ lead: true, status: 'member' });
    expect((await t.get(`/users/${b.userid}`)).json().teams).toEqual([team.teamid]);
  });

  it('a user joins with the join code, not without; cannot add others or set lead', async () => {
    const owner = await makeUser(t);
    const u = await makeUser(t);
    const other = await makeUser(t);
    const team = await makeTeam(t, owner);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: u.token })).statusCode).toBe(403);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: u.token, body: { join_code: 'wrong' } })).statusCode).toBe(403);
    expect((await t.put(`/teams/${team.teamid}/users/${other.userid}`, { token: u.token, body: { join_code: team.join_code } })).statusCode).toBe(403);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: u.token, body: { join_code: team.join_code, lead: true } })).statusCode).toBe(403);
    const ok = await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: u.token, body: { join_code: team.join_code } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().find((m: { userid: number }) => m.userid === u.userid).lead).toBe(false);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`)).statusCode).toBe(401);
    expect((await t.put(`/teams/${team.teamid}/users/99999`, { token: owner.token })).statusCode).toBe(404);
    expect((await t.put(`/teams/99999/users/${u.userid}`, { token: owner.token })).statusCode).toBe(404);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: owner.token, body: { lead: 'yes' } })).statusCode).toBe(422);
  });

  it('removes members: managers remove anyone, a member leaves, the owner stays', async () => {
    const owner = await makeUser(t);
    const a = await makeUser(t);
    const b = await makeUser(t);
    const team = await makeTeam(t, owner, [{ user: a }, { user: b }]);
    expect((await t.del(`/teams/${team.teamid}/users/${b.userid}`, { token: a.token })).statusCode).toBe(403);
    const leave = await t.del(`/teams/${team.teamid}/users/${a.userid}`, { token: a.token });
    expect(leave.statusCode).toBe(200);
    expect(leave.json().map((m: { userid: number }) => m.userid)).toEqual([owner.userid, b.userid]);
    expect((await t.del(`/teams/${team.teamid}/users/${b.userid}`, { token: owner.token })).json().map((m: { userid: number }) => m.userid)).toEqual([owner.userid]);
    expect((await t.del(`/teams/${team.teamid}/users/${owner.userid}`, { token: admin.token })).statusCode).toBe(422);
    expect((await t.del(`/teams/${team.teamid}/users/${b.userid}`, { token: owner.token })).statusCode).toBe(404);
  });
});

describe('PATCH and DELETE /teams/{teamid}', () => {
  it('leads edit; only the owner or an Admin hands over or deletes', async () => {
    const owner = await makeUser(t);
    const lead = await makeUser(t);
    const member = await makeUser(t);
    const team = await makeTeam(t, owner, [{ user: lead, lead: true }, { user: member }]);
    expect((await t.patch(`/teams/${team.teamid}`, { token: member.token, body: { name: 'Nope' } })).statusCode).toBe(403);
    const edited = await t.patch(`/teams/${team.teamid}`, { token: lead.token, body: { name: 'Renamed team', regenerate_join_code: true } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().name).toBe('Renamed team');
    expect(edited.json().join_code).not.toBe(team.join_code);
    expect((await t.patch(`/teams/${team.teamid}`, { token: lead.token, body: { owner: lead.userid } })).statusCode).toBe(403);
    expect((await t.patch(`/teams/${team.teamid}`, { token: owner.token, body: { owner: member.userid } })).json().owner).toBe(member.userid);
    expect((await t.patch(`/teams/${team.teamid}`, { token: owner.token, body: { bogus: 1 } })).statusCode).toBe(422);
    expect((await t.patch('/teams/99999', { token: admin.token, body: { name: 'x' } })).statusCode).toBe(404);
    expect((await t.del(`/teams/${team.teamid}`, { token: lead.token })).statusCode).toBe(403);
    expect((await t.del(`/teams/${team.teamid}`, { token: member.token })).statusCode).toBe(204);
    expect((await t.get(`/teams/${team.teamid}`)).statusCode).toBe(404);
    expect((await t.del(`/teams/${team.teamid}`)).statusCode).toBe(401);
  });
});
