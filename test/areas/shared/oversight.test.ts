// One oversight relation (src/areas/shared/oversight.ts, issue 61 §2): a team lead never
// oversees their own account: completing, invalidating, rating, reading as a supervisor or
// cancelling their own quiz sessions is refused on every route that asks "Admins and the
// user's team leads". An Admin may act on their own account, and the record says so
// (`self_override: true`). On today's main the lead completed their own course.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { ALL_CORRECT, importQuiz, makeCourse, stageStatus } from '../../helpers/factories/assessments.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

const session = (quizid: number, guideid: number, answers: unknown) => ({ quizid, doctype: 'guide', docid: guideid, response_json: JSON.stringify(answers) });

/** A guide with a quiz attached, a course with a plain stage and a quiz stage on it assigned to `who`, and a submitted (passed) quiz session of theirs. */
async function trainingOf(who: TestUser) {
  const guide = await makePublishedGuide(t, author);
  const quiz = await importQuiz(t, author);
  expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: quiz.quizid, guideid: guide.guideid } })).statusCode).toBe(200);
  const course = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid }, { doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz', quiz_passing_score: 75 }], [who.userid]);
  const submitted = await t.post('/quizzes/sessions/submit', { token: who.token, body: session(quiz.quizid, guide.guideid, ALL_CORRECT) });
  expect(submitted.statusCode, submitted.body).toBe(200);
  return { guide, quiz, course, sessionid: submitted.json().session.quiz_sessionid as number };
}

describe('a team lead does not oversee themself', () => {
  it('every oversight route refuses the lead\'s own account and changes nothing; the lead still oversees their other members', async () => {
    const lead = await makeUser(t);
    const member = await makeUser(t);
    const team = await makeTeam(t, lead, [{ user: member }]);
    const { guide, course, sessionid } = await trainingOf(lead);
    // the quiz pass completed the quiz stage; the plain stage is open
    expect(await stageStatus(t, course.stageids[0], lead.userid)).toBe(null);
    const own = lead.userid;
    const refused: Array<[string, () => Promise<{ statusCode: number; body: string }>]> = [
      ['PATCH completeAll', () => t.patch(`/course_assignments/User/completeAll/${own}`, { token: lead.token })],
      ['PATCH invalidateAll', () => t.patch(`/course_assignments/User/invalidateAll/${own}`, { token: lead.token })],
      ['PATCH invalidate', () => t.patch(`/course_assignments/invalidate/guide/${guide.guideid}/${own}`, { token: lead.token })],
      ['POST stage_completions', () => t.post('/course_assignments/stage_completions', { token: lead.token, body: { completions: [{ userid: own, course_stageid: course.stageids[0] }] } })],
      ['POST supervisor rating', () => t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${own}`, { token: lead.token, body: { rating: 1 } })],
      ['POST supervisor ratings', () => t.post('/skills/ratings/supervisor', { token: lead.token, body: { ratings: [{ userid: own, doctype: 'guide', docid: guide.guideid, rating: 1 }] } })],
      ['GET rating breakdown', () => t.get(`/skills/ratings/guide/${guide.guideid}/${own}`, { token: lead.token })],
      ['PATCH userInvalidateAll', () => t.patch(`/quizzes/sessions/userInvalidateAll/${own}`, { token: lead.token })],
    ];
    for (const [name, send] of refused) {
      const res = await send();
      expect(res.statusCode, `${name}: ${res.body}`).toBe(403);
    }
    // cancelling their own submitted session is an override: refused as it is for any learner
    const cancel = await t.post('/quizzes/sessions/cancel', { token: lead.token, body: { quiz_sessionid: sessionid } });
    expect(cancel.statusCode, cancel.body).toBe(422);
    expect(cancel.json().errors[0].code).toBe('invalid_transition');
    // nothing moved
    expect(await stageStatus(t, course.stageids[0], own)).toBe(null);
    expect(await stageStatus(t, course.stageids[1], own)).toBe('completed');
    expect(await t.db.selectFrom('skills_supervisor_ratings').select('userid').where('userid', '=', own).execute()).toEqual([]);
    expect((await t.db.selectFrom('quiz_sessions').select('cancelled').where('quiz_sessionid', '=', sessionid).executeTakeFirstOrThrow()).cancelled).toBe(0);
    // the team override leaves the lead's own account out
    const teamAll = await t.patch(`/course_assignments/Team/completeAll/${team.teamid}`, { token: lead.token });
    expect(teamAll.statusCode, teamAll.body).toBe(200);
    expect(teamAll.json().users).toBe(1);
    expect(await stageStatus(t, course.stageids[0], own)).toBe(null);
    // their member stays overseen
    expect((await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${member.userid}`, { token: lead.token, body: { rating: 0.5 } })).statusCode).toBe(200);
    // and they still read their own records as a learner
    expect((await t.get(`/course_assignments/completion/user/${own}`, { token: lead.token })).statusCode).toBe(200);
    expect((await t.get(`/quizzes/sessions?userid=${own}`, { token: lead.token })).statusCode).toBe(200);
  });
});

