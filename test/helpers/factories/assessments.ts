// Factories for the assessments areas (quizzes, sign-offs, skills): quizzes over HTTP, and
// course rows written directly (the courses area's contract tables) where a course stage is needed.
import type { TestApp } from '../app.js';
import { unique, type TestUser } from '../factories.js';

/** A quiz with one question of each kind; answers for it, all correct. */
export const QUIZ_JSON = {
  title: 'Lockout quiz',
  elements: [
    { name: 'q1', type: 'radiogroup', title: 'Which colour is a lockout tag?', choices: ['red', 'green', 'blue'], correctAnswer: 'red' },
    { name: 'q2', type: 'checkbox', title: 'Which steps come first?', choices: ['isolate', 'verify', 'paint'], correctAnswer: ['isolate', 'verify'] },
    { name: 'q3', type: 'boolean', title: 'Verify zero energy?', correctAnswer: true },
    { name: 'q4', type: 'text', title: 'Name the tag', correctAnswer: 'Danger' },
    { name: 'intro', type: 'html', html: '<p>Read the guide first.</p>' },
  ],
};
export const ALL_CORRECT = { q1: 'red', q2: ['verify', 'isolate'], q3: true, q4: ' danger ' };
export const HALF_CORRECT = { q1: 'red', q2: ['isolate'], q3: false, q4: 'Danger' };

export async function importQuiz(t: TestApp, author: TestUser, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.post('/quizzes/import', { token: author.token, body: { quiz_json: QUIZ_JSON, passing_score: 75, category: 'Safety', ...body } });
  if (res.statusCode !== 201) throw new Error(`importQuiz: ${res.statusCode} ${res.body}`);
  return res.json();
}

export interface StageInput {
  doctype: 'guide' | 'wiki';
  docid: number;
  assessmenttype?: 'quiz' | 'signoff' | null;
  attempts_limit?: number | null;
  teamid_signer?: number | null;
  quiz_passing_score?: number | null;
}

/** A course (rows of the courses contract) with one stage per input, assigned to `userids`; answers its wikiid and stage ids. */
export async function makeCourse(t: TestApp, stages: StageInput[], userids: number[] = [], teamids: number[] = []) {
  const now = t.clock.now();
  const title = unique('Course ');
  const { wikiid } = await t.db.insertInto('courses').values({ langid: 'en', title, title_lower: title.toLowerCase(), publish_date: now, userid: null, created_date: now, modified_date: now })
    .returning('wikiid').executeTakeFirstOrThrow();
  const stageids: number[] = [];
  for (const [i, s] of stages.entries()) {
    const { course_stageid } = await t.db.insertInto('course_stages').values({
      wikiid, position: i, doctype: s.doctype, docid: s.docid, strictness: null, frequency_quantity: null, frequency_unit: null,
      stage_assessmentid: null, assessmenttype: s.assessmenttype ?? null, teamid_signer: s.teamid_signer ?? null,
      quiz_passing_score: s.quiz_passing_score ?? null, attempts_limit: s.attempts_limit ?? null, skills_points_possible: null,
    }).returning('course_stageid').executeTakeFirstOrThrow();
    // the stage's assessment is named by an id of its own; the stage's id serves here
    if (s.assessmenttype) await t.db.updateTable('course_stages').set({ stage_assessmentid: course_stageid }).where('course_stageid', '=', course_stageid).execute();
    stageids.push(course_stageid);
  }
  for (const userid of userids) await t.db.insertInto('course_assignments').values({ wikiid, assignee_userid: userid, assignee_teamid: null, userid_assigner: null, due_within: null, created_date: now }).execute();
  for (const teamid of teamids) await t.db.insertInto('course_assignments').values({ wikiid, assignee_userid: null, assignee_teamid: teamid, userid_assigner: null, due_within: null, created_date: now }).execute();
  return { wikiid, stageids };
}

export async function stageStatus(t: TestApp, course_stageid: number, userid: number): Promise<string | null> {
  const r = await t.db.selectFrom('course_stage_statuses').select('status').where('course_stageid', '=', course_stageid).where('userid', '=', userid).executeTakeFirst();
  return r?.status ?? null;
}
