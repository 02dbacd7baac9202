// Courses over HTTP: every endpoint of the course extension and of the course_assignments
// area with its body checked against its schema and a permission case; the stored
// assignee rows (orderby, status filter, search, team membership, expiry by the app's
// clock, idempotent job), the query count of the assignee list at 10 and 200 assignees.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';
import { expireCourses } from '../../../src/areas/courses/courses.jobs.js';
import * as courseReachStamp from '../../../src/db/migrations/2026_11_27_0400_course_reach_stamp.js';

const DAY = 86_400;
let admin: TestUser;
let author: TestUser;
let lead: TestUser;
let member: TestUser;
let outsider: TestUser;
let team: { teamid: number };
let ops: Map<string, Operation>;
let guides: any[];
const t = appForFile({ config: { tokenTtl: 10 * 365 * DAY } }, async () => {
  [admin, author, lead, member, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: member }]);
  guides = [await makePublishedGuide(t, author), await makePublishedGuide(t, author), await makePublishedGuide(t, author)];
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}

async function course(stages: Array<Record<string, unknown>> = guides.map((g) => ({ doctype: 'guide', docid: g.guideid })), extra: Record<string, unknown> = {}) {
  return checked(await t.post('/courses', { token: author.token, body: { title: `Course ${Math.random().toString(36).slice(2)}`, contents: 'x', stages, ...extra } }), 'POST /courses', 201);
}
async function assign(body: Record<string, unknown>, who: TestUser = admin) {
  return checked(await t.post('/course_assignments', { token: who.token, body }), 'POST /course_assignments', 201);
}

describe('courses (extension)', () => {
  it('create, read, list, change at a revision (409 when stale), stages kept by id, soft delete; Authors only', async () => {
    const c = await course(undefined, { publish_date: 1_900_000_000 });
    expect(c.stages.map((s: any) => s.orderby)).toEqual([0, 1, 2]);
    expect(c.stages[0]).toMatchObject({ doctype: 'guide', docid: guides[0].guideid, strictness: null, completion: null, title: guides[0].title });
    checked(await t.post('/courses', { token: member.token, body: { title: 'x', contents: 'y' } }), 'POST /courses', 403);
    const bad = checked(await t.post('/courses', { token: author.token, body: { title: 'x', contents: 'y', stages: [{ doctype: 'guide', docid: 999999 }, { doctype: 'guide', docid: guides[0].guideid, assessmenttype: 'signoff' }] } }), 'POST /courses', 422);
    expect(bad.errors.map((e: any) => e.field)).toEqual(['stages[0].docid', 'stages[1].teamid_signer']);
    expect(checked(await t.get(`/courses/${c.wikiid}`, { token: member.token }), 'GET /courses/{wikiid}', 200).title).toBe(c.title);
    const list = checked(await t.get('/courses?orderby=stages_count&direction=DESC&pageSize=5', { token: member.token }), 'GET /courses', 200);
    expect(list.courses.length).toBeGreaterThan(0);
    // PATCH: reorder and drop a stage, keep the others by id.
    const keep = [c.stages[2], c.stages[0]].map((s: any) => ({ course_stageid: s.course_stageid, doctype: 'guide', docid: s.docid, strictness: 'minor' }));
    const p = checked(await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid}`, { token: author.token, body: { title: 'Renamed', stages: keep } }), 'PATCH /courses/{wikiid}', 200);
    expect(p.stages.map((s: any) => [s.course_stageid, s.strictness])).toEqual([[c.stages[2].course_stageid, 'minor'], [c.stages[0].course_stageid, 'minor']]);
    expect(p.revisionid).not.toBe(c.revisionid);
    const stale = checked(await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid}`, { token: author.token, body: { title: 'Again' } }), 'PATCH /courses/{wikiid}', 409);
    expect(stale.title).toBe('Renamed');
    checked(await t.patch(`/courses/${c.wikiid}?revisionid=${p.revisionid}`, { token: member.token, body: { title: 'No' } }), 'PATCH /courses/{wikiid}', 403);
    // Delete: kept, gone from lists and reads, cannot be assigned.
    checked(await t.del(`/courses/${c.wikiid}`, { token: member.token }), 'DELETE /courses/{wikiid}', 403);
    checked(await t.del(`/courses/${c.wikiid}`, { token: author.token }), 'DELETE /courses/{wikiid}', 204);
    checked(await t.get(`/courses/${c.wikiid}`, { token: author.token }), 'GET /courses/{wikiid}', 404);
    checked(await t.post('/course_assignments', { token: admin.token, body: { wikiid: c.wikiid, assignee_userid: member.userid } }), 'POST /course_assignments', 422);
    expect(await t.db.selectFrom('courses').select('deleted').where('wikiid', '=', c.wikiid).executeTakeFirstOrThrow()).toEqual({ deleted: 1 });
    // Not a wiki of the six namespaces: /wikis/{namespace} refuses COURSE.
    expect((await t.get('/wikis/COURSE')).statusCode).toBeGreaterThanOrEqual(400);
  });
});

