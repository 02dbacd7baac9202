// Teams. The specification gives the team record but no team endpoints; these are the
// paths and shapes existing clients call (marked as extensions in the OpenAPI document).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { invalidField, notFound } from '../../http/errors.js';
import { isAdmin, requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { MemberPut, TeamCreate, TeamListQuery, TeamMember, TeamPatch, TeamSummary, TeamWithCode } from './teams.schemas.js';
import { findTeam, isMember, listTeams, teamMembers, toTeamSummaries, userExists, type TeamRow } from './teams.queries.js';
import { canManageTeam, canOwnTeam, holdsJoinCode } from './teams.access.js';
import { acceptInvitation, createTeam, declineInvitation, deleteTeam, inviteMember, newJoinCode, putMember, removeMember, updateTeam } from './teams.service.js';
import { checkMediaRefs } from '../media/media.access.js';
import type { Updateable } from 'kysely';
import type { TeamTable } from './teams.tables.js';

const TAG = ['Teams (extension)'];
const TeamParam = Type.Object({ teamid: Id() });
const MemberParam = Type.Object({ teamid: Id(), userid: Id() });
const NOT_MANAGER = 'Only the team\'s owner, its leads or an Admin may';

export async function teamsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existingTeam(teamid: number): Promise<TeamRow> {
    const row = await findTeam(db, teamid);
    if (!row) throw notFound('Team');
    return row;
  }

  async function withCode(teamid: number) {
    const row = await existingTeam(teamid);
    return { ...(await toTeamSummaries(db, config, [row]))[0], join_code: row.join_code };
  }

  /** A team's image is one of the caller's own images (never someone else's, whose delete it would block). */
  async function checkImage(user: AuthUser, imageid: number | null | undefined) {
    if (imageid == null) return;
    await checkMediaRefs(db, user, [{ kind: 'image', id: imageid, field: 'imageid' }], { ownedBy: user.userid });
  }

  app.get('/teams', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'List teams, ordered by teamid (extension)', querystring: TeamListQuery, response: { 200: Type.Array(TeamSummary), ...errorResponses(422) } },
  }, async (request) => {
    const { offset, limit, order } = request.query;
    return toTeamSummaries(db, config, await listTeams(db, { offset, limit, order }));
  });

  app.post('/teams', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Create a team (extension)',
      description: 'Admin only. The owner (default: the caller) becomes its first member and a lead. Answers the team with its `join_code`.',
      body: TeamCreate,
      response: { 201: TeamWithCode, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    if (!b.name.trim()) throw invalidField('name', 'name must not be blank.');
    await checkImage(user, b.imageid);
    const owner = b.owner ?? user.userid;
    if (!(await userExists(db, owner))) throw invalidField('owner', 'No such user.');
    const teamid = await createTeam(db, {
      name: b.name.trim(), name_lower: b.name.trim().toLowerCase(), description: b.description ?? '', owner, location: b.location ?? '',
      latitude: b.latitude ?? null, longitude: b.longitude ?? null, reputation: 0, imageid: b.imageid ?? null,
    }, clock.now(), user);
    return reply.status(201).send(await withCode(teamid));
  });

  /** The member array; the pending invitations too for the team's owner, leads and Admins. */
  async function membersFor(user: AuthUser | null | undefined, team: TeamRow) {
    return teamMembers(db, config, team.teamid, { invited: !!user && (await canManageTeam(db, user, team)) });
  }

  app.get('/teams/:teamid', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'The members of a team (extension)', description: 'Answers the array of the team\'s members (user summaries with a `lead` flag and `status: "member"`), as existing clients expect; to its owner, leads and Admins the pending invitations too, after the members (`status: "invited"`).', params: TeamParam, response: { 200: Type.Array(TeamMember), ...errorResponses(404, 422) } },
  }, async (request) => membersFor(request.user, await existingTeam(request.params.teamid)));

  app.patch('/teams/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Update a team (extension)', description: 'The owner, a lead or an Admin; changing `owner` needs the owner or an Admin.', params: TeamParam, body: TeamPatch, response: { 200: TeamWithCode, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const team = await existingTeam(request.params.teamid);
    const user = requireUser(request);
    forbiddenUnless(await canManageTeam(db, user, team), `${NOT_MANAGER} do this.`);
    const b = request.body;
    const set: Updateable<TeamTable> = {};
    if (b.name !== undefined) {
      if (!b.name.trim()) throw invalidField('name', 'name must not be blank.');
      set.name = b.name.trim();
      set.name_lower = b.name.trim().toLowerCase();
    }
    if (b.description !== undefined) set.description = b.description;
    if (b.location !== undefined) set.location = b.location;
    if (b.latitude !== undefined) set.latitude = b.latitude;
    if (b.longitude !== undefined) set.longitude = b.longitude;
    if (b.imageid !== undefined) {
      await checkImage(user, b.imageid);
      set.imageid = b.imageid;
    }
    if (b.regenerate_join_code) set.join_code = newJoinCode();
    const newOwner = b.owner !== undefined && b.owner !== team.owner ? b.owner : undefined;
    if (newOwner !== undefined) forbiddenUnless(canOwnTeam(user, team), 'Only the owner or an Admin may hand a team over.');
    await updateTeam(db, team.teamid, set, newOwner, clock.now(), user);
    return withCode(team.teamid);
  });

  app.delete('/teams/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Delete a team (extension)', description: 'The owner or an Admin.', params: TeamParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    const team = await existingTeam(request.params.teamid);
    const user = requireUser(request);
    forbiddenUnless(canOwnTeam(user, team), 'Only the owner or an Admin may delete a team.');
    await deleteTeam(db, team.teamid, user, clock.now());
    return reply.status(204).send(null);
  });

  app.put('/teams/:teamid/users/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Add a member, invite a user, or change a member\'s lead flag (extension)',
      description: 'An Admin adds anyone directly (200). The owner and the leads invite a user who is not a member yet: 202, the invitation listed with `status: "invited"` until the user accepts it (`PUT .../accept`) or declines it (`DELETE .../invitation`); an invited user counts for nothing (not oversight, approval stages or sign-off signer teams). They set `lead` of members directly. A user adds themself with the team\'s `join_code` (directly, 200). Answers the whole member array.',
      params: MemberParam,
      body: MemberPut,
      response: { 200: Type.Array(TeamMember), 202: Type.Array(TeamMember), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const team = await existingTeam(request.params.teamid);
    const target = request.params.userid;
    const body = request.body;
    const manages = await canManageTeam(db, user, team);
    if (!manages) {
      forbiddenUnless(target === user.userid, `${NOT_MANAGER} add other users.`);
      forbiddenUnless(!body.lead, `${NOT_MANAGER} set lead.`);
      forbiddenUnless(holdsJoinCode(team, body.join_code), 'A valid join_code is needed to join this team.', 'invalid_join_code');
    }
    if (!(await userExists(db, target))) throw notFound('User');
    if (target === team.owner && body.lead === false) throw invalidField('lead', 'The owner is always a lead.');
    // Membership needs the user's consent: an Admin's addition, one's own, or a change to an
    // existing member is direct; a lead's addition of someone else is an invitation.
    if (isAdmin(user) || target === user.userid || (await isMember(db, team.teamid, target))) {
      await putMember(db, team.teamid, target, body.lead, clock.now(), user);
      return membersFor(user, team);
    }
    await inviteMember(db, team.teamid, target, body.lead, user, clock.now());
    return reply.status(202).send(await membersFor(user, team));
  });

  app.put('/teams/:teamid/users/:userid/accept', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Accept an invitation to a team (extension)',
      description: 'The invited user (or an Admin, who could add them directly): the invitation becomes a membership, with the lead flag it carried. No invitation: 404. Answers the whole member array.',
      params: MemberParam,
      response: { 200: Type.Array(TeamMember), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const team = await existingTeam(request.params.teamid);
    const target = request.params.userid;
    forbiddenUnless(target === user.userid || isAdmin(user), 'Only the invited user accepts an invitation.');
    await acceptInvitation(db, team.teamid, target, clock.now(), user);
    return membersFor(user, team);
  });

  app.delete('/teams/:teamid/users/:userid/invitation', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Decline or withdraw an invitation to a team (extension)',
      description: 'The invited user declines; the owner, the leads and Admins withdraw. No invitation: 404. Answers the whole member array.',
      params: MemberParam,
      response: { 200: Type.Array(TeamMember), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const team = await existingTeam(request.params.teamid);
    const target = request.params.userid;
    if (target !== user.userid) forbiddenUnless(await canManageTeam(db, user, team), `${NOT_MANAGER} withdraw an invitation.`);
    await declineInvitation(db, team.teamid, target, user, clock.now());
    return membersFor(user, team);
  });

  app.delete('/teams/:teamid/users/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Remove a member (extension)',
      description: 'The owner, the leads, Admins, or the member themself (leaving). The owner cannot be removed. Answers the whole member array.',
      params: MemberParam,
      response: { 200: Type.Array(TeamMember), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const team = await existingTeam(request.params.teamid);
    const target = request.params.userid;
    if (target !== user.userid) forbiddenUnless(await canManageTeam(db, user, team), `${NOT_MANAGER} do this.`);
    if (target === team.owner) throw invalidField('userid', 'The owner cannot leave the team; hand it over first.');
    await removeMember(db, team.teamid, target, user, clock.now());
    return membersFor(user, team);
  });
}
