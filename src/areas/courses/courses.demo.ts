import type { DemoContext } from '../area.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
import { startStages } from '../shared/course-progress.js';
import { assignCourse, createCourse, stagesReaching } from './courses.service.js';

/**
 * A course of three stages (lockout/tagout, the belt replacement, the gripper repair)
 * assigned to the Maintenance crew; Uma User is part-way: the belt replacement completed
 * through her finished work log entry, lockout/tagout started.
 */
export async function seedCoursesDemo(ctx: DemoContext) {
  const { db, clock, config, users, teams, ids } = ctx;
  if (!ids.guideLoto || !ids.guideReplacement || !ids.guideRepair || !teams.maintenance || !users.author || !users.user) return;
  const wikiid = await createCourse(db, clock, config, users.author, {
    title: 'Line maintenance basics',
    contents: 'What every member of the maintenance crew does before working on the line.',
  }, [
    { doctype: 'guide', docid: ids.guideLoto, strictness: 'major', frequency_quantity: 1, frequency_unit: 'year' },
    { doctype: 'guide', docid: ids.guideReplacement, strictness: 'minor' },
    { doctype: 'guide', docid: ids.guideRepair },
  ]);
  ids.courseMaintenance = wikiid;
  await assignCourse(db, clock, users.author, { wikiid, assignee_userid: null, assignee_teamid: teams.maintenance, due_within: 30 * 86_400 });
  const entry = await db.selectFrom('work_log').select(['entryid', 'revisionid']).where('guideid', '=', ids.guideReplacement).where('userid', '=', users.user).where('status', '=', 'complete').executeTakeFirst();
  await (async (trx: typeof db) => {
    await completeStagesOnDocument(trx, clock, {
      userid: users.user, doctype: 'guide', docid: ids.guideReplacement, doc_revisionid: entry?.revisionid ?? null, via: entry ? 'work_log' : 'explicit', actor: undefined, // the seed: no audit entry
      source: entry ? { work_log_entryid: entry.entryid } : undefined,
    });
    await startStages(trx, clock.now(), users.user, await stagesReaching(trx, users.user, { doctype: 'guide', docid: ids.guideLoto }), ids.guideLotoRevision ?? null, undefined);
  })(db);
  ctx.log('courses: "Line maintenance basics" (3 stages) assigned to the Maintenance crew; Uma User part-way');
}
