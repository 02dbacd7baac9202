// Course stage sign-offs over HTTP: request, pending, signers, cancel, respond (directly and
// over the shoulder with a single-use token), unacknowledged, acknowledge (the stage
// completes only then, and only on a pass); the assignee view's sign-off and quiz fields.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { DEFAULT_PASSWORD, makeAdmin, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeAuthor } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeCourse, stageStatus, importQuiz, ALL_CORRECT } from '../../helpers/factories/assessments.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';
import { stageAssessmentFields } from '../../../src/areas/sign-offs/assessment-fields.js';

let admin: TestUser;
let author: TestUser;
let trainer: TestUser;
let trainer2: TestUser;
let lead: TestUser;
let outsider: TestUser;
let team: { teamid: number; name: string };
let ops: Map<string, Operation>;

const t = appForFile({}, async () => {
  [admin, author, trainer, trainer2, lead, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: trainer }, { user: trainer2 }]);
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

const REQ = 'POST /courses/stage-sign-offs/requests';
const RESP = 'PATCH /courses/stage-sign-offs/responses';
const ACK = 'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/acknowledge';
const INIT = 'POST /courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword';

/** A trainee assigned a course whose one stage is a sign-off on a guide, signed by the team. */
async function setup() {
  const trainee = await makeUser(t);
  const guide = await makePublishedGuide(t, author);
  const { wikiid, stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'signoff', teamid_signer: team.teamid }], [trainee.userid]);
  return { trainee, guide, wikiid, stageid: stageids[0], assessment: stageids[0] };
}

