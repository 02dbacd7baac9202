// Demo: the gripper repair stage of the demo course becomes a sign-off signed by the
// Quality assurance team; Uma User asked, Mona Moderator watched and passed her, and the
// response waits for Uma's acknowledgement.
import type { DemoContext } from '../area.js';
import { editCourse } from '../courses/courses.service.js';
import { docRevision, findRequest, findSignoffStage } from './signoffs.queries.js';
import { createRequest, respond } from './signoffs.service.js';

export async function seedSignoffsDemo(ctx: DemoContext) {
  const { db, clock, users, teams, ids } = ctx;
  if (!ids.courseMaintenance || !ids.guideRepair || !teams.quality || !users.user || !users.moderator) return;
  const course = await db.selectFrom('courses').select('revisionid').where('wikiid', '=', ids.courseMaintenance).executeTakeFirstOrThrow();
  const stages = await db.selectFrom('course_stages').selectAll().where('wikiid', '=', ids.courseMaintenance).where('active', '=', 1).orderBy('position').execute();
  await editCourse(db, clock, users.author, ids.courseMaintenance, course.revisionid, {}, stages.map((s) => ({
    course_stageid: s.course_stageid, doctype: s.doctype, docid: s.docid, strictness: s.strictness, frequency_quantity: s.frequency_quantity, frequency_unit: s.frequency_unit as 'day' | 'week' | 'month' | 'year' | null,
    stage_assessmentid: s.stage_assessmentid, assessmenttype: s.assessmenttype, teamid_signer: s.teamid_signer, quiz_passing_score: s.quiz_passing_score,
    attempts_limit: s.attempts_limit, skills_points_possible: s.skills_points_possible,
    ...(s.docid === ids.guideRepair && s.doctype === 'guide' ? { stage_assessmentid: 1002, assessmenttype: 'signoff' as const, teamid_signer: teams.quality, skills_points_possible: 20 } : {}),
  })));
  const stage = await findSignoffStage(db, 1002);
  if (!stage) return;
  const id = await createRequest(db, clock, stage, users.user, { userid_requestee: null, work_log_entryid: null, doc_revisionid: await docRevision(db, stage.doctype, stage.docid) });
  await respond(db, clock, (await findRequest(db, id))!, { trainer: users.moderator }, { response_value: 'pass', response_feedback: 'Replaced the gripper pads cleanly and verified the torque.', work_log_entryid: null });
  ids.signoffDemo = id;
  ctx.log('sign-offs: the gripper repair stage is signed off by Quality assurance; Uma User was passed by Mona Moderator (not acknowledged yet)');
}
