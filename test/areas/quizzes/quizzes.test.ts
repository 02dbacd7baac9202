// Quizzes v2 over HTTP: import (validated element by element), revisions, attach, list,
// getQuizzes, one, delete, categories; sessions: save, submit (scored on the server), cancel,
// bulk cancel, invalidate, list, read; the attempts limit of a course stage; the answer key
// hidden from learners; a pass completing the course stage. Every answer is checked
// against its schema in the OpenAPI document.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { ALL_CORRECT, HALF_CORRECT, QUIZ_JSON, importQuiz, makeCourse, stageStatus } from '../../helpers/factories/assessments.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';

let admin: TestUser;
let author: TestUser;
let learner: TestUser;
let other: TestUser;
let lead: TestUser;
let ops: Map<string, Operation>;

const t = appForFile({}, async () => {
  [admin, author, learner, other, lead] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
  await makeTeam(t, lead, [{ user: learner }]);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}
const fieldsOf = (res: LightMyRequestResponse | { errors?: Array<{ field: string }> }) =>
  (('json' in res && typeof res.json === 'function' ? res.json() : res).errors ?? []).map((e: { field: string }) => e.field);

/** A published guide with a quiz attached. */
async function quizOnGuide(body: Record<string, unknown> = {}) {
  const guide = await makePublishedGuide(t, author);
  const quiz = await importQuiz(t, author, body);
  checked(await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: guide.guideid } }), 'POST /quizzes/attach/guide', 200);
  return { guide, quiz };
}
const session = (quizid: number, guideid: number, answers: unknown) => ({ quizid, doctype: 'guide', docid: guideid, response_json: JSON.stringify(answers) });