describe('assignments', () => {
  it('assign (lead for the team, 403 for others, 422 twice), read, deprecated read, cancel', async () => {
    const c = await course();
    checked(await t.post('/course_assignments', { token: outsider.token, body: { wikiid: c.wikiid, assignee_teamid: team.teamid } }), 'POST /course_assignments', 403);
    checked(await t.post('/course_assignments', { token: admin.token, body: { wikiid: c.wikiid, assignee_teamid: team.teamid, assignee_userid: member.userid } }), 'POST /course_assignments', 422);
    const a = await assign({ wikiid: c.wikiid, assignee_teamid: team.teamid }, lead);
    expect(checked(await t.post('/course_assignments', { token: lead.token, body: { wikiid: c.wikiid, assignee_teamid: team.teamid } }), 'POST /course_assignments', 422).errors[0].code).toBe('already_assigned');
    const direct = await assign({ wikiid: c.wikiid, assignee_userid: member.userid, due_within: DAY });
    expect(direct.user_completion_status).toHaveLength(3);
    expect(checked(await t.get(`/course_assignments/${a.course_assignmentid}`, { token: member.token }), 'GET /course_assignments/{course_assignmentid}', 200).assignee_teamid).toBe(team.teamid);
    checked(await t.get(`/course_assignments/team/${a.course_assignmentid}`, { token: lead.token }), 'GET /course_assignments/team/{course_assignmentid}', 200);
    expect(ops.get('GET /course_assignments/team/{course_assignmentid}')!.deprecated).toBe(true);
    checked(await t.get(`/course_assignments/${a.course_assignmentid}`, { token: outsider.token }), 'GET /course_assignments/{course_assignmentid}', 403);
    const details = checked(await t.get(`/course_assignments/courseAssignmentDetails/${a.course_assignmentid}`, { token: lead.token }), 'GET /course_assignments/courseAssignmentDetails/{course_assignmentid}', 200);
    expect(details).toMatchObject({ users: 2, not_started: 2, assigner: { userid: lead.userid } });
    const sources = checked(await t.get(`/course_assignments/sources/user/${member.userid}`, { token: member.token }), 'GET /course_assignments/sources/user/{assigneeid}', 200);
    expect(sources.filter((s: any) => s.wikiid === c.wikiid).map((s: any) => s.via).sort()).toEqual(['team', 'user']);
    checked(await t.get(`/course_assignments/sources/team/${team.teamid}`, { token: lead.token }), 'GET /course_assignments/sources/team/{assigneeid}', 200);
    checked(await t.get(`/course_assignments/sources/team/${team.teamid}`, { token: member.token }), 'GET /course_assignments/sources/team/{assigneeid}', 403);
    checked(await t.del(`/course_assignments/${direct.course_assignmentid}`, { token: member.token }), 'DELETE /course_assignments/{course_assignmentid}', 403);
    checked(await t.del(`/course_assignments/${direct.course_assignmentid}`, { token: admin.token }), 'DELETE /course_assignments/{course_assignmentid}', 204);
    checked(await t.del(`/course_assignments/${direct.course_assignmentid}`, { token: admin.token }), 'DELETE /course_assignments/{course_assignmentid}', 404);
    expect(checked(await t.get(`/course_assignments/${direct.course_assignmentid}`, { token: admin.token }), 'GET /course_assignments/{course_assignmentid}', 200).cancelled).toBe(1);
  });

  it('start, complete, invalidate, completeAll and invalidateAll for a user and a team, bulk stage completions', async () => {
    const c = await course();
    await assign({ wikiid: c.wikiid, assignee_teamid: team.teamid });
    const g = guides[0].guideid;
    checked(await t.patch(`/course_assignments/start/guide/${g}`, { token: outsider.token }), 'PATCH /course_assignments/start/{doctype}/{docid}', 404);
    const started = checked(await t.patch(`/course_assignments/start/guide/${g}`, { token: member.token }), 'PATCH /course_assignments/start/{doctype}/{docid}', 200);
    expect(started.stages.find((s: any) => s.wikiid === c.wikiid).status).toBe('started');
    checked(await t.patch(`/course_assignments/complete/guide/${g}`, { token: member.token, body: { revisionid: guides[1].revisionid } }), 'PATCH /course_assignments/complete/{doctype}/{docid}', 422);
    // Courses.StageCompleted goes through the webhook outbox in the completion's transaction.
    checked(await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: 'Courses', url: 'https://example.com/hooks', eventKeys: ['Courses.StageCompleted'], secretKey: 'a secret key for courses' } }), 'POST /webhooks/subscriptions', 201);
    checked(await t.patch(`/course_assignments/complete/guide/${g}`, { token: member.token, body: { revisionid: guides[0].revisionid } }), 'PATCH /course_assignments/complete/{doctype}/{docid}', 200);
    const events = await t.db.selectFrom('webhook_deliveries').select('event').where('event_key', '=', 'Courses.StageCompleted').execute();
    expect(events.map((e) => JSON.parse(e.event).data).filter((d: any) => d.userid === member.userid && d.course_stageid === c.stages[0].course_stageid)).toMatchObject([{ course_stageid: c.stages[0].course_stageid, doctype: 'guide', title: guides[0].title }]);
    checked(await t.patch(`/course_assignments/invalidate/guide/${g}/${member.userid}`, { token: outsider.token }), 'PATCH /course_assignments/invalidate/{doctype}/{docid}/{userid}', 403);
    const inv = checked(await t.patch(`/course_assignments/invalidate/guide/${g}/${member.userid}`, { token: lead.token }), 'PATCH /course_assignments/invalidate/{doctype}/{docid}/{userid}', 200);
    expect(inv.stages.find((s: any) => s.wikiid === c.wikiid).status).toBe('invalidated');
    checked(await t.patch(`/course_assignments/User/completeAll/${member.userid}`, { token: member.token, body: { wikiid: c.wikiid } }), 'PATCH /course_assignments/User/completeAll/{assignee_userid}', 403);
    const all = checked(await t.patch(`/course_assignments/User/completeAll/${member.userid}`, { token: lead.token, body: { wikiid: c.wikiid } }), 'PATCH /course_assignments/User/completeAll/{assignee_userid}', 200);
    expect(all).toEqual({ users: 1, changed: 3 });
    const row = await t.db.selectFrom('course_stage_completions').select(['manager_override_userid', 'via']).where('wikiid', '=', c.wikiid).where('userid', '=', member.userid).orderBy('course_assignment_stage_completionid', 'desc').executeTakeFirstOrThrow();
    expect(row).toEqual({ manager_override_userid: lead.userid, via: 'manager' });
    expect(checked(await t.patch(`/course_assignments/User/invalidateAll/${member.userid}`, { token: admin.token, body: { wikiid: c.wikiid } }), 'PATCH /course_assignments/User/invalidateAll/{assignee_userid}', 200)).toEqual({ users: 1, changed: 3 });
    // the lead's own account is left out of a team override (shared/oversight.ts): the member only
    expect(checked(await t.patch(`/course_assignments/Team/completeAll/${team.teamid}`, { token: lead.token, body: { wikiid: c.wikiid } }), 'PATCH /course_assignments/Team/completeAll/{assignee_teamid}', 200)).toEqual({ users: 1, changed: 3 });
    checked(await t.patch(`/course_assignments/Team/invalidateAll/${team.teamid}`, { token: member.token }), 'PATCH /course_assignments/Team/invalidateAll/{assignee_teamid}', 403);
    expect(checked(await t.patch(`/course_assignments/Team/invalidateAll/${team.teamid}`, { token: lead.token, body: { wikiid: c.wikiid } }), 'PATCH /course_assignments/Team/invalidateAll/{assignee_teamid}', 200)).toEqual({ users: 1, changed: 3 });
    const stage = c.stages[1].course_stageid;
    checked(await t.post('/course_assignments/stage_completions', { token: admin.token, body: { completions: [{ userid: outsider.userid, course_stageid: stage }] } }), 'POST /course_assignments/stage_completions', 422);
    checked(await t.post('/course_assignments/stage_completions', { token: member.token, body: { completions: [{ userid: member.userid, course_stageid: stage }] } }), 'POST /course_assignments/stage_completions', 403);
    const bulk = checked(await t.post('/course_assignments/stage_completions', { token: lead.token, body: { completions: [{ userid: member.userid, course_stageid: stage }] } }), 'POST /course_assignments/stage_completions', 200);
    expect(bulk).toEqual([{ userid: member.userid, course_stageid: stage, wikiid: c.wikiid, status: 'completed', changed: true }]);
  });

  it('completion views, summaries: rows of users the caller reads', async () => {
    const c = await course();
    await assign({ wikiid: c.wikiid, assignee_teamid: team.teamid });
    await t.patch(`/course_assignments/complete/guide/${guides[0].guideid}`, { token: member.token });
    const byCourse = checked(await t.get(`/course_assignments/completion/course/${c.wikiid}`, { token: lead.token }), 'GET /course_assignments/completion/course/{wikiid}', 200);
    expect(byCourse.map((r: any) => [r.userid, r.status]).sort()).toEqual([[lead.userid, 'Not Started'], [member.userid, 'In Progress']].sort());
    expect(checked(await t.get(`/course_assignments/completion/course/${c.wikiid}`, { token: member.token }), 'GET /course_assignments/completion/course/{wikiid}', 200).map((r: any) => r.userid)).toEqual([member.userid]);
    checked(await t.get(`/course_assignments/completion/team/${team.teamid}`, { token: lead.token }), 'GET /course_assignments/completion/team/{teamid}', 200);
    checked(await t.get(`/course_assignments/completion/team/${team.teamid}`, { token: outsider.token }), 'GET /course_assignments/completion/team/{teamid}', 403);
    checked(await t.get(`/course_assignments/completion/user/${member.userid}`, { token: member.token }), 'GET /course_assignments/completion/user/{userid}', 200);
    checked(await t.get(`/course_assignments/completion/user/${member.userid}`, { token: outsider.token }), 'GET /course_assignments/completion/user/{userid}', 403);
    checked(await t.get(`/course_assignments/completion/team/${team.teamid}/user/${member.userid}`, { token: member.token }), 'GET /course_assignments/completion/team/{teamid}/user/{userid}', 200);
    checked(await t.get(`/course_assignments/completion/team/${team.teamid}/user/${outsider.userid}`, { token: admin.token }), 'GET /course_assignments/completion/team/{teamid}/user/{userid}', 404);
    const one = checked(await t.get(`/course_assignments/completion/${c.wikiid}/${member.userid}`, { token: lead.token }), 'GET /course_assignments/completion/{wikiid}/{userid}', 200);
    expect(one.stages.map((s: any) => s.status)).toEqual(['completed', null, null]);
    checked(await t.get(`/course_assignments/completion/${c.wikiid}/${member.userid}`, { token: outsider.token }), 'GET /course_assignments/completion/{wikiid}/{userid}', 403);
    expect(checked(await t.post('/course_assignments/completion/courses', { token: admin.token, body: { wikiids: [c.wikiid] } }), 'POST /course_assignments/completion/courses', 200)).toHaveLength(2);
    expect(checked(await t.post('/course_assignments/completion/teams', { token: outsider.token, body: { teamids: [team.teamid] } }), 'POST /course_assignments/completion/teams', 200)).toEqual([]);
    expect(checked(await t.post('/course_assignments/completion/users', { token: lead.token, body: { userids: [member.userid] } }), 'POST /course_assignments/completion/users', 200).length).toBeGreaterThan(0);
    const ind = checked(await t.get(`/course_assignments/individualSummaries/${member.userid}`, { token: member.token }), 'GET /course_assignments/individualSummaries/{userid}', 200);
    expect(ind.courses_in_progress).toBeGreaterThan(0);
    checked(await t.get(`/course_assignments/individualSummaries/${member.userid}`, { token: outsider.token }), 'GET /course_assignments/individualSummaries/{userid}', 403);
    expect(checked(await t.get('/course_assignments/individualSummaries', { token: outsider.token }), 'GET /course_assignments/individualSummaries', 200)).toEqual([]);
    expect(checked(await t.get('/course_assignments/teamSummaries', { token: lead.token }), 'GET /course_assignments/teamSummaries', 200).map((s: any) => s.teamid)).toContain(team.teamid);
    checked(await t.get(`/course_assignments/teamSummaries/${team.teamid}`, { token: lead.token }), 'GET /course_assignments/teamSummaries/{teamid}', 200);
    checked(await t.get(`/course_assignments/teamSummaries/${team.teamid}`, { token: member.token }), 'GET /course_assignments/teamSummaries/{teamid}', 403);
  });
});

