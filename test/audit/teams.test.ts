// The audit log of teams: created, edited (the join code named, never recorded), deleted;
// members added, invited, accepting and declining, removed; leads set and unset. A refused
// change or one that changes nothing writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../helpers/factories.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let owner: TestUser;
let a: TestUser;
let b: TestUser;
let c: TestUser;

const t = appForFile({}, async () => {
  [admin, owner, a, b, c] = await Promise.all([makeAdmin(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');

describe('audit log of teams', () => {
  it('records a team created, edited and deleted, and every membership change', async () => {
    const created = await t.post('/teams', { token: admin.token, body: { name: 'Audited crew', owner: owner.userid } });
    expect(created.statusCode, created.body).toBe(201);
    const team = created.json();
    const id = String(team.teamid);
    const entries = async () => (await auditEntries(t, { resource_type: 'team', resource_id: id })).map((e) => [e.action, e.userid, changes(e)?.userid?.new ?? null]);
    expect(await entries()).toEqual([['team.created', admin.userid, null], ['team.member_added', admin.userid, owner.userid]]);
    expect(changes((await auditEntries(t, { action: 'team.created', resource_id: id }))[0]).name).toEqual({ new: 'Audited crew' });

    const before = await auditCount(t);
    expect((await t.post('/teams', { token: owner.token, body: { name: 'Refused crew' } })).statusCode).toBe(403);
    expect((await t.patch(`/teams/${team.teamid}`, { token: a.token, body: { name: 'Nope' } })).statusCode).toBe(403);
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: a.token, body: {} })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);

    // Renamed with a new join code: the code is named without its value.
    expect((await t.patch(`/teams/${team.teamid}`, { token: owner.token, body: { name: 'Audited crew 2', regenerate_join_code: true } })).statusCode).toBe(200);
    const [edited] = await auditEntries(t, { action: 'team.edited', resource_id: id });
    expect(changes(edited)).toMatchObject({ name: { old: 'Audited crew', new: 'Audited crew 2' }, join_code: {} });
    expect(edited.changes).not.toContain(team.join_code ?? 'no code');

    // The owner invites a (202); a accepts. Admin adds b directly; a lead flag set and unset.
    expect((await t.put(`/teams/${team.teamid}/users/${a.userid}`, { token: owner.token, body: { lead: true } })).statusCode).toBe(202);
    expect((await t.put(`/teams/${team.teamid}/users/${a.userid}/accept`, { token: a.token })).statusCode).toBe(200);
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: admin.token, body: {} })).statusCode).toBe(200);
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: owner.token, body: { lead: true } })).statusCode).toBe(200);
    const n = await auditCount(t);
    // Setting what is already so changes nothing.
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: owner.token, body: { lead: true } })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(n);
    expect((await t.put(`/teams/${team.teamid}/users/${b.userid}`, { token: owner.token, body: { lead: false } })).statusCode).toBe(200);
    // c is invited and declines; another invitation is withdrawn by the owner.
    expect((await t.put(`/teams/${team.teamid}/users/${c.userid}`, { token: owner.token, body: {} })).statusCode).toBe(202);
    expect((await t.del(`/teams/${team.teamid}/users/${c.userid}/invitation`, { token: c.token })).statusCode).toBe(200);
    expect((await t.del(`/teams/${team.teamid}/users/${c.userid}/invitation`, { token: c.token })).statusCode).toBe(404);
    expect((await t.put(`/teams/${team.teamid}/users/${c.userid}`, { token: owner.token, body: {} })).statusCode).toBe(202);
    expect((await t.del(`/teams/${team.teamid}/users/${c.userid}/invitation`, { token: owner.token })).statusCode).toBe(200);
    // b leaves; a second removal is a 404 and writes nothing.
    expect((await t.del(`/teams/${team.teamid}/users/${b.userid}`, { token: b.token })).statusCode).toBe(200);
    expect((await t.del(`/teams/${team.teamid}/users/${b.userid}`, { token: b.token })).statusCode).toBe(404);

    expect((await entries()).slice(3)).toEqual([
      ['team.member_invited', owner.userid, a.userid],
      ['team.invitation_accepted', a.userid, a.userid],
      ['team.member_added', admin.userid, b.userid],
      ['team.lead_set', owner.userid, b.userid],
      ['team.lead_unset', owner.userid, b.userid],
      ['team.member_invited', owner.userid, c.userid],
      ['team.invitation_declined', c.userid, c.userid],
      ['team.member_invited', owner.userid, c.userid],
      ['team.invitation_withdrawn', owner.userid, c.userid],
      ['team.member_removed', b.userid, b.userid],
    ]);
    const [accepted] = await auditEntries(t, { action: 'team.invitation_accepted', resource_id: id });
    expect(changes(accepted)).toMatchObject({ is_lead: { new: true }, member_added: { new: true } });

    expect((await t.del(`/teams/${team.teamid}`, { token: a.token })).statusCode).toBe(403);
    expect((await t.del(`/teams/${team.teamid}`, { token: owner.token })).statusCode).toBe(204);
    expect((await entries()).slice(-1)).toEqual([['team.deleted', owner.userid, null]]);
  });
});