describe('import and revisions', () => {
  it('an Author imports a quiz: 201 with its record, answer key included; nonMediaQuestionsCount leaves out html', async () => {
    const res = await t.post('/quizzes/import', { token: author.token, body: { quiz_json: QUIZ_JSON, passing_score: 80, category: 'Safety', description: 'LOTO' } });
    const q = checked(res, 'POST /quizzes/import', 201);
    expect(q).toMatchObject({ title: 'Lockout quiz', passing_score: 80, category: 'Safety', description: 'LOTO', deleted: 0, enabled: 1, nonMediaQuestionsCount: 4, modified_by: author.userid, answers_shown: true, documents: [] });
    expect(q.quiz_json.elements[0].correctAnswer).toBe('red');
  });

  it('a bad element is a 422 naming the element and the problem; nothing stored', async () => {
    const before = await t.db.selectFrom('quizzes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const bad = { ...QUIZ_JSON, elements: [QUIZ_JSON.elements[0], { name: 'q2', type: 'radiogroup', choices: ['a'], correctAnswer: 'b' }] };
    const res = await t.post('/quizzes/import', { token: author.token, body: { quiz_json: bad } });
    checked(res, 'POST /quizzes/import', 422);
    expect(fieldsOf(res)).toEqual(['quiz_json.elements[1].correctAnswer']);
    expect(res.json().errors[0].message).toContain('Element 1');
    checked(await t.post('/quizzes/import', { token: author.token, body: { quiz_json: { elements: [{ name: 'a', type: 'text' }] } } }), 'POST /quizzes/import', 422);
    checked(await t.post('/quizzes/import', { token: author.token, body: {} }), 'POST /quizzes/import', 422);
    const after = await t.db.selectFrom('quizzes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('permissions: anonymous 401, a plain user 403', async () => {
    checked(await t.post('/quizzes/import', { body: { quiz_json: QUIZ_JSON } }), 'POST /quizzes/import', 401);
    checked(await t.post('/quizzes/import', { token: learner.token, body: { quiz_json: QUIZ_JSON } }), 'POST /quizzes/import', 403);
  });

  it('a new revision with quizid and the current quiz_revisionid; a stale one is a 409 with the current quiz; old revisions read back', async () => {
    const q = await importQuiz(t, author);
    const res = await t.post('/quizzes/import', { token: author.token, body: { quizid: q.quizid, quiz_revisionid: q.quiz_revisionid, quiz_json: { ...QUIZ_JSON, title: 'Lockout quiz v2' } } });
    const v2 = checked(res, 'POST /quizzes/import', 201);
    expect(v2.quizid).toBe(q.quizid);
    expect(v2.quiz_revisionid).toBeGreaterThan(q.quiz_revisionid);
    expect(v2).toMatchObject({ title: 'Lockout quiz v2', passing_score: 75 });
    const stale = await t.post('/quizzes/import', { token: author.token, body: { quizid: q.quizid, quiz_revisionid: q.quiz_revisionid, quiz_json: QUIZ_JSON } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().quiz_revisionid).toBe(v2.quiz_revisionid);
    const old = checked(await t.get(`/quizzes/${q.quizid}?quiz_revisionid=${q.quiz_revisionid}`, { token: author.token }), 'GET /quizzes/{quizid}', 200);
    expect(old.title).toBe('Lockout quiz');
    checked(await t.post('/quizzes/import', { token: author.token, body: { quizid: q.quizid, quiz_json: QUIZ_JSON } }), 'POST /quizzes/import', 422);
  });
});

describe('attach, read, list, delete, categories', () => {
  it('attach to a guide and a wiki; unknown ones are 422s naming them; plain users 403', async () => {
    const guide = await makeGuide(t, author);
    const wiki = await makeWiki(t, author);
    const q = await importQuiz(t, author);
    checked(await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q.quizid, guideid: guide.guideid } }), 'POST /quizzes/attach/guide', 200);
    const res = checked(await t.post('/quizzes/attach/wiki', { token: admin.token, body: { quizid: q.quizid, wikiid: wiki.wikiid } }), 'POST /quizzes/attach/wiki', 200);
    expect(res.documents).toEqual([{ doctype: 'guide', docid: guide.guideid }, { doctype: 'wiki', docid: wiki.wikiid }]);
    expect(fieldsOf(checked(await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q.quizid, guideid: 999_999 } }), 'POST /quizzes/attach/guide', 422))).toEqual(['guideid']);
    expect(fieldsOf(checked(await t.post('/quizzes/attach/wiki', { token: author.token, body: { quizid: 999_999, wikiid: wiki.wikiid } }), 'POST /quizzes/attach/wiki', 422))).toEqual(['quizid']);
    checked(await t.post('/quizzes/attach/guide', { token: learner.token, body: { quizid: q.quizid, guideid: guide.guideid } }), 'POST /quizzes/attach/guide', 403);
    checked(await t.post('/quizzes/attach/wiki', { body: { quizid: q.quizid, wikiid: wiki.wikiid } }), 'POST /quizzes/attach/wiki', 401);
  });

  it('GET one: learners get no correctAnswer; Authors and team leads do; 404 for none', async () => {
    const q = await importQuiz(t, author);
    const forLearner = checked(await t.get(`/quizzes/${q.quizid}`, { token: learner.token }), 'GET /quizzes/{quizid}', 200);
    expect(forLearner.answers_shown).toBe(false);
    expect(forLearner.quiz_json.elements.some((e: object) => 'correctAnswer' in e)).toBe(false);
    expect(checked(await t.get(`/quizzes/${q.quizid}`, { token: lead.token }), 'GET /quizzes/{quizid}', 200).quiz_json.elements[0].correctAnswer).toBe('red');
    checked(await t.get('/quizzes/999999', { token: learner.token }), 'GET /quizzes/{quizid}', 404);
    checked(await t.get(`/quizzes/${q.quizid}`), 'GET /quizzes/{quizid}', 401);
  });

  it('getQuizzes by ids and by documents', async () => {
    const { guide, quiz } = await quizOnGuide();
    const q2 = await importQuiz(t, author);
    const res = checked(await t.post('/quizzes/getQuizzes', { token: learner.token, body: { quizids: [q2.quizid, 999_999], documents: [{ doctype: 'guide', docid: guide.guideid }] } }), 'POST /quizzes/getQuizzes', 200);
    expect(res.map((q: { quizid: number }) => q.quizid)).toEqual([quiz.quizid, q2.quizid]);
    expect(res[0].quiz_json.elements[0].correctAnswer).toBeUndefined();
    checked(await t.post('/quizzes/getQuizzes', { body: {} }), 'POST /quizzes/getQuizzes', 401);
  });

  it('GET /quizzes: entries with the guide, sorted and filtered by the documented params', async () => {
    const { guide, quiz } = await quizOnGuide({ category: 'Zeta category', quiz_json: { ...QUIZ_JSON, title: 'Zebra crossing quiz' } });
    const list = checked(await t.get('/quizzes?sort=quiz_title&order=ASC&limit=200', { token: learner.token }), 'GET /quizzes', 200);
    const titles = list.map((e: { quiz_title: string }) => e.quiz_title.toLowerCase());
    expect(titles).toEqual([...titles].sort());
    const entry = list.find((e: { quizid: number }) => e.quizid === quiz.quizid);
    expect(entry).toMatchObject({ guideid: guide.guideid, guide_title: guide.title, category: 'Zeta category', quizzes_submitted: 0, guide_release_version: null });
    const filtered = checked(await t.get('/quizzes?category=Zeta%20category', { token: learner.token }), 'GET /quizzes', 200);
    expect(filtered.map((e: { quizid: number }) => e.quizid)).toEqual([quiz.quizid]);
    const searched = checked(await t.get(`/quizzes?search=${encodeURIComponent(guide.title.slice(2, 12))}`, { token: learner.token }), 'GET /quizzes', 200);
    expect(searched.map((e: { quizid: number }) => e.quizid)).toContain(quiz.quizid);
    expect(checked(await t.get('/quizzes?search=zebra%20cross', { token: learner.token }), 'GET /quizzes', 200).map((e: { quizid: number }) => e.quizid)).toEqual([quiz.quizid]);
    const byDefault = checked(await t.get('/quizzes', { token: learner.token }), 'GET /quizzes', 200);
    expect(byDefault[0].quiz_last_released).toBeGreaterThanOrEqual(byDefault[byDefault.length - 1].quiz_last_released);
    for (const sort of ['guideid', 'category', 'guide_title', 'release_date', 'sessions_submitted']) checked(await t.get(`/quizzes?sort=${sort}`, { token: learner.token }), 'GET /quizzes', 200);
    checked(await t.get('/quizzes?sort=nope', { token: learner.token }), 'GET /quizzes', 422);
    checked(await t.get('/quizzes'), 'GET /quizzes', 401);
  });

  it('delete: Authors only; unknown ids 422; deleted quizzes leave the list and their documents but keep their category', async () => {
    const { guide, quiz } = await quizOnGuide({ category: 'Retired category' });
    checked(await t.post('/quizzes/delete', { token: learner.token, body: { quizids: [quiz.quizid] } }), 'POST /quizzes/delete', 403);
    expect(fieldsOf(checked(await t.post('/quizzes/delete', { token: author.token, body: { quizids: [quiz.quizid, 999_999] } }), 'POST /quizzes/delete', 422))).toEqual(['quizids[1]']);
    expect(checked(await t.post('/quizzes/delete', { token: author.token, body: { quizids: [quiz.quizid] } }), 'POST /quizzes/delete', 200)).toEqual({ deleted: [quiz.quizid] });
    checked(await t.post('/quizzes/delete', { token: author.token, body: { quizids: [quiz.quizid] } }), 'POST /quizzes/delete', 200);
    const list = checked(await t.get('/quizzes?limit=200', { token: learner.token }), 'GET /quizzes', 200);
    expect(list.some((e: { quizid: number }) => e.quizid === quiz.quizid)).toBe(false);
    expect(checked(await t.post('/quizzes/getQuizzes', { token: learner.token, body: { documents: [{ doctype: 'guide', docid: guide.guideid }] } }), 'POST /quizzes/getQuizzes', 200)).toEqual([]);
    const cats = checked(await t.get('/quizzes/categories', { token: learner.token }), 'GET /quizzes/categories', 200);
    expect(cats).toContainEqual({ name: 'Retired category' });
    checked(await t.get('/quizzes/categories'), 'GET /quizzes/categories', 401);
  });
});

