// The answer key of a quiz is shown to a learner per revision: a pass of revision 1 shows
// revision 1's key, never that of a revision 2 imported afterwards (on every surface that
// shows a quiz: the quiz, getQuizzes, the course assignee view); used-up attempts show it.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { ALL_CORRECT, HALF_CORRECT, QUIZ_JSON, importQuiz, makeCourse } from '../../helpers/factories/assessments.js';

let author: TestUser;
let learner: TestUser;
const t = appForFile({}, async () => {
  [author, learner] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

const REVISED = { ...QUIZ_JSON, title: 'Lockout quiz v2', elements: QUIZ_JSON.elements.map((e) => (e.name === 'q4' ? { ...e, correctAnswer: 'Lockout' } : e)) };
const session = (quizid: number, guideid: number, answers: unknown) => ({ quizid, doctype: 'guide', docid: guideid, response_json: JSON.stringify(answers) });
const keyOf = (quiz: { quiz_json: { elements: Array<{ name: string; correctAnswer?: unknown }> } }) => quiz.quiz_json.elements.find((e) => e.name === 'q4')?.correctAnswer;

async function quizOnGuide() {
  const guide = await makePublishedGuide(t, author);
  const quiz = await importQuiz(t, author);
  expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: guide.guideid } })).statusCode).toBe(200);
  return { guide, quiz };
}

async function revise(quiz: { quizid: number; quiz_revisionid: number }) {
  const res = await t.post('/quizzes/import', { token: author.token, body: { quizid: quiz.quizid, quiz_revisionid: quiz.quiz_revisionid, quiz_json: REVISED } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('the answer key per revision', () => {
  it('a pass of revision 1 shows revision 1\'s key, not that of revision 2 imported afterwards', async () => {
    const { guide, quiz } = await quizOnGuide();
    const { wikiid } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', attempts_limit: 3 }], [learner.userid]);
    const passed = await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) });
    expect(passed.json()).toMatchObject({ session: { passed: 1, quiz_revisionid: quiz.quiz_revisionid }, quiz: { answers_shown: true } });
    expect((await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json().answers_shown).toBe(true);

    const v2 = await revise(quiz);
    const current = (await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json();
    expect(current).toMatchObject({ quiz_revisionid: v2.quiz_revisionid, answers_shown: false });
    expect(keyOf(current)).toBeUndefined();
    expect(JSON.stringify(current)).not.toContain('Lockout"');
    const [byDoc] = (await t.post('/quizzes/getQuizzes', { token: learner.token, body: { documents: [{ doctype: 'guide', docid: guide.guideid }] } })).json();
    expect(byDoc).toMatchObject({ quiz_revisionid: v2.quiz_revisionid, answers_shown: false });
    expect(keyOf(byDoc)).toBeUndefined();
    const view = (await t.get(`/course_assignees/course/${wikiid}/user/${learner.userid}`, { token: learner.token })).json();
    expect(view.stages[0].attached_quiz).toMatchObject({ quiz_revisionid: v2.quiz_revisionid });
    expect(keyOf(view.stages[0].attached_quiz)).toBeUndefined();

    // the revision passed still shows its own key
    const old = (await t.get(`/quizzes/${quiz.quizid}?quiz_revisionid=${quiz.quiz_revisionid}`, { token: learner.token })).json();
    expect(old).toMatchObject({ answers_shown: true });
    expect(keyOf(old)).toBe('Danger');
    // ... and the submission of revision 1 too
    const sub = (await t.get(`/quizzes/submissions/${passed.json().session.quiz_sessionid}`, { token: learner.token })).json();
    expect(sub.quiz).toMatchObject({ quiz_revisionid: quiz.quiz_revisionid, answers_shown: true });

    // passing revision 2 shows its key
    const again = await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, { ...ALL_CORRECT, q4: 'lockout' }) });
    expect(again.json()).toMatchObject({ session: { passed: 1, quiz_revisionid: v2.quiz_revisionid }, quiz: { answers_shown: true } });
    expect(keyOf((await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json())).toBe('Lockout');
    const after = (await t.get(`/course_assignees/course/${wikiid}/user/${learner.userid}`, { token: learner.token })).json();
    expect(keyOf(after.stages[0].attached_quiz)).toBe('Lockout');
  });

  it('attempts used up show the key of the current revision', async () => {
    const { guide, quiz } = await quizOnGuide();
    await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', attempts_limit: 1 }], [learner.userid]);
    const failed = await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(quiz.quizid, guide.guideid, HALF_CORRECT) });
    expect(failed.json()).toMatchObject({ session: { passed: 0 }, attempts_remaining: 0, quiz: { answers_shown: true } });
    await revise(quiz);
    const current = (await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json();
    expect(current.answers_shown).toBe(true);
    expect(keyOf(current)).toBe('Lockout');
  });
});
