// The demo: a quiz on the lockout/tagout guide, the quiz stage of the demo course, failed
// once by Uma User (two attempts left); a sign-off stage with a response waiting for her; a
// filled skills matrix; the assignee view's assessment fields.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo assessments', () => {
  const t = appForFile({}, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });
  const login = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return { userid: u.userid, token: (await issueToken(t.db, t.config, t.clock, u.userid)).token };
  };

  it('quiz, sign-off, matrix and the assignee view', async () => {
    const uma = await login('user@example.com');
    const author = await login('author@example.com');
    const quizzes = (await t.get('/quizzes', { token: uma.token })).json();
    expect(quizzes.map((q: { quiz_title: string; quizzes_submitted: number }) => [q.quiz_title, q.quizzes_submitted])).toEqual([['Lockout/tagout check', 2]]);
    const sessions = (await t.get('/quizzes/sessions', { token: uma.token })).json().quizSessions;
    expect(sessions.map((s: { score: number; passed: number }) => [s.score, s.passed])).toEqual([[60, 0]]);
    const unack = (await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${uma.userid}`, { token: uma.token })).json();
    expect(unack.map((u: { response_value: string }) => u.response_value)).toEqual(['pass']);
    // The demo course's stages (the modules' demo adds a course of its own).
    const basics = await t.db.selectFrom('courses').select('wikiid').where('title', '=', 'Line maintenance basics').executeTakeFirstOrThrow();
    const stages = await t.db.selectFrom('course_stages').select(['docid', 'course_stageid', 'wikiid', 'assessmenttype'])
      .where('wikiid', '=', basics.wikiid).where('active', '=', 1).orderBy('position').execute();
    const guideids = stages.map((s) => s.docid);
    // The crew's lead reads the matrix of those they oversee (not their own account: areas/shared/oversight.ts).
    const matrix = (await t.post('/skills/matrix', { token: author.token, body: { userids: [uma.userid], guideids } })).json();
    expect(matrix.ratings).toHaveLength(3);
    expect(matrix.ratings.filter((r: { rating: number }) => r.rating > 0).length).toBeGreaterThanOrEqual(2);
    expect((await t.post('/skills/matrix', { token: author.token, body: { userids: [uma.userid, author.userid], guideids } })).statusCode).toBe(403);
    const view = (await t.get(`/course_assignees/course/${stages[0].wikiid}/user/${uma.userid}`, { token: uma.token }));
    expect(view.statusCode, view.body).toBe(200);
    const byType = view.json().stages.map((s: any) => [s.attached_quiz?.title ?? null, s.quiz_attempts_remaining, s.signoff?.response_value ?? null]);
    expect(byType).toContainEqual(['Lockout/tagout check', 2, null]);
    expect(byType).toContainEqual([null, null, 'pass']);
  });
});
