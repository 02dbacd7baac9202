// Team membership needs the user's consent (issue 61 §2): a lead's (or the owner's) addition
// is an invitation (202, listed "invited" to the team's managers) that counts for nothing
// (not oversight, not approval team stages, not sign-off signer teams, not the member count)
// until the user accepts it; the user declines, a manager withdraws; an Admin adds directly,
// a user with the join code joins directly. On today's main the lead's PUT made a member at once.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeCourse } from '../../helpers/factories/assessments.js';

let admin: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
});

type Member = { userid: number; lead: boolean; status: string };
const row = (list: Member[], userid: number) => list.find((m) => m.userid === userid);

describe('invitations', () => {
  it('a lead\'s addition is an invitation: 202, listed invited to managers only, not counted, no oversight until accepted', async () => {
    const owner = await makeUser(t);
    const lead = await makeUser(t);
    const u = await makeUser(t);
    const team = await makeTeam(t, owner, [{ user: lead, lead: true }]);
    const res = await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: lead.token });
    expect(res.statusCode, res.body).toBe(202);
    expect(row(res.json(), u.userid)).toMatchObject({ status: 'invited', lead: false });
    expect(row(res.json(), lead.userid)).toMatchObject({ status: 'member', lead: true });
    // not a member: not counted, not in the user's teams, not listed to the public or the invitee's peers
    expect((await t.get(`/teams?limit=100`)).json().find((x: { teamid: number }) => x.teamid === team.teamid).member_count).toBe(2);
    expect((await t.get(`/users/${u.userid}`)).json().teams).toEqual([]);
    expect(row((await t.get(`/teams/${team.teamid}`)).json(), u.userid)).toBeUndefined();
    expect(row((await t.get(`/teams/${team.teamid}`, { token: u.token })).json(), u.userid)).toBeUndefined();
    expect(row((await t.get(`/teams/${team.teamid}`, { token: owner.token })).json(), u.userid)?.status).toBe('invited');
    expect(row((await t.get(`/teams/${team.teamid}`, { token: admin.token })).json(), u.userid)?.status).toBe('invited');
    // no oversight while invited
    const guide = await makePublishedGuide(t, admin);
    const course = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid }], [u.userid]);
    expect((await t.patch(`/course_assignments/User/completeAll/${u.userid}`, { token: lead.token })).statusCode).toBe(403);
    expect((await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${u.userid}`, { token: lead.token, body: { rating: 1 } })).statusCode).toBe(403);
    expect((await t.patch(`/quizzes/sessions/userInvalidateAll/${u.userid}`, { token: lead.token })).statusCode).toBe(403);
    expect((await t.get(`/course_assignments/completion/user/${u.userid}`, { token: lead.token })).statusCode).toBe(403);
    // someone else may not accept for them; the lead may not either
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}/accept`, { token: lead.token })).statusCode).toBe(403);
    // accepted: a member, counted, overseen
    const accepted = await t.put(`/teams/${team.teamid}/users/${u.userid}/accept`, { token: u.token });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(row(accepted.json(), u.userid)).toMatchObject({ status: 'member', lead: false });
    expect((await t.get(`/users/${u.userid}`)).json().teams).toEqual([team.teamid]);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}/accept`, { token: u.token })).statusCode).toBe(404);
    const done = await t.patch(`/course_assignments/User/completeAll/${u.userid}`, { token: lead.token });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().changed).toBe(1);
    const stage = await t.db.selectFrom('course_stage_completions').select(['manager_override_userid', 'self_override']).where('course_stageid', '=', course.stageids[0]).where('userid', '=', u.userid).executeTakeFirstOrThrow();
    expect(stage).toEqual({ manager_override_userid: lead.userid, self_override: 0 });
  });

  it('a lead cannot make an Admin overseeable without the Admin\'s consent', async () => {
    const owner = await makeUser(t);
    const victim = await makeAdmin(t);
    const team = await makeTeam(t, owner);
    expect((await t.put(`/teams/${team.teamid}/users/${victim.userid}`, { token: owner.token })).statusCode).toBe(202);
    const guide = await makePublishedGuide(t, admin);
    expect((await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${victim.userid}`, { token: owner.token, body: { rating: 1 } })).statusCode).toBe(403);
    expect((await t.get(`/quizzes/sessions?userid=${victim.userid}`, { token: owner.token })).statusCode).toBe(403);
    // declined: gone
    const declined = await t.del(`/teams/${team.teamid}/users/${victim.userid}/invitation`, { token: victim.token });
    expect(declined.statusCode, declined.body).toBe(200);
    expect(row(declined.json(), victim.userid)).toBeUndefined();
    expect((await t.del(`/teams/${team.teamid}/users/${victim.userid}/invitation`, { token: victim.token })).statusCode).toBe(404);
    expect((await t.put(`/teams/${team.teamid}/users/${victim.userid}/accept`, { token: victim.token })).statusCode).toBe(404);
    expect(await t.db.selectFrom('team_members').select('userid').where('teamid', '=', team.teamid).where('userid', '=', victim.userid).executeTakeFirst()).toBeUndefined();
  });

  it('an invited member is no signer of a sign-off team and no member of an approval team stage', async () => {
    const owner = await makeUser(t);
    const u = await makeUser(t);
    const team = await makeTeam(t, owner);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: owner.token })).statusCode).toBe(202);
    const signers = await t.db.selectFrom('team_members').select('userid').where('teamid', '=', team.teamid).execute();
    expect(signers.map((s) => s.userid)).toEqual([owner.userid]);
    const inv = await t.db.selectFrom('team_invitations').select(['userid', 'invited_by']).where('teamid', '=', team.teamid).execute();
    expect(inv).toEqual([{ userid: u.userid, invited_by: owner.userid }]);
  });

  it('managers withdraw; others may not; an Admin adds directly (200); the join code joins directly; a re-invitation keeps one row', async () => {
    const owner = await makeUser(t);
    const u = await makeUser(t);
    const stranger = await makeUser(t);
    const team = await makeTeam(t, owner);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: owner.token })).statusCode).toBe(202);
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: owner.token, body: { lead: true } })).statusCode).toBe(202);
    expect(await t.db.selectFrom('team_invitations').select(['is_lead']).where('teamid', '=', team.teamid).execute()).toEqual([{ is_lead: 1 }]);
    expect((await t.del(`/teams/${team.teamid}/users/${u.userid}/invitation`, { token: stranger.token })).statusCode).toBe(403);
    expect((await t.del(`/teams/${team.teamid}/users/${u.userid}/invitation`, { token: owner.token })).statusCode).toBe(200);
    expect((await t.del(`/teams/${team.teamid}/users/${u.userid}/invitation`)).statusCode).toBe(401);
    expect((await t.put(`/teams/99999/users/${u.userid}/accept`, { token: u.token })).statusCode).toBe(404);
    // an Admin adds directly, superseding an invitation
    expect((await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: owner.token })).statusCode).toBe(202);
    const direct = await t.put(`/teams/${team.teamid}/users/${u.userid}`, { token: admin.token });
    expect(direct.statusCode).toBe(200);
    expect(row(direct.json(), u.userid)?.status).toBe('member');
    expect(await t.db.selectFrom('team_invitations').select('userid').where('teamid', '=', team.teamid).execute()).toEqual([]);
    // the join code joins directly
    const joined = await t.put(`/teams/${team.teamid}/users/${stranger.userid}`, { token: stranger.token, body: { join_code: team.join_code } });
    expect(joined.statusCode).toBe(200);
    expect(row(joined.json(), stranger.userid)?.status).toBe('member');
    // a lead changes an existing member's lead flag directly
    const flagged = await t.put(`/teams/${team.teamid}/users/${stranger.userid}`, { token: owner.token, body: { lead: true } });
    expect(flagged.statusCode).toBe(200);
    expect(row(flagged.json(), stranger.userid)).toMatchObject({ status: 'member', lead: true });
  });
});
