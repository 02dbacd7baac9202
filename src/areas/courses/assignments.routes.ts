// Course assignments (the specification's area `course_assignments`): assign a course to a
// user or a team, cancel, read; the learner's start and complete of a document; a
// manager's invalidation, complete-all and invalidate-all (recorded in
// manager_override_userid) and bulk stage completions; completion views (stored rows,
// kept current), summaries, sources and details. Who may do what: courses.access.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { Empty, errorResponses, Id, IdParam } from '../../http/schemas.js';
import { invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { bringUpToDate } from '../shared/course-progress.js';
import { overseenMembers } from '../shared/oversight.js';
import {
  AssignmentCreate, AssignmentDetails, AssignmentSource, BulkChange, CompleteBody, CompletionDetail, CompletionRow, CourseAssignment, DocParams,
  IdsBody, IndividualSummary, PageQuery, ScopeBody, StageChange, StageCompletionResult, StageCompletionsBody, TeamSummary,
} from './courses.schemas.js';
import { findAssignment, findCourse, type AssignmentRow } from './courses.queries.js';
import { assignmentRecords, avatars, completionRows, userStages } from './courses.records.js';
import { managesAssignee, managesTeam, managesUser, readsAssignment, readsUser, visibleTeam, visibleUser } from './courses.access.js';
import { assignCourse, bulkComplete, cancelAssignment, completeDocument, invalidateDocument, overrideAll, stagesReaching, startDocument } from './courses.service.js';

type Db = Kysely<Database>;
const TAG = ['Course assignments'];
const AssignmentParam = IdParam('course_assignmentid');
const UserParam = IdParam('userid');
const TeamParam = IdParam('teamid');
const NOT_SHOWN = 'Payload not shown in the specification; designed in the style of the documented ones.';

export async function assignmentsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  /** Membership and expiry brought up to now for one user or course before it is read (a read agrees with the next expiry run). */
  async function current(scope: { userid: number } | { wikiid: number }) {
    await bringUpToDate(db, clock.now(), scope);
  }

  async function existingAssignment(id: number, user: AuthUser): Promise<AssignmentRow> {
    const a = await findAssignment(db, id);
    if (!a) throw notFound('Course assignment');
    forbiddenUnless(await readsAssignment(db, user, a), 'Only the assignee, their team leads, Authors and Admins see an assignment.');
    return a;
  }
  async function assignmentRecord(a: AssignmentRow, user: AuthUser) {
    if (!a.cancelled) await current({ wikiid: a.wikiid });
    return (await assignmentRecords(db, config, [a], user))[0];
  }
  async function existingUser(userid: number) {
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst())) throw notFound('User');
  }
  async function existingTeam(teamid: number) {
    if (!(await db.selectFrom('teams').select('teamid').where('teamid', '=', teamid).executeTakeFirst())) throw notFound('Team');
  }
  async function teamMemberIds(teamid: number) {
    return (await db.selectFrom('team_members').select('userid').where('teamid', '=', teamid).orderBy('userid').execute()).map((m) => m.userid);
  }

  app.post('/course_assignments', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Assign a course to a user or a team',
      description: 'Body: `wikiid`, exactly one of `assignee_userid` and `assignee_teamid`, optionally `due_within` (seconds). Admins assign to anyone; team leads to their teams and their members. A team assignment reaches members who join later and stops for those who leave. A course already assigned (not cancelled) to the same assignee is a 422. Answers 201 with the assignment.',
      body: AssignmentCreate,
      response: { 201: CourseAssignment, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    if ((b.assignee_userid == null) === (b.assignee_teamid == null)) throw invalidField('assignee_userid', 'Send exactly one of assignee_userid and assignee_teamid.');
    if (!(await findCourse(db, b.wikiid))) throw invalidField('wikiid', `There is no course ${b.wikiid}.`);
    if (b.assignee_userid != null && !(await db.selectFrom('users').select('userid').where('userid', '=', b.assignee_userid).executeTakeFirst())) throw invalidField('assignee_userid', `There is no user ${b.assignee_userid}.`);
    if (b.assignee_teamid != null && !(await db.selectFrom('teams').select('teamid').where('teamid', '=', b.assignee_teamid).executeTakeFirst())) throw invalidField('assignee_teamid', `There is no team ${b.assignee_teamid}.`);
    const target = { assignee_userid: b.assignee_userid ?? null, assignee_teamid: b.assignee_teamid ?? null };
    forbiddenUnless(await managesAssignee(db, user, target), 'Only Admins and the leads of a team assign courses to it and its members.');
    const id = await assignCourse(db, clock, user.userid, { wikiid: b.wikiid, ...target, due_within: b.due_within ?? null }, user);
    if (id == null) throw invalidField(b.assignee_userid != null ? 'assignee_userid' : 'assignee_teamid', 'The course is already assigned to this assignee.', 'already_assigned');
    return reply.status(201).send(await assignmentRecord((await findAssignment(db, id))!, user));
  });

  for (const [path, deprecated] of [['/course_assignments/:course_assignmentid', false], ['/course_assignments/team/:course_assignmentid', true]] as const) {
    app.get(path, {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: deprecated ? 'Deprecated: use GET /course_assignments/{course_assignmentid}' : 'A course assignment',
        ...(deprecated ? { deprecated: true } : {}),
        description: 'The assignment with each reached user\'s stages. The assignee, their team leads, Authors and Admins.',
        params: AssignmentParam,
        response: { 200: CourseAssignment, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const user = requireUser(request);
      return assignmentRecord(await existingAssignment(request.params.course_assignmentid, user), user);
    });
  }

  app.delete('/course_assignments/:course_assignmentid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Cancel a course assignment', description: 'Admins and the leads of the assignee. The assignment is kept, `cancelled` 1; completions stay. A cancelled one is a 404.', params: AssignmentParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    const user = requireUser(request);
    const a = await existingAssignment(request.params.course_assignmentid, user);
    forbiddenUnless(await managesAssignee(db, user, a), 'Only Admins and the assignee\'s team leads cancel an assignment.');
    if (!(await cancelAssignment(db, clock, a.course_assignmentid, a.wikiid, user))) throw notFound('Course assignment (not cancelled)');
    return reply.status(204).send(null);
  });

  /** The user's stages on a document after a change. */
  async function stageChange(userid: number, doctype: string, docid: number, changed: number) {
    const stages = await stagesReaching(db, userid, { doctype, docid });
    const pairs = [...new Set(stages.map((s) => s.wikiid))].map((wikiid) => ({ wikiid, userid }));
    const entries = await userStages(db, config, pairs);
    const ids = new Set(stages.map((s) => s.course_stageid));
    const out = pairs.flatMap((p) => (entries.get(`${p.wikiid}:${userid}`) ?? []).filter((e) => ids.has(e.course_stageid)).map(({ doctype: _d, docid: _i, ...e }) => e));
    return { userid, doctype: doctype as 'guide', docid, changed, stages: out };
  }
  async function assignedOn(userid: number, doctype: string, docid: number) {
    if (!(await stagesReaching(db, userid, { doctype, docid })).length) throw notFound('Assigned course stage on this document');
  }

  app.patch('/course_assignments/start/:doctype/:docid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Start a document of the caller\'s courses', description: `Every stage of the caller's assigned courses on the document that is not started (or expired, or invalidated) moves to started. 404 when no assigned stage is on it. ${NOT_SHOWN}`, params: DocParams, response: { 200: StageChange, ...errorResponses(401, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { doctype, docid } = request.params;
    await assignedOn(user.userid, doctype, docid);
    const n = await startDocument(db, clock, config, user, doctype, docid);
    return stageChange(user.userid, doctype, docid, n);
  });

  app.patch('/course_assignments/complete/:doctype/:docid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Complete a document of the caller\'s courses', description: `Every assigned stage on the document moves to completed, tied to the document's current revision (or \`revisionid\`), or only \`course_stageid\`. Stages with a quiz or sign-off, and training modules, complete their own way and are left. 404 when no assigned stage is on it. ${NOT_SHOWN}`, params: DocParams, body: Type.Optional(CompleteBody), response: { 200: StageChange, ...errorResponses(401, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { doctype, docid } = request.params;
    await assignedOn(user.userid, doctype, docid);
    const rev = request.body?.revisionid;
    if (rev !== undefined) {
      const known = doctype === 'guide' ? await db.selectFrom('guide_revisions').select('revisionid').where('revisionid', '=', rev).where('guideid', '=', docid).executeTakeFirst()
        : doctype === 'wiki' ? await db.selectFrom('wiki_revisions').select('revisionid').where('revisionid', '=', rev).where('wikiid', '=', docid).executeTakeFirst() : undefined;
      if (!known) throw invalidField('revisionid', `${rev} is not a revision of ${doctype} ${docid}.`);
    }
    const n = await completeDocument(db, clock, config, user, doctype, docid, request.body ?? {});
    return stageChange(user.userid, doctype, docid, n);
  });

  app.patch('/course_assignments/invalidate/:doctype/:docid/:userid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Invalidate a user\'s completion of a document', description: `Admins and the user's team leads. The user's completed or started stages on the document become invalidated (the completions stay, marked). ${NOT_SHOWN}`, params: Type.Object({ ...DocParams.properties, userid: Id() }), response: { 200: StageChange, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { doctype, docid, userid } = request.params;
    await existingUser(userid);
    forbiddenUnless(await managesUser(db, user, userid), 'Only Admins and the user\'s team leads invalidate completions.');
    await assignedOn(userid, doctype, docid);
    const n = await invalidateDocument(db, clock, user, userid, doctype, docid);
    return stageChange(userid, doctype, docid, n);
  });

  for (const action of ['complete', 'invalidate'] as const) {
    app.patch(`/course_assignments/User/${action}All/:assignee_userid`, {
      config: { auth: 'user' },
      schema: { tags: TAG, summary: action === 'complete' ? 'Complete every assigned stage of a user (manager override)' : 'Invalidate every completion of a user', description: `Whoever oversees the user: Admins, and the leads of a team the user accepted membership of, never for their own account (an Admin's own is marked \`self_override\`); optionally one course (\`wikiid\`). ${action === 'complete' ? 'Recorded in manager_override_userid.' : ''} ${NOT_SHOWN}`, params: IdParam('assignee_userid'), body: Type.Optional(ScopeBody), response: { 200: BulkChange, ...errorResponses(401, 403, 404, 422) } },
    }, async (request) => {
      const user = requireUser(request);
      const userid = request.params.assignee_userid;
      await existingUser(userid);
      forbiddenUnless(await managesUser(db, user, userid), 'Only Admins and the user\'s team leads override their progress.');
      return { users: 1, changed: await overrideAll(db, clock, config, user, [userid], action, request.body?.wikiid) };
    });
    app.patch(`/course_assignments/Team/${action}All/:assignee_teamid`, {
      config: { auth: 'user' },
      schema: { tags: TAG, summary: action === 'complete' ? 'Complete every assigned stage of a team\'s members (manager override)' : 'Invalidate every completion of a team\'s members', description: `Admins and the team's leads (a lead's own account is left out); optionally one course (\`wikiid\`). ${NOT_SHOWN}`, params: IdParam('assignee_teamid'), body: Type.Optional(ScopeBody), response: { 200: BulkChange, ...errorResponses(401, 403, 404, 422) } },
    }, async (request) => {
      const user = requireUser(request);
      const teamid = request.params.assignee_teamid;
      await existingTeam(teamid);
      forbiddenUnless(await managesTeam(db, user, teamid), 'Only Admins and the team\'s leads override its members\' progress.');
      // A lead's own account is not theirs to override (shared/oversight.ts).
      const members = overseenMembers(user, await teamMemberIds(teamid));
      return { users: members.length, changed: await overrideAll(db, clock, config, user, members, action, request.body?.wikiid) };
    });
  }

  app.post('/course_assignments/stage_completions', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Record stage completions for users', description: `Body \`{"completions": [{userid, course_stageid}]}\` (1 to 100): each stage must be one assigned to that user (422 naming the item) and the caller must manage the user (Admins, team leads). Recorded as a manager's override. ${NOT_SHOWN}`, body: StageCompletionsBody, response: { 200: Type.Array(StageCompletionResult), ...errorResponses(401, 403, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const items = request.body.completions;
    const errors: FieldError[] = [];
    const resolved = [];
    for (const [i, c] of items.entries()) {
      const [stage] = await stagesReaching(db, c.userid, { course_stageid: c.course_stageid });
      if (!stage) errors.push({ field: `completions[${i}].course_stageid`, code: 'invalid_value', message: `Stage ${c.course_stageid} is not assigned to user ${c.userid}.`, index: i });
      else resolved.push({ userid: c.userid, stage });
    }
    if (errors.length) throw unprocessable(errors);
    for (const userid of new Set(items.map((c) => c.userid))) forbiddenUnless(await managesUser(db, user, userid), `You do not manage user ${userid}.`);
    const moved = await bulkComplete(db, clock, config, user, resolved);
    return resolved.map((r, i) => ({ userid: r.userid, course_stageid: r.stage.course_stageid, wikiid: r.stage.wikiid, status: 'completed' as const, changed: moved[i] }));
  });

  // ---- completion views: the stored rows, those of users the caller reads

  const rowsQuery = (user: AuthUser) => db.selectFrom('course_assignees as ca').innerJoin('courses as c', 'c.wikiid', 'ca.wikiid')
    .selectAll('ca').where('ca.active', '=', 1).where('c.deleted', '=', 0).where(visibleUser(db, user, 'ca.userid'));
  const page = (q: { page: number; limit: number }) => ({ limit: q.limit, offset: (q.page - 1) * q.limit });
  const ordered = <T extends { orderBy: (c: any) => T }>(q: T) => q.orderBy('ca.wikiid').orderBy('ca.userid');

  app.get('/course_assignments/completion/course/:wikiid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Completion of a course by its assignees', description: `The assignees the caller reads (Admins all; leads their members; a user themself), by userid, paged. ${NOT_SHOWN}`, params: IdParam('wikiid'), querystring: PageQuery, response: { 200: Type.Array(CompletionRow), ...errorResponses(401, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    if (!(await findCourse(db, request.params.wikiid))) throw notFound('Course');
    await current({ wikiid: request.params.wikiid });
    const p = page(request.query);
    return completionRows(db, await rowsQuery(user).where('ca.wikiid', '=', request.params.wikiid).orderBy('ca.userid').limit(p.limit).offset(p.offset).execute());
  });

  app.get('/course_assignments/completion/team/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Completion of every course by a team\'s members', description: `Admins and the team's leads. By course, then userid, paged. ${NOT_SHOWN}`, params: TeamParam, querystring: PageQuery, response: { 200: Type.Array(CompletionRow), ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    await existingTeam(request.params.teamid);
    forbiddenUnless(await managesTeam(db, user, request.params.teamid), 'Only Admins and the team\'s leads see its completion.');
    const p = page(request.query);
    const members = db.selectFrom('team_members').select('userid').where('teamid', '=', request.params.teamid);
    return completionRows(db, await ordered(rowsQuery(user).where('ca.userid', 'in', members)).limit(p.limit).offset(p.offset).execute());
  });

  app.get('/course_assignments/completion/user/:userid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Completion of every course of a user', description: `The user themself, their team leads and Admins. ${NOT_SHOWN}`, params: UserParam, querystring: PageQuery, response: { 200: Type.Array(CompletionRow), ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { userid } = request.params;
    await existingUser(userid);
    forbiddenUnless(await readsUser(db, user, userid), 'Only the user, their team leads and Admins see their completion.');
    await current({ userid });
    const p = page(request.query);
    return completionRows(db, await ordered(rowsQuery(user).where('ca.userid', '=', userid)).limit(p.limit).offset(p.offset).execute());
  });

  app.get('/course_assignments/completion/team/:teamid/user/:userid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Completion of a team member\'s courses', description: `The member (404 when the user is not in the team), the team's leads and Admins. ${NOT_SHOWN}`, params: Type.Object({ teamid: Id(), userid: Id() }), querystring: PageQuery, response: { 200: Type.Array(CompletionRow), ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { teamid, userid } = request.params;
    if (!(await db.selectFrom('team_members').select('userid').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst())) throw notFound('Team member');
    forbiddenUnless(user.userid === userid || await managesTeam(db, user, teamid), 'Only the member, the team\'s leads and Admins see this.');
    await current({ userid });
    const p = page(request.query);
    return completionRows(db, await ordered(rowsQuery(user).where('ca.userid', '=', userid)).limit(p.limit).offset(p.offset).execute());
  });

  app.get('/course_assignments/completion/:wikiid/:userid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'A user\'s completion of one course, with its stages', description: `The user, their team leads and Admins; 404 when the course is not assigned to the user. ${NOT_SHOWN}`, params: Type.Object({ wikiid: Id(), userid: Id() }), response: { 200: CompletionDetail, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid, userid } = request.params;
    await existingUser(userid);
    forbiddenUnless(await readsUser(db, user, userid), 'Only the user, their team leads and Admins see their completion.');
    await current({ userid });
    const row = await rowsQuery(user).where('ca.wikiid', '=', wikiid).where('ca.userid', '=', userid).executeTakeFirst();
    if (!row) throw notFound('Course assignee');
    const [rec] = await completionRows(db, [row]);
    const stages = (await userStages(db, config, [{ wikiid, userid }])).get(`${wikiid}:${userid}`) ?? [];
    return { ...rec, stages: stages.map(({ wikiid: _w, doctype: _d, docid: _i, ...s }) => s) };
  });

  const listBodies = [
    ['courses', 'wikiids', 'ca.wikiid', 'Completion of several courses', 'Body `{"wikiids": [...]}` (1 to 100).'],
    ['teams', 'teamids', null, 'Completion of several teams\' members', 'Body `{"teamids": [...]}` (1 to 100); teams the caller may not see give no rows.'],
    ['users', 'userids', 'ca.userid', 'Completion of several users', 'Body `{"userids": [...]}` (1 to 100); users the caller may not see give no rows.'],
  ] as const;
  for (const [what, field, column, summary, text] of listBodies) {
    app.post(`/course_assignments/completion/${what}`, {
      config: { auth: 'user' },
      schema: { tags: TAG, summary, description: `${text} Rows of users the caller reads, by course then userid, at most 1,000. ${NOT_SHOWN}`, body: IdsBody(field), response: { 200: Type.Array(CompletionRow), ...errorResponses(401, 422) } },
    }, async (request) => {
      const user = requireUser(request);
      const ids = (request.body as Record<string, number[]>)[field];
      let q = rowsQuery(user);
      if (column) q = q.where(column, 'in', ids);
      else q = q.where('ca.userid', 'in', db.selectFrom('team_members').select('userid').where('teamid', 'in', ids).where(visibleTeam(db, user, 'teamid')));
      return completionRows(db, await ordered(q).limit(1000).execute());
    });
  }

  // ---- summaries

  async function individualSummaries(user: AuthUser, userids: number[] | null, p: { limit: number; offset: number }) {
    // Users with an active course, walked in userid order up to the page: a correlated
    // EXISTS over course_assignees_user per user (an IN over the subquery had SQLite
    // read every assignee row of the site for each page).
    const users = await db.selectFrom('users').select(['users.userid', 'users.username'])
      .where(({ exists, selectFrom }) => exists(selectFrom('course_assignees as has').select('has.userid').whereRef('has.userid', '=', 'users.userid').where('has.active', '=', 1)))
      .where(visibleUser(db, user, 'users.userid'))
      .$if(userids !== null, (q) => q.where('users.userid', 'in', userids!))
      .orderBy('users.userid').limit(p.limit).offset(p.offset).execute();
    if (!users.length) return [];
    const counts = await db.selectFrom('course_assignees as ca').innerJoin('courses as c', 'c.wikiid', 'ca.wikiid')
      .select((eb) => ['ca.userid', 'ca.status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('ca.overdue').as('overdue')])
      .where('ca.active', '=', 1).where('c.deleted', '=', 0).where('ca.userid', 'in', users.map((u) => u.userid))
      .groupBy(['ca.userid', 'ca.status']).execute();
    return users.map((u) => {
      const mine = counts.filter((c) => c.userid === u.userid);
      const n = (s: number) => Number(mine.find((c) => c.status === s)?.n ?? 0);
      return { userid: u.userid, username: u.username, courses_assigned: n(0) + n(1) + n(2), courses_completed: n(2), courses_in_progress: n(1), courses_not_started: n(0), courses_overdue: mine.reduce((a, c) => a + Number(c.overdue ?? 0), 0) };
    });
  }

  app.get('/course_assignments/individualSummaries', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Course summaries of users', description: `The users with courses whom the caller reads, by userid, paged. ${NOT_SHOWN}`, querystring: PageQuery, response: { 200: Type.Array(IndividualSummary), ...errorResponses(401, 422) } },
  }, async (request) => individualSummaries(requireUser(request), null, page(request.query)));

  app.get('/course_assignments/individualSummaries/:userid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Course summary of a user', description: `The user, their team leads and Admins. ${NOT_SHOWN}`, params: UserParam, response: { 200: IndividualSummary, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const { userid } = request.params;
    const row = await db.selectFrom('users').select(['userid', 'username']).where('userid', '=', userid).executeTakeFirst();
    if (!row) throw notFound('User');
    forbiddenUnless(await readsUser(db, user, userid), 'Only the user, their team leads and Admins see their summary.');
    await current({ userid });
    return (await individualSummaries(user, [userid], { limit: 1, offset: 0 }))[0]
      ?? { userid, username: row.username, courses_assigned: 0, courses_completed: 0, courses_in_progress: 0, courses_not_started: 0, courses_overdue: 0 };
  });

  async function teamSummaries(teams: Array<{ teamid: number; name: string }>) {
    if (!teams.length) return [];
    const ids = teams.map((t) => t.teamid);
    const [members, assigned, counts] = await Promise.all([
      db.selectFrom('team_members').select((eb) => ['teamid', eb.fn.countAll<number>().as('n')]).where('teamid', 'in', ids).groupBy('teamid').execute(),
      db.selectFrom('course_assignments as a').innerJoin('courses as c', 'c.wikiid', 'a.wikiid').select((eb) => ['a.assignee_teamid', eb.fn.countAll<number>().as('n')])
        .where('a.assignee_teamid', 'in', ids).where('a.cancelled', '=', 0).where('c.deleted', '=', 0).groupBy('a.assignee_teamid').execute(),
      db.selectFrom('team_members as tm').innerJoin('course_assignees as ca', 'ca.userid', 'tm.userid').innerJoin('courses as c', 'c.wikiid', 'ca.wikiid')
        .select((eb) => ['tm.teamid', 'ca.status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('ca.overdue').as('overdue')])
        .where('tm.teamid', 'in', ids).where('ca.active', '=', 1).where('c.deleted', '=', 0).groupBy(['tm.teamid', 'ca.status']).execute(),
    ]);
    return teams.map((t) => {
      const mine = counts.filter((c) => c.teamid === t.teamid);
      const n = (s: number) => Number(mine.find((c) => c.status === s)?.n ?? 0);
      const all = n(0) + n(1) + n(2);
      return {
        teamid: t.teamid, team_name: t.name, members_count: Number(members.find((m) => m.teamid === t.teamid)?.n ?? 0),
        courses_assigned: Number(assigned.find((a) => a.assignee_teamid === t.teamid)?.n ?? 0), assignees: all, completed: n(2), in_progress: n(1), not_started: n(0),
        overdue: mine.reduce((a, c) => a + Number(c.overdue ?? 0), 0), completion_percentage: all ? Math.floor((n(2) * 100) / all) : 0,
      };
    });
  }

  app.get('/course_assignments/teamSummaries', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Course summaries of teams', description: `The teams the caller leads (Admins: all), by teamid, paged. ${NOT_SHOWN}`, querystring: PageQuery, response: { 200: Type.Array(TeamSummary), ...errorResponses(401, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const p = page(request.query);
    return teamSummaries(await db.selectFrom('teams').select(['teamid', 'name']).where(visibleTeam(db, user, 'teamid')).orderBy('teamid').limit(p.limit).offset(p.offset).execute());
  });

  app.get('/course_assignments/teamSummaries/:teamid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Course summary of a team', description: `Admins and the team's leads. ${NOT_SHOWN}`, params: TeamParam, response: { 200: TeamSummary, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const team = await db.selectFrom('teams').select(['teamid', 'name']).where('teamid', '=', request.params.teamid).executeTakeFirst();
    if (!team) throw notFound('Team');
    forbiddenUnless(await managesTeam(db, user, team.teamid), 'Only Admins and the team\'s leads see its summary.');
    return (await teamSummaries([team]))[0];
  });

  // ---- sources and details

  async function sources(where: (q: ReturnType<typeof sourceQuery>) => ReturnType<typeof sourceQuery>) {
    const rows = await where(sourceQuery(db)).orderBy('a.course_assignmentid').limit(1000).execute();
    return rows.map((r) => ({
      course_assignmentid: r.course_assignmentid, wikiid: r.wikiid, course_title: r.title, via: r.assignee_teamid != null ? 'team' as const : 'user' as const,
      teamid: r.assignee_teamid, team_name: r.team_name ?? null, created_date: Number(r.created_date), due_within: r.due_within == null ? null : Number(r.due_within),
    }));
  }

  app.get('/course_assignments/sources/user/:assigneeid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'The assignments reaching a user, and through what', description: `Active assignments to the user and to the teams they are in. The user, their team leads and Admins. ${NOT_SHOWN}`, params: IdParam('assigneeid'), response: { 200: Type.Array(AssignmentSource), ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const userid = request.params.assigneeid;
    await existingUser(userid);
    forbiddenUnless(await readsUser(db, user, userid), 'Only the user, their team leads and Admins see this.');
    return sources((q) => q.where((eb) => eb.or([eb('a.assignee_userid', '=', userid), eb('a.assignee_teamid', 'in', db.selectFrom('team_members').select('teamid').where('userid', '=', userid))])));
  });

  app.get('/course_assignments/sources/team/:assigneeid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'The assignments reaching a team', description: `Active assignments to the team. Its leads and Admins. ${NOT_SHOWN}`, params: IdParam('assigneeid'), response: { 200: Type.Array(AssignmentSource), ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const teamid = request.params.assigneeid;
    await existingTeam(teamid);
    forbiddenUnless(await managesTeam(db, user, teamid), 'Only Admins and the team\'s leads see this.');
    return sources((q) => q.where('a.assignee_teamid', '=', teamid));
  });

  app.get('/course_assignments/courseAssignmentDetails/:course_assignmentid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'An assignment with the progress of the users it reaches', description: `Who may read the assignment. ${NOT_SHOWN}`, params: AssignmentParam, response: { 200: AssignmentDetails, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => {
    const user = requireUser(request);
    const a = await existingAssignment(request.params.course_assignmentid, user);
    if (!a.cancelled) await current({ wikiid: a.wikiid });
    const course = await db.selectFrom('courses').select('title').where('wikiid', '=', a.wikiid).executeTakeFirstOrThrow();
    const users = a.assignee_userid != null ? db.selectFrom('users').select('userid').where('userid', '=', a.assignee_userid) : db.selectFrom('team_members').select('userid').where('teamid', '=', a.assignee_teamid!);
    const counts = a.cancelled ? [] : await db.selectFrom('course_assignees').select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('wikiid', '=', a.wikiid).where('active', '=', 1).where('userid', 'in', users).groupBy('status').execute();
    const n = (s: number) => Number(counts.find((c) => c.status === s)?.n ?? 0);
    const people = await avatars(db, config, [a.userid_assigner, a.assignee_userid].filter((x): x is number => x != null));
    const team = a.assignee_teamid != null ? await db.selectFrom('teams').select('name').where('teamid', '=', a.assignee_teamid).executeTakeFirst() : undefined;
    const assigner = a.userid_assigner != null ? people.get(a.userid_assigner) : undefined;
    return {
      course_assignmentid: a.course_assignmentid, wikiid: a.wikiid, course_title: course.title, assignee_userid: a.assignee_userid, assignee_teamid: a.assignee_teamid,
      assignee_name: a.assignee_userid != null ? people.get(a.assignee_userid)?.name ?? '' : team?.name ?? '',
      assigner: { userid: a.userid_assigner, name: assigner?.name ?? '', avatar: assigner?.avatar ?? null },
      due_within: a.due_within == null ? null : Number(a.due_within), created_date: Number(a.created_date), cancelled: a.cancelled,
      users: n(0) + n(1) + n(2), completed: n(2), in_progress: n(1), not_started: n(0),
    };
  });
}

function sourceQuery(db: Db) {
  return db.selectFrom('course_assignments as a').innerJoin('courses as c', 'c.wikiid', 'a.wikiid').leftJoin('teams as t', 't.teamid', 'a.assignee_teamid')
    .select(['a.course_assignmentid', 'a.wikiid', 'c.title', 'a.assignee_teamid', 't.name as team_name', 'a.created_date', 'a.due_within'])
    .where('a.cancelled', '=', 0).where('c.deleted', '=', 0);
}

