// Skills over HTTP: weights (read, change, validation), supervisor ratings (many, one), the
// breakdown, the matrix, a team's courses, course and guide assignees; and the whole path:
// a quiz attached to a course stage's guide, failed once and passed once by a learner, the
// stage completes and the rating moves.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { ALL_CORRECT, HALF_CORRECT, importQuiz, makeCourse, stageStatus } from '../../helpers/factories/assessments.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';

let admin: TestUser;
let author: TestUser;
let lead: TestUser;
let member: TestUser;
let member2: TestUser;
let outsider: TestUser;
let team: { teamid: number; name: string };
let ops: Map<string, Operation>;

const t = appForFile({}, async () => {
  [admin, author, lead, member, member2, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: member }, { user: member2 }]);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}
const fieldsOf = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field);
const W = 'PUT /skills/weights';

describe('weights', () => {
  it('read by Admins and leads; changed by Admins; each group sums to 1; omitted groups unchanged', async () => {
    const w = checked(await t.get('/skills/weights', { token: lead.token }), 'GET /skills/weights', 200);
    expect(w).toEqual({ top: { user: 0.5, management: 0.5 }, user: { training: 0.5, quiz: 0.3, practice: 0.2 }, management: { signoff: 0.5, supervisor: 0.5 } });
    checked(await t.get('/skills/weights', { token: outsider.token }), 'GET /skills/weights', 403);
    checked(await t.get('/skills/weights'), 'GET /skills/weights', 401);
    // a team without courses (an empty list of courses is no query error on PostgreSQL)
    const empty = await makeTeam(t, lead);
    expect(checked(await t.get(`/skills/teams/${empty.teamid}/courses`, { token: lead.token }), 'GET /skills/teams/{teamid}/courses', 200)).toEqual([]);
    checked(await t.put('/skills/weights', { token: lead.token, body: { top: { user: 0.5, management: 0.5 } } }), W, 403);
    expect(fieldsOf(checked(await t.put('/skills/weights', { token: admin.token, body: { user: { training: 0.5, quiz: 0.3, practice: 0.3 } } }), W, 422))).toEqual(['user']);
    checked(await t.put('/skills/weights', { token: admin.token, body: { user: { training: 0.5, quiz: 0.5 } } }), W, 422);
    checked(await t.put('/skills/weights', { token: admin.token, body: { top: { user: 1.5, management: -0.5 } } }), W, 422);
    const changed = checked(await t.put('/skills/weights', { token: admin.token, body: { top: { user: 0.7, management: 0.3 } } }), W, 200);
    expect(changed).toEqual({ ...w, top: { user: 0.7, management: 0.3 } });
    checked(await t.put('/skills/weights', { token: admin.token, body: { top: { user: 0.5, management: 0.5 } } }), W, 200);
  });
});

