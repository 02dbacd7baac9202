// Teams. The specification gives the team record but no team endpoints; these are the
// paths and shapes existing clients call (marked as extensions in the OpenAPI document).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { forbidden, invalidField, notFound } from '../../http/errors.js';
import { isAdmin, requireUser, type AuthUser } from '../../http/auth.js';
import { fromBool } from '../../db/helpers.js';
import { MemberPut, TeamCreate, TeamListQuery, TeamMember, TeamPatch, TeamSummary, TeamWithCode } from './teams.schemas.js';
import { findTeam, isTeamLead, teamMembers, toTeamSummaries, type TeamRow } from './teams.queries.js';
import { checkMediaRefs } from '../media/media.access.js';

const TAG = ['Teams (extension)'];
const TeamParam = Type.Object({ teamid: Id() });
const MemberParam = Type.Object({ teamid: Id(), userid: Id() });
const newJoinCode = () => randomBytes(9).toString('base64url');

export async function teamsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existingTeam(teamid: number): Promise<TeamRow> {
    const row = await findTeam(db, teamid);
    if (!row) throw notFound('Team');
    return row;
  }

  /** The owner, a lead or an Admin; 403 otherwise. */
  async function requireTeamManager(request: FastifyRequest, team: TeamRow) {
    const user = requireUser(request);
    if (isAdmin(user) || (await isTeamLead(db, user.userid, team.teamid))) return user;
    throw forbidden('Only the team\'s owner, its leads or an Admin may do this.');
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
    const rows = await db.selectFrom('teams').selectAll().orderBy('teamid', order === 'DESC' ? 'desc' : 'asc').limit(limit).offset(offset).execute();
    return toTeamSummaries(db, config, rows);
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
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', owner).executeTakeFirst())) throw invalidField('owner', 'No such user.');
    const now = clock.now();
    const teamid = await db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('teams').values({
        name: b.name.trim(), name_lower: b.name.trim().toLowerCase(), description: b.description ?? '', owner, location: b.location ?? '',
        latitude: b.latitude ?? null, longitude: b.longitude ?? null, reputation: 0, imageid: b.imageid ?? null, join_code: newJoinCode(), created_date: now,
      }).returning('teamid').executeTakeFirstOrThrow();
      await trx.insertInto('team_members').values({ teamid: row.teamid, userid: owner, is_lead: 1, join_date: now }).execute();
      return row.teamid;
    });
    return reply.status(201).send(await withCode(teamid));
  });

  app.get('/teams/:teamid', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'The members of a team (extension)', description: 'Answers the array of the team\'s members (user summaries with a `lead` flag), as existing clients expect.', params: TeamParam, response: { 200: Type.Array(TeamMember), ...errorResponses(404, 422) } },
  }, async (request) => teamMembers(db, config, (await existingTeam(request.params.teamid)).teamid));

  app.patch('/teams/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Update a team (extension)', description: 'The owner, a lead or an Admin; changing `owner` needs the owner or an Admin.', params: TeamParam, body: TeamPatch, response: { 200: TeamWithCode, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const team = await existingTeam(request.params.teamid);
    const user = await requireTeamManager(request, team);
    const b = request.body;
    const set: Record<string, unknown> = {};
    if (b.name !== undefined) {
      if (!b.name.trim()) throw invalidField('name', 'name must not be blank.');
      set.name = b.name.trim();
      set.name_lower = b.name.trim().toLowerCase();
    }
    for (const f of ['description', 'location', 'latitude', 'longitude'] as const) if (b[f] !== undefined) set[f] = b[f];
    if (b.imageid !== undefined) {
      await checkImage(user, b.imageid);
      set.imageid = b.imageid;
    }
    if (b.regenerate_join_code) set.join_code = newJoinCode();
    await db.transaction().execute(async (trx) => {
      if (b.owner !== undefined && b.owner !== team.owner) {
        if (!isAdmin(user) && user.userid !== team.owner) throw forbidden('Only the owner or an Admin may hand a team over.');
        if (!(await trx.selectFrom('users').select('userid').where('userid', '=', b.owner).executeTakeFirst())) throw invalidField('owner', 'No such user.');
        set.owner = b.owner;
        const member = await trx.selectFrom('team_members').select('userid').where('teamid', '=', team.teamid).where('userid', '=', b.owner).executeTakeFirst();
        if (member) await trx.updateTable('team_members').set({ is_lead: 1 }).where('teamid', '=', team.teamid).where('userid', '=', b.owner).execute();
        else await trx.insertInto('team_members').values({ teamid: team.teamid, userid: b.owner, is_lead: 1, join_date: clock.now() }).execute();
      }
      if (Object.keys(set).length) await trx.updateTable('teams').set(set).where('teamid', '=', team.teamid).execute();
    });
    return withCode(team.teamid);
  });

  app.delete('/teams/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Delete a team (extension)', description: 'The owner or an Admin.', params: TeamParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    const team = await existingTeam(request.params.teamid);
    const user = requireUser(request);
    if (!isAdmin(user) && user.userid !== team.owner) throw forbidden('Only the owner or an Admin may delete a team.');
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('team_members').where('teamid', '=', team.teamid).execute();
      const gone = await trx.deleteFrom('teams').where('teamid', '=', team.teamid).executeTakeFirst();
      // Deleted meanwhile by a concurrent request: that one answered 204, this one 404.
      if (Number(gone.numDeletedRows) === 0) throw notFound('Team');
    });
    return reply.status(204).send(null);
  });

  app.put('/teams/:teamid/users/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Add a member or change their lead flag (extension)',
      description: 'The owner, the leads and Admins add anyone and set `lead`; a user adds themself with the team\'s `join_code`. Answers the whole member array.',
      params: MemberParam,
      body: MemberPut,
      response: { 200: Type.Array(TeamMember), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const team = await existingTeam(request.params.teamid);
    const target = request.params.userid;
    const body = request.body;
    const manager = isAdmin(user) || (await isTeamLead(db, user.userid, team.teamid));
    if (!manager) {
      if (target !== user.userid) throw forbidden('Only the team\'s owner, its leads or an Admin may add other users.');
      if (body.lead) throw forbidden('Only the team\'s owner, its leads or an Admin may set lead.');
      if (body.join_code !== team.join_code) throw forbidden('A valid join_code is needed to join this team.', 'invalid_join_code');
    }
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', target).executeTakeFirst())) throw notFound('User');
    if (target === team.owner && body.lead === false) throw invalidField('lead', 'The owner is always a lead.');
    await db.transaction().execute(async (trx) => {
      // Insert-or-keep in one statement: concurrent joins of one user add one membership.
      const added = await trx.insertInto('team_members').values({ teamid: team.teamid, userid: target, is_lead: fromBool(body.lead ?? false), join_date: clock.now() })
        .onConflict((oc) => oc.columns(['teamid', 'userid']).doNothing()).executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0 && body.lead !== undefined) {
        await trx.updateTable('team_members').set({ is_lead: fromBool(body.lead) }).where('teamid', '=', team.teamid).where('userid', '=', target).execute();
      }
    });
    return teamMembers(db, config, team.teamid);
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
    if (target !== user.userid) await requireTeamManager(request, team);
    if (target === team.owner) throw invalidField('userid', 'The owner cannot leave the team; hand it over first.');
    const gone = await db.deleteFrom('team_members').where('teamid', '=', team.teamid).where('userid', '=', target).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw notFound('Team member');
    return teamMembers(db, config, team.teamid);
  });
}