describe('request, respond, acknowledge', () => {
  it('a pass completes the stage only when acknowledged; every response keeps who and when', async () => {
    const { trainee, guide, stageid, assessment } = await setup();
    const r = checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } }), REQ, 201);
    expect(r).toMatchObject({ stage_assessmentid: assessment, course_stageid: stageid, assessmenttype: 'signoff', teamid_signer: team.teamid, userid_requestor: trainee.userid, is_cancelled: 0, response_value: null, doctype: 'guide', docid: guide.guideid, doc_title: guide.title });
    expect(r.signoffTeam).toMatchObject({ teamid: team.teamid, name: team.name });
    const again = await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } });
    expect(checked(again, REQ, 422).errors[0].code).toBe('already_requested');
    const pending = checked(await t.get(`/courses/stage-sign-offs/requests/pending/${trainer.userid}`, { token: trainer.token }), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 200);
    expect(pending.map((p: { signoff_requestid: number }) => p.signoff_requestid)).toContain(r.signoff_requestid);
    // the trainee may not answer their own; feedback is required
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainee.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'me' } }), RESP, 403);
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: outsider.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'x' } }), RESP, 403);
    expect(fieldsOf(checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: '  ' } }), RESP, 422))).toEqual(['response_feedback']);
    const answered = checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'Clean isolation.' } }), RESP, 200);
    expect(answered).toMatchObject({ response_value: 'pass', response_feedback: 'Clean isolation.', userid_requestee: trainer.userid, response_type: 'direct', completed_at: t.clock.now(), response_acknowledged: 0 });
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer2.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'fail', response_feedback: 'No' } }), RESP, 422);
    expect(await stageStatus(t, stageid, trainee.userid)).toBeNull();
    const unack = checked(await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: trainee.token }), 'GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', 200);
    expect(unack.map((u: { signoff_requestid: number }) => u.signoff_requestid)).toEqual([r.signoff_requestid]);
    checked(await t.patch(`/courses/stage-sign-offs/responses/${r.signoff_requestid}/acknowledge`, { token: trainer.token }), ACK, 403);
    const acked = checked(await t.patch(`/courses/stage-sign-offs/responses/${r.signoff_requestid}/acknowledge`, { token: trainee.token }), ACK, 200);
    expect(acked).toMatchObject({ response_acknowledged: 1, acknowledged_at: t.clock.now() });
    expect(await stageStatus(t, stageid, trainee.userid)).toBe('completed');
    const completion = await t.db.selectFrom('course_stage_completions').selectAll().where('userid', '=', trainee.userid).executeTakeFirstOrThrow();
    expect(completion).toMatchObject({ via: 'signoff', signoff_requestid: r.signoff_requestid, doc_revisionid: guide.revisionid });
    checked(await t.patch(`/courses/stage-sign-offs/responses/${r.signoff_requestid}/acknowledge`, { token: trainee.token }), ACK, 422);
    expect(checked(await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: trainee.token }), 'GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', 200)).toEqual([]);
  });

  it('a fail acknowledged completes nothing; the trainee asks again', async () => {
    const { trainee, stageid, assessment } = await setup();
    const r = checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment, userid_requestee: trainer2.userid } }), REQ, 201);
    // asked of trainer2: trainer does not see it and may not answer
    const pending = checked(await t.get(`/courses/stage-sign-offs/requests/pending/${trainer.userid}`, { token: trainer.token }), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 200);
    expect(pending.map((p: { signoff_requestid: number }) => p.signoff_requestid)).not.toContain(r.signoff_requestid);
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'ok' } }), RESP, 403);
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer2.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'fail', response_feedback: 'Skipped the verify step.' } }), RESP, 200);
    checked(await t.patch(`/courses/stage-sign-offs/responses/${r.signoff_requestid}/acknowledge`, { token: trainee.token }), ACK, 200);
    expect(await stageStatus(t, stageid, trainee.userid)).toBeNull();
    checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } }), REQ, 201);
  });

  it('request errors: an unknown assessment, a stage not assigned, a requestee who may not sign, another\'s work log entry; anonymous 401', async () => {
    const { assessment } = await setup();
    expect(fieldsOf(checked(await t.post('/courses/stage-sign-offs/requests', { token: outsider.token, body: { stage_assessmentid: 999_999 } }), REQ, 422))).toEqual(['stage_assessmentid']);
    expect(fieldsOf(checked(await t.post('/courses/stage-sign-offs/requests', { token: outsider.token, body: { stage_assessmentid: assessment } }), REQ, 422))).toEqual(['stage_assessmentid']);
    const { trainee, assessment: a2 } = await setup();
    expect(fieldsOf(checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: a2, userid_requestee: outsider.userid } }), REQ, 422))).toEqual(['userid_requestee']);
    expect(fieldsOf(checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: a2, work_log_entryid: 999_999 } }), REQ, 422))).toEqual(['work_log_entryid']);
    checked(await t.post('/courses/stage-sign-offs/requests', { body: { stage_assessmentid: a2 } }), REQ, 401);
  });

  it('cancel (the path without /courses): the trainee asks again; twice, another user, unknown', async () => {
    const { trainee, assessment } = await setup();
    const r = checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } }), REQ, 201);
    checked(await t.del(`/stage-sign-offs/requests/${r.signoff_requestid}`, { token: outsider.token }), 'DELETE /stage-sign-offs/requests/{signoff_requestid}', 403);
    expect(checked(await t.del(`/stage-sign-offs/requests/${r.signoff_requestid}`, { token: trainee.token }), 'DELETE /stage-sign-offs/requests/{signoff_requestid}', 200).is_cancelled).toBe(1);
    checked(await t.del(`/stage-sign-offs/requests/${r.signoff_requestid}`, { token: trainee.token }), 'DELETE /stage-sign-offs/requests/{signoff_requestid}', 422);
    checked(await t.del('/stage-sign-offs/requests/999999', { token: trainee.token }), 'DELETE /stage-sign-offs/requests/{signoff_requestid}', 404);
    checked(await t.del(`/stage-sign-offs/requests/${r.signoff_requestid}`), 'DELETE /stage-sign-offs/requests/{signoff_requestid}', 401);
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'late' } }), RESP, 422);
    checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } }), REQ, 201);
  });

  it('signers of an assessment; lists of another user need the user, an Admin or a lead', async () => {
    const { trainee, assessment } = await setup();
    const signers = checked(await t.post(`/courses/stage-sign-offs/${assessment}/signers`, { token: trainee.token, body: {} }), 'POST /courses/stage-sign-offs/{stage_assessmentid}/signers', 200);
    expect(signers.map((s: { userid: number }) => s.userid).sort()).toEqual([lead.userid, trainer.userid, trainer2.userid].sort());
    const searched = checked(await t.post(`/courses/stage-sign-offs/${assessment}/signers`, { token: trainee.token, body: { search: trainer2.username } }), 'POST /courses/stage-sign-offs/{stage_assessmentid}/signers', 200);
    expect(searched.map((s: { userid: number }) => s.userid)).toEqual([trainer2.userid]);
    checked(await t.post('/courses/stage-sign-offs/999999/signers', { token: trainee.token, body: {} }), 'POST /courses/stage-sign-offs/{stage_assessmentid}/signers', 404);
    checked(await t.post(`/courses/stage-sign-offs/${assessment}/signers`, { body: {} }), 'POST /courses/stage-sign-offs/{stage_assessmentid}/signers', 401);
    checked(await t.get(`/courses/stage-sign-offs/requests/pending/${trainer.userid}`, { token: outsider.token }), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 403);
    checked(await t.get(`/courses/stage-sign-offs/requests/pending/${trainer.userid}`, { token: lead.token }), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 200);
    checked(await t.get('/courses/stage-sign-offs/requests/pending/999999', { token: admin.token }), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 404);
    checked(await t.get(`/courses/stage-sign-offs/requests/pending/${trainer.userid}`), 'GET /courses/stage-sign-offs/requests/pending/{userid}', 401);
    checked(await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: outsider.token }), 'GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', 403);
    checked(await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: admin.token }), 'GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', 200);
    checked(await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`), 'GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', 401);
  });
});

describe('over the shoulder', () => {
  it('the trainer\'s login and password on the trainee\'s device make a single-use token for that request only', async () => {
    const { trainee, stageid, assessment } = await setup();
    const r = checked(await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } }), REQ, 201);
    const other = await setup();
    const r2 = checked(await t.post('/courses/stage-sign-offs/requests', { token: other.trainee.token, body: { stage_assessmentid: other.assessment } }), REQ, 201);
    const path = `/courses/stage-sign-offs/responses/${r.signoff_requestid}/initializeViaPassword`;
    expect(checked(await t.post(path, { token: trainee.token, body: { login: trainer.email, password: 'wrong password' } }), INIT, 403).code).toBe('invalid_credentials');
    checked(await t.post(path, { token: trainee.token, body: { login: outsider.email, password: DEFAULT_PASSWORD } }), INIT, 403);
    checked(await t.post(path, { token: outsider.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 403);
    checked(await t.post(path, { body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 401);
    checked(await t.post('/courses/stage-sign-offs/responses/999999/initializeViaPassword', { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 404);
    const tok = checked(await t.post(path, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 200);
    expect(tok).toMatchObject({ signoff_requestid: r.signoff_requestid, userid_signer: trainer.userid, expires_at: t.clock.now() + 300 });
    const stored = await t.db.selectFrom('signoff_tokens').selectAll().where('signoff_requestid', '=', r.signoff_requestid).execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(tok.signoff_token);
    // not for another request
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: other.trainee.token, body: { signoff_requestid: r2.signoff_requestid, response_value: 'pass', response_feedback: 'ok', signoff_token: tok.signoff_token } }), RESP, 403);
    const done = checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainee.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'pass', response_feedback: 'Watched it done right.', signoff_token: tok.signoff_token } }), RESP, 200);
    expect(done).toMatchObject({ response_type: 'over_the_shoulder', userid_requestee: trainer.userid, response_value: 'pass' });
    // not twice: the token is used up (and the request answered)
    expect((await t.db.selectFrom('signoff_tokens').select('used_at').where('signoff_requestid', '=', r.signoff_requestid).executeTakeFirstOrThrow()).used_at).toBe(t.clock.now());
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: trainee.token, body: { signoff_requestid: r.signoff_requestid, response_value: 'fail', response_feedback: 'again', signoff_token: tok.signoff_token } }), RESP, 422);
    checked(await t.patch(`/courses/stage-sign-offs/responses/${r.signoff_requestid}/acknowledge`, { token: trainee.token }), ACK, 200);
    expect(await stageStatus(t, stageid, trainee.userid)).toBe('completed');
    // an answered request makes no more tokens; an expired token is refused
    checked(await t.post(path, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 422);
    const p2 = `/courses/stage-sign-offs/responses/${r2.signoff_requestid}/initializeViaPassword`;
    const tok2 = checked(await t.post(p2, { token: other.trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }), INIT, 200);
    t.clock.advance(301);
    checked(await t.patch('/courses/stage-sign-offs/responses', { token: other.trainee.token, body: { signoff_requestid: r2.signoff_requestid, response_value: 'pass', response_feedback: 'late', signoff_token: tok2.signoff_token } }), RESP, 403);
  });
});

describe('assignee view fields (stageAssessmentFields)', () => {
  it('fills quiz, session, attempts and sign-off fields for a page of stages; the key hidden until passed', async () => {
    const trainee = await makeUser(t);
    const guide = await makePublishedGuide(t, author);
    const guide2 = await makePublishedGuide(t, author);
    const quiz = await importQuiz(t, author);
    await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: guide.guideid } });
    const { stageids } = await makeCourse(t, [
      { doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', attempts_limit: 3 },
      { doctype: 'guide', docid: guide2.guideid, assessmenttype: 'signoff', teamid_signer: team.teamid },
    ], [trainee.userid]);
    const stages = await t.db.selectFrom('course_stages').selectAll().where('course_stageid', 'in', stageids).orderBy('position').execute();
    const ask = () => stageAssessmentFields(t.db, t.config, stages.map((s) => ({ ...s, userid: trainee.userid })));
    let fields = await ask();
    expect(fields.get(stageids[0])).toMatchObject({ quiz_attempts_remaining: 3, quiz_session: null, signoff: null });
    expect((fields.get(stageids[0])!.attached_quiz as any).quiz_json.elements[0].correctAnswer).toBeUndefined();
    expect(fields.get(stageids[1])!.signoff).toMatchObject({ stage_assessmentid: stageids[1], signoff_requestid: null, teamid_signer: team.teamid });
    await t.post('/quizzes/sessions/submit', { token: trainee.token, body: { quizid: quiz.quizid, doctype: 'guide', docid: guide.guideid, response_json: JSON.stringify(ALL_CORRECT) } });
    await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: stageids[1] } });
    fields = await ask();
    expect(fields.get(stageids[0])).toMatchObject({ quiz_attempts_remaining: 2, quiz_session: { passed: 1, score: 100 } });
    expect((fields.get(stageids[0])!.attached_quiz as any).quiz_json.elements[0].correctAnswer).toBe('red');
    expect(fields.get(stageids[1])!.signoff).toMatchObject({ userid_requestor: trainee.userid, is_cancelled: 0 });
  });
});