describe('ratings', () => {
  it('supervisor ratings (many and one), then the breakdown with its arithmetic; leads for their members only', async () => {
    const guide = await makePublishedGuide(t, author);
    const many = checked(await t.post('/skills/ratings/supervisor', { token: lead.token, body: { ratings: [{ userid: member.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }, { userid: member2.userid, doctype: 'guide', docid: guide.guideid, rating: 1 }] } }), 'POST /skills/ratings/supervisor', 200);
    expect(many.map((r: { rating: number }) => r.rating)).toEqual([0.5, 1]);
    checked(await t.post('/skills/ratings/supervisor', { token: lead.token, body: { ratings: [{ userid: outsider.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }] } }), 'POST /skills/ratings/supervisor', 403);
    checked(await t.post('/skills/ratings/supervisor', { token: outsider.token, body: { ratings: [{ userid: member.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }] } }), 'POST /skills/ratings/supervisor', 403);
    expect(fieldsOf(checked(await t.post('/skills/ratings/supervisor', { token: admin.token, body: { ratings: [{ userid: member.userid, doctype: 'guide', docid: 999_999, rating: 0.5 }] } }), 'POST /skills/ratings/supervisor', 422))).toEqual(['ratings[0].docid']);
    checked(await t.post('/skills/ratings/supervisor', { token: admin.token, body: { ratings: [{ userid: member.userid, doctype: 'guide', docid: guide.guideid, rating: 2 }] } }), 'POST /skills/ratings/supervisor', 422);
    checked(await t.post('/skills/ratings/supervisor', { body: { ratings: [] } }), 'POST /skills/ratings/supervisor', 401);
    const one = checked(await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${member.userid}`, { token: admin.token, body: { rating: 0.8 } }), 'POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}', 200);
    expect(one).toMatchObject({ userid: member.userid, rating: 0.8, rated_by: admin.userid });
    checked(await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${outsider.userid}`, { token: lead.token, body: { rating: 0.8 } }), 'POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}', 403);
    checked(await t.post(`/skills/ratings/supervisor/guide/999999/${member.userid}`, { token: admin.token, body: { rating: 0.8 } }), 'POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}', 404);
    checked(await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${member.userid}`, { body: { rating: 0.8 } }), 'POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}', 401);
    // no course stage, no quiz, no sign-off, no work log: user = training 0 (w 0.5/0.7) + practice 0 (0.2/0.7) = 0;
    // management = supervisor alone = 0.8; total = 0.5·0 + 0.5·0.8 = 0.4
    const b = checked(await t.get(`/skills/ratings/guide/${guide.guideid}/${member.userid}`, { token: lead.token }), 'GET /skills/ratings/{doctype}/{docid}/{userid}', 200);
    expect(b.rating).toBe(0.4);
    expect(b.groups[1].components).toEqual([
      { component: 'signoff', weight: 0.5, applied_weight: 0, value: null, contribution: 0 },
      { component: 'supervisor', weight: 0.5, applied_weight: 1, value: 0.8, contribution: 0.8 },
    ]);
    checked(await t.get(`/skills/ratings/guide/${guide.guideid}/${outsider.userid}`, { token: lead.token }), 'GET /skills/ratings/{doctype}/{docid}/{userid}', 403);
    checked(await t.get(`/skills/ratings/guide/${guide.guideid}/999999`, { token: admin.token }), 'GET /skills/ratings/{doctype}/{docid}/{userid}', 404);
    checked(await t.get(`/skills/ratings/guide/${guide.guideid}/${member.userid}`), 'GET /skills/ratings/{doctype}/{docid}/{userid}', 401);
  });

  it('over HTTP: a quiz on a course stage\'s guide, failed once and passed once: the stage completes and the rating moves; matrix, team courses, assignees', async () => {
    const guide = await makePublishedGuide(t, author);
    const quiz = await importQuiz(t, author);
    await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: guide.guideid } });
    const { wikiid, stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', attempts_limit: 3 }], [member.userid], [team.teamid]);
    const rating = async () => checked(await t.get(`/skills/ratings/guide/${guide.guideid}/${member.userid}`, { token: admin.token }), 'GET /skills/ratings/{doctype}/{docid}/{userid}', 200).rating;
    // nothing yet: user = 0 (training 0, quiz 0, practice 0), management left out: 0
    expect(await rating()).toBe(0);
    const body = (answers: unknown) => ({ quizid: quiz.quizid, doctype: 'guide', docid: guide.guideid, response_json: JSON.stringify(answers) });
    expect((await t.post('/quizzes/sessions/submit', { token: member.token, body: body(HALF_CORRECT) })).json().session.passed).toBe(0);
    expect(await stageStatus(t, stageids[0], member.userid)).toBeNull();
    expect(await rating()).toBe(0);
    expect((await t.post('/quizzes/sessions/submit', { token: member.token, body: body(ALL_CORRECT) })).json().session.passed).toBe(1);
    expect(await stageStatus(t, stageids[0], member.userid)).toBe('completed');
    // user = 0.5·1 (training) + 0.3·1 (quiz 100%) + 0.2·0 (practice) = 0.8; management left out: total 0.8
    expect(await rating()).toBe(0.8);

    const matrix = checked(await t.post('/skills/matrix', { token: lead.token, body: { userids: [member.userid, member2.userid], guideids: [guide.guideid] } }), 'POST /skills/matrix', 200);
    expect(matrix.ratings).toEqual([{ userid: member.userid, guideid: guide.guideid, rating: 0.8 }, { userid: member2.userid, guideid: guide.guideid, rating: 0 }]);
    expect(matrix.guides[0]).toMatchObject({ guideid: guide.guideid, title: guide.title, average_rating: 0.4 });
    checked(await t.post('/skills/matrix', { token: lead.token, body: { userids: [outsider.userid], guideids: [guide.guideid] } }), 'POST /skills/matrix', 403);
    expect(fieldsOf(checked(await t.post('/skills/matrix', { token: admin.token, body: { userids: [member.userid], guideids: [999_999] } }), 'POST /skills/matrix', 422))).toEqual(['guideids[0]']);
    checked(await t.post('/skills/matrix', { token: outsider.token, body: { userids: [member.userid], guideids: [guide.guideid] } }), 'POST /skills/matrix', 403);
    checked(await t.post('/skills/matrix', { body: { userids: [1], guideids: [1] } }), 'POST /skills/matrix', 401);

    const courses = checked(await t.get(`/skills/teams/${team.teamid}/courses`, { token: lead.token }), 'GET /skills/teams/{teamid}/courses', 200);
    // members: lead 0, member 0.8, member2 0 → 0.266667
    expect(courses).toEqual([expect.objectContaining({ wikiid, stages_count: 1, members_count: 3, average_rating: 0.266667 })]);
    checked(await t.get(`/skills/teams/${team.teamid}/courses`, { token: member.token }), 'GET /skills/teams/{teamid}/courses', 403);
    checked(await t.get('/skills/teams/999999/courses', { token: admin.token }), 'GET /skills/teams/{teamid}/courses', 404);
    checked(await t.get(`/skills/teams/${team.teamid}/courses`), 'GET /skills/teams/{teamid}/courses', 401);

    const ca = checked(await t.get(`/skills/courses/${wikiid}/assignees`, { token: admin.token }), 'GET /skills/courses/{wikiid}/assignees', 200);
    expect(ca.users).toEqual([{ userid: member.userid, username: member.username, rating: 0.8 }]);
    expect(ca.teams).toEqual([{ teamid: team.teamid, name: team.name, members_count: 3, average_rating: 0.266667 }]);
    checked(await t.get(`/skills/courses/${wikiid}/assignees`, { token: outsider.token }), 'GET /skills/courses/{wikiid}/assignees', 403);
    checked(await t.get('/skills/courses/999999/assignees', { token: admin.token }), 'GET /skills/courses/{wikiid}/assignees', 404);
    checked(await t.get(`/skills/courses/${wikiid}/assignees`), 'GET /skills/courses/{wikiid}/assignees', 401);

    const ga = checked(await t.get(`/skills/guides/${guide.guideid}/assignees`, { token: lead.token }), 'GET /skills/guides/{guideid}/assignees', 200);
    // the lead oversees their members, never their own account (shared/oversight.ts): member and member2
    expect(ga.total).toBe(2);
    expect(ga.assignees.map((a: { userid: number }) => a.userid)).not.toContain(lead.userid);
    expect(ga.assignees.find((a: { userid: number }) => a.userid === member.userid)).toMatchObject({ rating: 0.8, training: 1, quiz: 1, practice: 0, signoff: null, supervisor: null });
    expect(ga.averages.quiz).toBe(0.5);
    checked(await t.get(`/skills/guides/${guide.guideid}/assignees`, { token: outsider.token }), 'GET /skills/guides/{guideid}/assignees', 403);
    checked(await t.get('/skills/guides/999999/assignees', { token: admin.token }), 'GET /skills/guides/{guideid}/assignees', 404);
    checked(await t.get(`/skills/guides/${guide.guideid}/assignees`), 'GET /skills/guides/{guideid}/assignees', 401);
  });
});