describe('releases', () => {
  it('a released wiki invalidates completions of its stages by strictness (minor: any release)', async () => {
    const wiki = await makeWiki(t, author);
    const c = await course([{ doctype: 'wiki', docid: wiki.wikiid, strictness: 'minor' }, { doctype: 'guide', docid: guides[0].guideid }]);
    const u = await makeUser(t);
    await assign({ wikiid: c.wikiid, assignee_userid: u.userid });
    const done = checked(await t.patch(`/course_assignments/complete/wiki/${wiki.wikiid}`, { token: u.token }), 'PATCH /course_assignments/complete/{doctype}/{docid}', 200);
    expect(done.stages[0]).toMatchObject({ status: 'completed', last_completion: { course_stage_doc_revisionid: wiki.revisionid } });
    expect((await t.post(`/wikis/${wiki.wikiid}/releases?revisionid=${wiki.revisionid}`, { token: author.token, body: { type: 'minor' } })).statusCode).toBe(201);
    const one = checked(await t.get(`/course_assignments/completion/${c.wikiid}/${u.userid}`, { token: u.token }), 'GET /course_assignments/completion/{wikiid}/{userid}', 200);
    expect(one.stages.map((s: any) => s.status)).toEqual(['invalidated', null]);
  });
});

describe('assignees', () => {
  it('users: orderby, status filter, search, paging; teams; a team member; membership followed; expiry by the clock, idempotent', async () => {
    const c = await course([{ doctype: 'guide', docid: guides[0].guideid, frequency_quantity: 10, frequency_unit: 'day' }, { doctype: 'guide', docid: guides[1].guideid }]);
    const t2 = await makeTeam(t, lead, []);
    const joiners = [await makeUser(t, { username: 'Zed Joiner' }), await makeUser(t, { username: 'Amy Joiner' })];
    await assign({ wikiid: c.wikiid, assignee_teamid: t2.teamid, due_within: 5 * DAY });
    const url = `/course_assignees/course/${c.wikiid}/users`;
    const op = 'GET /course_assignees/course/{wikiid}/users';
    expect(checked(await t.get(url, { token: admin.token }), op, 200)).toMatchObject({ totalAssignees: 1, hasMore: false });
    // Members who join later are reached; those who leave are not.
    for (const u of joiners) await t.db.insertInto('team_members').values({ teamid: t2.teamid, userid: u.userid, is_lead: 0, join_date: t.clock.now() }).execute();
    let res = checked(await t.get(`${url}?orderby=username&limit=2`, { token: admin.token }), op, 200);
    expect(res).toMatchObject({ totalAssignees: 3, hasMore: true });
    expect(res.response[0].username).toBe('Amy Joiner');
    await t.patch(`/course_assignments/complete/guide/${guides[0].guideid}`, { token: joiners[0].token });
    res = checked(await t.get(`${url}?status=in_progress`, { token: admin.token }), op, 200);
    expect(res.response.map((r: any) => r.userid)).toEqual([joiners[0].userid]);
    expect(res.response[0].recurrent_date).toBe(t.clock.now() + 10 * DAY);
    res = checked(await t.get(`${url}?orderby=stage_progress&direction=DESC&search=joiner`, { token: admin.token }), op, 200);
    expect(res.response.map((r: any) => r.userid)).toEqual([joiners[0].userid, joiners[1].userid]);
    checked(await t.get(`${url}?status=bogus`, { token: admin.token }), op, 422);
    // A rename reaches the stored copy that orderby and search use.
    expect((await t.patch(`/users/${joiners[0].userid}`, { token: admin.token, body: { username: 'Aaron Renamed' } })).statusCode).toBe(200);
    res = checked(await t.get(`${url}?orderby=username&limit=1`, { token: admin.token }), op, 200);
    expect(res.response.map((r: any) => [r.userid, r.username])).toEqual([[joiners[0].userid, 'Aaron Renamed']]);
    expect(checked(await t.get(`${url}?search=renamed`, { token: admin.token }), op, 200).response.map((r: any) => r.userid)).toEqual([joiners[0].userid]);
    expect(checked(await t.get(`${url}?search=zed`, { token: admin.token }), op, 200).response).toEqual([]);
    for (const orderby of ['status', 'assignment_date', 'due_date', 'course_completion_date', 'recurrence_date']) checked(await t.get(`${url}?orderby=${orderby}&direction=DESC`, { token: admin.token }), op, 200);
    // A plain user sees their own row only; a lead their members.
    expect(checked(await t.get(url, { token: joiners[1].token }), op, 200).response.map((r: any) => r.userid)).toEqual([joiners[1].userid]);
    expect(checked(await t.get(url, { token: lead.token }), op, 200).totalAssignees).toBe(3);
    await t.db.deleteFrom('team_members').where('teamid', '=', t2.teamid).where('userid', '=', joiners[1].userid).execute();
    expect(checked(await t.get(url, { token: admin.token }), op, 200).totalAssignees).toBe(2);

    const teams = checked(await t.get(`/course_assignees/course/${c.wikiid}/teams`, { token: lead.token }), 'GET /course_assignees/course/{wikiid}/teams', 200);
    expect(teams).toMatchObject({ totalAssignees: 1, response: [{ teamid: t2.teamid, members_count: 2, time_allotted: 5 * DAY, status: 'In Progress' }] });
    expect(checked(await t.get(`/course_assignees/course/${c.wikiid}/teams`, { token: outsider.token }), 'GET /course_assignees/course/{wikiid}/teams', 200).response).toEqual([]);
    const members = checked(await t.get(`/course_assignees/course/${c.wikiid}/teams/${t2.teamid}`, { token: lead.token }), 'GET /course_assignees/course/{wikiid}/teams/{teamid}', 200);
    expect(members.response).toHaveLength(2);
    checked(await t.get(`/course_assignees/course/${c.wikiid}/teams/${t2.teamid}`, { token: outsider.token }), 'GET /course_assignees/course/{wikiid}/teams/{teamid}', 403);
    checked(await t.get(`/course_assignees/course/${c.wikiid}/user/${joiners[0].userid}`, { token: outsider.token }), 'GET /course_assignees/course/{wikiid}/user/{userid}', 403);

    // Time: past the due date the not-completed rows are overdue; past the recurrence the stage expires.
    const stored = async () => t.db.selectFrom('course_assignees').select(['userid', 'status', 'overdue', 'completed_stages']).where('wikiid', '=', c.wikiid).where('userid', '=', joiners[0].userid).executeTakeFirstOrThrow();
    t.clock.advance(11 * DAY);
    // A read between runs answers what the run stores.
    const view = checked(await t.get(`/course_assignees/course/${c.wikiid}/user/${joiners[0].userid}`, { token: lead.token }), 'GET /course_assignees/course/{wikiid}/user/{userid}', 200);
    expect(view.stages[0].completion_status).toBe('expired');
    expect(await stored()).toMatchObject({ completed_stages: 0, overdue: 1, status: 1 });
    expect(await expireCourses(t.db, t.clock.now())).toBe(0);
    expect(await expireCourses(t.db, t.clock.now())).toBe(0);
  });

  it('the expiry job moves what is due and is idempotent', async () => {
    const c = await course([{ doctype: 'guide', docid: guides[2].guideid, frequency_quantity: 1, frequency_unit: 'week' }]);
    const u = await makeUser(t);
    await assign({ wikiid: c.wikiid, assignee_userid: u.userid });
    await t.patch(`/course_assignments/complete/guide/${guides[2].guideid}`, { token: u.token });
    // The completion made sure an expiry run is pending by the time its recurrence ends.
    const pending = await t.db.selectFrom('jobs').select('run_at').where('type', '=', 'courses.expiry').where('status', '=', 'pending').execute();
    expect(pending.some((j) => Number(j.run_at) <= t.clock.now() + 7 * DAY)).toBe(true);
    t.clock.advance(8 * DAY);
    // The scheduled run (the job the completion made sure of) does it; a second run finds nothing.
    await t.app.jobs.runDue();
    expect(await expireCourses(t.db, t.clock.now())).toBe(0);
    const st = await t.db.selectFrom('course_stage_statuses').select('status').where('userid', '=', u.userid).executeTakeFirstOrThrow();
    expect(st.status).toBe('expired');
    const row = await t.db.selectFrom('course_assignees').select(['status', 'completed_stages']).where('userid', '=', u.userid).where('wikiid', '=', c.wikiid).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 1, completed_stages: 0 });
  });

  it('a read of an unchanged course compares nothing; a write of what the comparison reads makes the next read compare again (the course_reach stamp)', async () => {
    const c = await course();
    const tm = await makeTeam(t, lead, []);
    const people = [await makeUser(t), await makeUser(t), await makeUser(t)];
    const join = (u: TestUser) => t.db.insertInto('team_members').values({ teamid: tm.teamid, userid: u.userid, is_lead: 0, join_date: t.clock.now() }).execute();
    await join(people[0]);
    await join(people[1]);
    await assign({ wikiid: c.wikiid, assignee_teamid: tm.teamid });
    const stamp = async () => Number((await t.db.selectFrom('cache_stamps').select('stamp').where('key', '=', 'course_reach').executeTakeFirst())?.stamp ?? -1);
    // What a read answers, and whether it compared the assignments' reach with the stored rows.
    const read = async () => {
      let compared = 0;
      t.app.dbHandle.setQueryListener!((e) => { if (e.query.sql.includes('from "course_assignments" as "ca"')) compared++; });
      try {
        const res = await t.get(`/course_assignees/course/${c.wikiid}/users?orderby=username`, { token: admin.token });
        expect(res.statusCode, res.body).toBe(200);
        return { compared: compared > 0, users: res.json().response.map((r: any) => r.userid).sort((a: number, b: number) => a - b) };
      } finally {
        t.app.dbHandle.setQueryListener!(null);
      }
    };
    const ids = (...us: TestUser[]) => us.map((u) => u.userid).sort((a, b) => a - b);
    // The assignment's own answer compared already (after its sync): this read need not.
    expect((await read()).users).toEqual(ids(lead, people[0], people[1]));
    expect(await read()).toEqual({ compared: false, users: ids(lead, people[0], people[1]) });
    // A member who joins (no write of the courses area) is reached at the next read.
    await join(people[2]);
    expect(await read()).toEqual({ compared: true, users: ids(lead, ...people) });
    // That read's own sync wrote the rows the stamp follows: the next read compares once
    // more and finds nothing; from then on none does.
    await read();
    expect((await read()).compared).toBe(false);
    // A stored row changed under the read (here by hand) is compared, and put right, again.
    await t.db.updateTable('course_assignees').set({ active: 0 }).where('wikiid', '=', c.wikiid).where('userid', '=', people[0].userid).execute();
    expect(await read()).toEqual({ compared: true, users: ids(lead, ...people) });
    // Status and progress (rewritten by every completion) and the copied name do not move the stamp.
    let s = await stamp();
    await t.db.updateTable('course_assignees').set({ completed_stages: 0, status: 0, username: 'x' }).where('wikiid', '=', c.wikiid).execute();
    await t.db.updateTable('users').set({ username: 'Renamed by hand' }).where('userid', '=', people[1].userid).execute();
    await t.db.updateTable('courses').set({ title: 'Renamed course' }).where('wikiid', '=', c.wikiid).execute();
    expect(await stamp()).toBe(s);
    // A write of a course's `deleted` (here set to what it was: a deleted course answers 404) and a user added: they do.
    await t.db.updateTable('courses').set({ deleted: 0 }).where('wikiid', '=', c.wikiid).execute();
    expect(await stamp()).toBe(s + 1);
    s = await stamp();
    await makeUser(t);
    expect(await stamp()).toBeGreaterThan(s);
    // The assignment cancelled (by hand, not through the API): nobody is reached any more.
    await t.db.updateTable('course_assignments').set({ cancelled: 1 }).where('wikiid', '=', c.wikiid).execute();
    expect(await read()).toEqual({ compared: true, users: [] });
    await read();
    expect(await read()).toEqual({ compared: false, users: [] });
  });

  it('migration 2026_11_27_0400_course_reach_stamp: down takes the stamp and its triggers away, up puts them back', async () => {
    const tm = await makeTeam(t, lead, []);
    const stamp = async () => (await t.db.selectFrom('cache_stamps').select('stamp').where('key', '=', 'course_reach').executeTakeFirst())?.stamp;
    const join = async () => t.db.insertInto('team_members').values({ teamid: tm.teamid, userid: (await makeUser(t)).userid, is_lead: 0, join_date: t.clock.now() }).execute();
    const before = Number(await stamp());
    await courseReachStamp.down(t.db);
    try {
      expect(await stamp()).toBeUndefined();
      await join();
    } finally {
      await courseReachStamp.up(t.db);
      // Past every stamp this process has seen (a kept comparison must not match again).
      await t.db.updateTable('cache_stamps').set({ stamp: before + 1 }).where('key', '=', 'course_reach').execute();
    }
    await join(); // a user (makeUser) and a member: two bumps
    expect(Number(await stamp())).toBe(before + 3);
  });

  it('the assignee list answers a page with the same number of queries at 10 and at 200 assignees', async () => {
    const count = async (n: number) => {
      const c = await course();
      const tm = await makeTeam(t, lead, []);
      const now = t.clock.now();
      const users = await Promise.all(Array.from({ length: n }, (_, i) => t.db.insertInto('users').values({ email: `qc${n}-${i}-${Math.random()}@example.com`, username: `QC ${i}`, username_lower: `qc ${i}`, password_hash: 'x', privileges: 'User', join_date: now } as any).returning('userid').executeTakeFirstOrThrow()));
      await t.db.insertInto('team_members').values(users.map((u) => ({ teamid: tm.teamid, userid: u.userid, is_lead: 0, join_date: now }))).execute();
      await assign({ wikiid: c.wikiid, assignee_teamid: tm.teamid });
      let q = 0;
      t.app.dbHandle.setQueryListener!(() => { q++; });
      try {
        const res = await t.get(`/course_assignees/course/${c.wikiid}/users?limit=10&orderby=due_date`, { token: admin.token });
        expect(res.json().totalAssignees).toBe(n + 1);
        expect(res.json().response).toHaveLength(10);
      } finally {
        t.app.dbHandle.setQueryListener!(null);
      }
      return q;
    };
    const small = await count(10);
    const big = await count(200);
    expect(big).toBe(small);
    expect(small).toBeLessThanOrEqual(16);
  });
});
