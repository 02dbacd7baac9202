// Demo: a lockout/tagout quiz attached to the demo guide, which becomes the quiz stage of
// the demo course (three attempts); Uma User failed it once (her stage stays started), Ada
// Admin (not assigned the course) passed it.
import type { DemoContext } from '../area.js';
import { editCourse } from '../courses/courses.service.js';
import { nonMediaCount, type QuizJson } from './quizzes.scoring.js';
import { loadDoc, findQuiz } from './quizzes.queries.js';
import { attachQuiz, createQuiz, submitSession } from './quizzes.service.js';

export const DEMO_QUIZ: QuizJson = {
  title: 'Lockout/tagout check',
  elements: [
    { name: 'first', type: 'radiogroup', title: 'What comes first?', choices: ['Isolate the energy source', 'Remove the guard', 'Start the repair'], correctAnswer: 'Isolate the energy source' },
    { name: 'sources', type: 'checkbox', title: 'Which are energy sources?', choices: ['Electrical', 'Pneumatic', 'Paint'], correctAnswer: ['Electrical', 'Pneumatic'] },
    { name: 'verify', type: 'boolean', title: 'Is zero energy verified before work starts?', correctAnswer: true },
    { name: 'order', type: 'ranking', title: 'Put the steps in order', choices: ['Notify', 'Shut down', 'Lock and tag'], correctAnswer: ['Notify', 'Shut down', 'Lock and tag'] },
    { name: 'tag', type: 'text', title: 'What word is printed on the tag?', correctAnswer: 'Danger' },
  ],
};

export async function seedQuizzesDemo(ctx: DemoContext) {
  const { db, clock, config, users, ids } = ctx;
  if (!ids.guideLoto || !users.author || !users.user) return;
  const quizid = await createQuiz(db, clock, users.author, {
    quiz_json: DEMO_QUIZ, title: DEMO_QUIZ.title!, description: 'Five questions on the lockout/tagout procedure.', passing_score: 80, category: 'Safety', non_media_count: nonMediaCount(DEMO_QUIZ),
  });
  ids.quizLoto = quizid;
  await attachQuiz(db, clock, users.author, quizid, 'guide', ids.guideLoto);
  if (ids.courseMaintenance) {
    const course = await db.selectFrom('courses').select('revisionid').where('wikiid', '=', ids.courseMaintenance).executeTakeFirstOrThrow();
    const stages = await db.selectFrom('course_stages').selectAll().where('wikiid', '=', ids.courseMaintenance).where('active', '=', 1).orderBy('position').execute();
    await editCourse(db, clock, users.author, ids.courseMaintenance, course.revisionid, {}, stages.map((s) => ({
      course_stageid: s.course_stageid, doctype: s.doctype, docid: s.docid, strictness: s.strictness, frequency_quantity: s.frequency_quantity, frequency_unit: s.frequency_unit as 'day' | 'week' | 'month' | 'year' | null,
      stage_assessmentid: s.stage_assessmentid, assessmenttype: s.assessmenttype, teamid_signer: s.teamid_signer, quiz_passing_score: s.quiz_passing_score,
      attempts_limit: s.attempts_limit, skills_points_possible: s.skills_points_possible,
      ...(s.docid === ids.guideLoto && s.doctype === 'guide' ? { stage_assessmentid: 1001, assessmenttype: 'quiz' as const, attempts_limit: 3, skills_points_possible: 10 } : {}),
    })));
  }
  const quiz = (await findQuiz(db, quizid))!;
  const doc = (await loadDoc(db, config, 'guide', ids.guideLoto))!;
  const target = { userid: users.user, quiz, doc, response_json: '' };
  const failed = { first: 'Isolate the energy source', sources: ['Electrical'], verify: true, order: ['Shut down', 'Notify', 'Lock and tag'], tag: 'Danger' };
  const passed = { first: 'Isolate the energy source', sources: ['Pneumatic', 'Electrical'], verify: true, order: ['Notify', 'Shut down', 'Lock and tag'], tag: 'danger' };
  await submitSession(db, clock, { ...target, response_json: JSON.stringify(failed) }, failed, undefined);
  if (users.admin) await submitSession(db, clock, { ...target, userid: users.admin, response_json: JSON.stringify(passed) }, passed, undefined);
  ctx.log('quizzes: "Lockout/tagout check" on the lockout/tagout guide, the quiz stage of the demo course; Uma User failed it once (60, two attempts left), Ada Admin passed it');
}