describe('sessions', () => {
  it('save, then submit: scored on the server; failed then passed; the answer key shows once passed', async () => {
    const { guide, quiz } = await quizOnGuide();
    const saved = checked(await t.post('/quizzes/sessions/save', { token: learner.token, body: session(quiz.quizid, guide.guideid, { q1: 'red' }) }), 'POST /quizzes/sessions/save', 200);
    expect(saved).toMatchObject({ userid: learner.userid, quizid: quiz.quizid, doctype: 'guide', docid: guide.guideid, doc_revisionid: guide.revisionid, end_date: null, score: null, passed: null, cancelled: 0 });
    const again = checked(await t.post('/quizzes/sessions/save', { token: learner.token, body: session(quiz.quizid, guide.guideid, { q1: 'green' }) }), 'POST /quizzes/sessions/save', 200);
    expect(again.quiz_sessionid).toBe(saved.quiz_sessionid);
    const failed = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(failed.session).toMatchObject({ quiz_sessionid: saved.quiz_sessionid, score: 50, passed: 0 });
    expect(failed.results).toEqual([{ name: 'q1', correct: true }, { name: 'q2', correct: false }, { name: 'q3', correct: false }, { name: 'q4', correct: true }]);
    expect(failed.quiz.answers_shown).toBe(false);
    const passed = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(passed.session).toMatchObject({ score: 100, passed: 1 });
    expect(passed.session.quiz_sessionid).not.toBe(saved.quiz_sessionid);
    expect(passed.quiz.answers_shown).toBe(true);
    expect(passed.attempts_limit).toBeNull();
    const one = checked(await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token }), 'GET /quizzes/{quizid}', 200);
    expect(one.quiz_json.elements[0].correctAnswer).toBe('red');
    const list = checked(await t.get('/quizzes?limit=200', { token: learner.token }), 'GET /quizzes', 200);
    expect(list.find((e: { quizid: number }) => e.quizid === quiz.quizid).quizzes_submitted).toBe(2);
  });

  it('session errors: a quiz not attached, a bad response_json, a private guide, anonymous', async () => {
    const { guide, quiz } = await quizOnGuide();
    const other = await importQuiz(t, author);
    expect(fieldsOf(checked(await t.post('/quizzes/sessions/save', { token: learner.token, body: session(other.quizid, guide.guideid, {}) }), 'POST /quizzes/sessions/save', 422))).toEqual(['quizid']);
    expect(fieldsOf(checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: { ...session(quiz.quizid, guide.guideid, {}), response_json: '[1' } }), 'POST /quizzes/sessions/submit', 422))).toEqual(['response_json']);
    expect(fieldsOf(checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: { ...session(quiz.quizid, guide.guideid, {}), response_json: '[1]' } }), 'POST /quizzes/sessions/submit', 422))).toEqual(['response_json']);
    const hidden = await makeGuide(t, author);
    checked(await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: hidden.guideid } }), 'POST /quizzes/attach/guide', 200);
    checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, hidden.guideid, ALL_CORRECT) }), 'POST /quizzes/sessions/submit', 403);
    checked(await t.post('/quizzes/sessions/save', { body: session(quiz.quizid, guide.guideid, {}) }), 'POST /quizzes/sessions/save', 401);
  });

  it('the attempts limit of the stage assessment: used up is a 422; then the answer key shows; a pass completes the stage at the revision taken', async () => {
    const { guide, quiz } = await quizOnGuide();
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', attempts_limit: 2 }], [learner.userid, other.userid]);
    const first = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(first).toMatchObject({ attempts_limit: 2, attempts_used: 1, attempts_remaining: 1 });
    expect(first.quiz.answers_shown).toBe(false);
    const second = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(second).toMatchObject({ attempts_remaining: 0 });
    expect(second.quiz.answers_shown).toBe(true);
    // attempts used up: the learner reads the key on the quiz itself too
    expect(checked(await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token }), 'GET /quizzes/{quizid}', 200).quiz_json.elements[0].correctAnswer).toBe('red');
    expect(checked(await t.get(`/quizzes/${quiz.quizid}`, { token: other.token }), 'GET /quizzes/{quizid}', 200).answers_shown).toBe(false);
    const third = await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) });
    checked(third, 'POST /quizzes/sessions/submit', 422);
    expect(third.json().errors[0].code).toBe('attempts_used_up');
    expect(await stageStatus(t, stageids[0], learner.userid)).toBeNull();
    // the other learner passes: the stage completes on the revision taken
    const pass = checked(await t.post('/quizzes/sessions/submit', { token: other.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(await stageStatus(t, stageids[0], other.userid)).toBe('completed');
    const completion = await t.db.selectFrom('course_stage_completions').selectAll().where('userid', '=', other.userid).executeTakeFirstOrThrow();
    expect(completion).toMatchObject({ via: 'quiz', doc_revisionid: guide.revisionid, quiz_sessionid: pass.session.quiz_sessionid });
    // the lead invalidates the learner's sessions: attempts given back
    checked(await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`, { token: other.token }), 'PATCH /quizzes/sessions/userInvalidateAll/{userid}', 403);
    const inv = checked(await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`, { token: lead.token }), 'PATCH /quizzes/sessions/userInvalidateAll/{userid}', 200);
    expect(inv.userid).toBe(learner.userid);
    expect(inv.invalidated).toBeGreaterThanOrEqual(2); // these two, and the learner's sessions of earlier tests
    expect(checked(await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`, { token: admin.token }), 'PATCH /quizzes/sessions/userInvalidateAll/{userid}', 200).invalidated).toBe(0);
    checked(await t.patch('/quizzes/sessions/userInvalidateAll/999999', { token: admin.token }), 'PATCH /quizzes/sessions/userInvalidateAll/{userid}', 404);
    checked(await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`), 'PATCH /quizzes/sessions/userInvalidateAll/{userid}', 401);
    const retry = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(retry).toMatchObject({ attempts_used: 1, attempts_remaining: 1 });
    expect(await stageStatus(t, stageids[0], learner.userid)).toBe('completed');
  });

  it('a stage\'s own quiz_passing_score decides its completion', async () => {
    const { guide, quiz } = await quizOnGuide({ passing_score: 40 });
    const u = await makeUser(t);
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', quiz_passing_score: 90 }], [u.userid]);
    const r = checked(await t.post('/quizzes/sessions/submit', { token: u.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200);
    expect(r.session.passed).toBe(1);
    expect(await stageStatus(t, stageids[0], u.userid)).toBeNull();
  });

  it('cancel and bulk cancel: own open sessions; submitted ones only by Admins and leads; twice is a 422', async () => {
    const { guide, quiz } = await quizOnGuide();
    const open = checked(await t.post('/quizzes/sessions/save', { token: learner.token, body: session(quiz.quizid, guide.guideid, {}) }), 'POST /quizzes/sessions/save', 200);
    checked(await t.post('/quizzes/sessions/cancel', { token: other.token, body: { quiz_sessionid: open.quiz_sessionid } }), 'POST /quizzes/sessions/cancel', 403);
    expect(checked(await t.post('/quizzes/sessions/cancel', { token: learner.token, body: { quiz_sessionid: open.quiz_sessionid } }), 'POST /quizzes/sessions/cancel', 200).cancelled).toBe(1);
    checked(await t.post('/quizzes/sessions/cancel', { token: learner.token, body: { quiz_sessionid: open.quiz_sessionid } }), 'POST /quizzes/sessions/cancel', 422);
    checked(await t.post('/quizzes/sessions/cancel', { token: learner.token, body: { quiz_sessionid: 999_999 } }), 'POST /quizzes/sessions/cancel', 422);
    checked(await t.post('/quizzes/sessions/cancel', { body: { quiz_sessionid: open.quiz_sessionid } }), 'POST /quizzes/sessions/cancel', 401);
    const done = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200).session;
    const done2 = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) }), 'POST /quizzes/sessions/submit', 200).session;
    checked(await t.post('/quizzes/sessions/cancel', { token: learner.token, body: { quiz_sessionid: done.quiz_sessionid } }), 'POST /quizzes/sessions/cancel', 422);
    checked(await t.post('/quizzes/sessions/bulkCancel', { token: other.token, body: { quiz_sessionids: [done.quiz_sessionid] } }), 'POST /quizzes/sessions/bulkCancel', 403);
    expect(fieldsOf(checked(await t.post('/quizzes/sessions/bulkCancel', { token: lead.token, body: { quiz_sessionids: [done.quiz_sessionid, 999_999] } }), 'POST /quizzes/sessions/bulkCancel', 422))).toEqual(['quiz_sessionids[1]']);
    const bulk = checked(await t.post('/quizzes/sessions/bulkCancel', { token: lead.token, body: { quiz_sessionids: [done.quiz_sessionid, done2.quiz_sessionid] } }), 'POST /quizzes/sessions/bulkCancel', 200);
    expect(bulk.map((s: { cancelled: number }) => s.cancelled)).toEqual([1, 1]);
    checked(await t.post('/quizzes/sessions/bulkCancel', { body: { quiz_sessionids: [1] } }), 'POST /quizzes/sessions/bulkCancel', 401);
  });

  it('list and read: own sessions; a lead reads members\'; others 403', async () => {
    const { guide, quiz } = await quizOnGuide({ quiz_json: { ...QUIZ_JSON, title: 'Unique forklift quiz' } });
    const s = checked(await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) }), 'POST /quizzes/sessions/submit', 200).session;
    const mine = checked(await t.get('/quizzes/sessions?query=forklift', { token: learner.token }), 'GET /quizzes/sessions', 200);
    expect(mine.quizSessions.map((x: { quiz_sessionid: number }) => x.quiz_sessionid)).toEqual([s.quiz_sessionid]);
    expect(mine.quizSessions[0]).toMatchObject({ quiz_title: 'Unique forklift quiz', username: learner.username });
    expect(checked(await t.get('/quizzes/sessions?query=forklift', { token: other.token }), 'GET /quizzes/sessions', 200).quizSessions).toEqual([]);
    checked(await t.get(`/quizzes/sessions?userid=${learner.userid}`, { token: other.token }), 'GET /quizzes/sessions', 403);
    expect(checked(await t.get('/quizzes/sessions?query=forklift', { token: lead.token }), 'GET /quizzes/sessions', 200).quizSessions).toHaveLength(1);
    expect(checked(await t.get(`/quizzes/sessions?userid=${learner.userid}&quizid=${quiz.quizid}`, { token: admin.token }), 'GET /quizzes/sessions', 200).quizSessions).toHaveLength(1);
    checked(await t.get('/quizzes/sessions'), 'GET /quizzes/sessions', 401);
    const sub = checked(await t.get(`/quizzes/submissions/${s.quiz_sessionid}`, { token: learner.token }), 'GET /quizzes/submissions/{sessionid}', 200);
    expect(sub.results.every((r: { correct: boolean }) => r.correct)).toBe(true);
    expect(sub.session.quiz_sessionid).toBe(s.quiz_sessionid);
    checked(await t.get(`/quizzes/submissions/${s.quiz_sessionid}`, { token: lead.token }), 'GET /quizzes/submissions/{sessionid}', 200);
    checked(await t.get(`/quizzes/submissions/${s.quiz_sessionid}`, { token: other.token }), 'GET /quizzes/submissions/{sessionid}', 403);
    checked(await t.get('/quizzes/submissions/999999', { token: learner.token }), 'GET /quizzes/submissions/{sessionid}', 404);
    checked(await t.get(`/quizzes/submissions/${s.quiz_sessionid}`), 'GET /quizzes/submissions/{sessionid}', 401);
  });
});