describe('an Admin acts on their own account, marked self_override', () => {
  it('completions, invalidations, ratings and quiz cancellations of their own carry self_override; those on others do not', async () => {
    const admin = await makeAdmin(t);
    const other = await makeUser(t);
    const { guide, course, sessionid } = await trainingOf(admin);
    const done = await t.patch(`/course_assignments/User/completeAll/${admin.userid}`, { token: admin.token });
    expect(done.statusCode, done.body).toBe(200);
    const completion = await t.db.selectFrom('course_stage_completions').select(['manager_override_userid', 'self_override'])
      .where('course_stageid', '=', course.stageids[0]).where('userid', '=', admin.userid).executeTakeFirstOrThrow();
    expect(completion).toEqual({ manager_override_userid: admin.userid, self_override: 1 });
    const record = await t.get(`/course_assignments/completion/${course.wikiid}/${admin.userid}`, { token: admin.token });
    expect(record.statusCode, record.body).toBe(200);
    expect(JSON.stringify(record.json())).toContain('"self_override":true');

    const rating = await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${admin.userid}`, { token: admin.token, body: { rating: 1 } });
    expect(rating.statusCode, rating.body).toBe(200);
    expect(rating.json()).toMatchObject({ userid: admin.userid, rated_by: admin.userid, self_override: true });
    const onOther = await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${other.userid}`, { token: admin.token, body: { rating: 1 } });
    expect(onOther.json()).toMatchObject({ userid: other.userid, self_override: false });

    const cancelled = await t.post('/quizzes/sessions/cancel', { token: admin.token, body: { quiz_sessionid: sessionid } });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ cancelled: 1, self_override: true });

    const invalidated = await t.patch(`/course_assignments/invalidate/guide/${guide.guideid}/${admin.userid}`, { token: admin.token });
    expect(invalidated.statusCode, invalidated.body).toBe(200);
    const rows = await t.db.selectFrom('course_stage_completions').select(['self_override', 'invalidated_date']).where('userid', '=', admin.userid).where('wikiid', '=', course.wikiid).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r).toMatchObject({ self_override: 1 });

    // A learner cancelling their own open session is no override.
    const learner = await makeUser(t);
    const q2 = await importQuiz(t, author);
    const g2 = await makePublishedGuide(t, author);
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q2.quizid, guideid: g2.guideid } })).statusCode).toBe(200);
    const open = await t.post('/quizzes/sessions/save', { token: learner.token, body: session(q2.quizid, g2.guideid, {}) });
    expect(open.statusCode, open.body).toBe(200);
    const mine = await t.post('/quizzes/sessions/cancel', { token: learner.token, body: { quiz_sessionid: open.json().quiz_sessionid ?? open.json().session?.quiz_sessionid } });
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().self_override).toBe(false);
  });
});
