import type { DemoContext } from '../area.js';

/**
 * A finished work log of the drive belt replacement (every step checked, a reading noted),
 * a suspended one of the gripper repair, left after its first step for someone to assume,
 * and a lockout/tagout in progress.
 */
export async function seedWorkLogDemo(ctx: DemoContext) {
  const { db, clock, users, ids } = ctx;
  const now = clock.now();
  const lang = ctx.config.languages[0];
  const stepsOf = async (guideid: number) => (await db.selectFrom('guide_steps').select('stepid').where('guideid', '=', guideid).where('langid', '=', lang).orderBy('orderby').execute()).map((s) => s.stepid);
  const made: string[] = [];
  const belt = ids.guideReplacement;
  if (belt && ids.guideReplacementRevision && users.user) {
    const start = now - 3 * 86400;
    const { entryid } = await db.insertInto('work_log').values({
      guideid: belt, langid: lang, revisionid: ids.guideReplacementRevision, userid: users.user, userid_created: users.user, status: 'finished',
      notes: 'Line 2 conveyor; old belt worn at the splice.', start_date: start, end_date: start + 3600, status_date: start + 3600, modified_date: start + 3600, active_seconds: 2700, active_since: null,
    }).returning('entryid').executeTakeFirstOrThrow();
    const steps = await stepsOf(belt);
    if (steps.length) {
      await db.insertInto('work_log_steps').values(steps.map((stepid, i) => ({
        entryid, stepid, checked: 1, value: i === steps.length - 1 ? 'Belt deflection 12 mm' : null, notes: '', modified_date: start + 600 * (i + 1), userid_modified: users.user,
      }))).execute();
    }
    ids.workLogFinished = entryid;
    made.push('a finished belt replacement');
  }
  const gripper = ids.guideRepair;
  if (gripper && ids.guideRepairRevision && users.author) {
    const start = now - 7200;
    const { entryid } = await db.insertInto('work_log').values({
      guideid: gripper, langid: lang, revisionid: ids.guideRepairRevision, userid: users.author, userid_created: users.author, status: 'suspended',
      notes: 'End of shift: the leak test is still to do.', start_date: start, end_date: null, status_date: start + 1200, modified_date: start + 1200, active_seconds: 1200, active_since: null,
    }).returning('entryid').executeTakeFirstOrThrow();
    const [first] = await stepsOf(gripper);
    if (first) await db.insertInto('work_log_steps').values({ entryid, stepid: first, checked: 1, value: null, notes: 'Air supply locked out at valve V3.', modified_date: start + 900, userid_modified: users.author }).execute();
    ids.workLogSuspended = entryid;
    made.push('a suspended gripper repair');
  }
  const loto = ids.guideLoto;
  if (loto && ids.guideLotoRevision && users.user) {
    const start = now - 600;
    const { entryid } = await db.insertInto('work_log').values({
      guideid: loto, langid: lang, revisionid: ids.guideLotoRevision, userid: users.user, userid_created: users.user, status: 'in_progress',
      notes: '', start_date: start, end_date: null, status_date: start, modified_date: start, active_seconds: 0, active_since: start,
    }).returning('entryid').executeTakeFirstOrThrow();
    const [first] = await stepsOf(loto);
    if (first) await db.insertInto('work_log_steps').values({ entryid, stepid: first, checked: 1, value: null, notes: '', modified_date: start + 120, userid_modified: users.user }).execute();
    ids.workLogInProgress = entryid;
    made.push('a lockout/tagout in progress');
  }
  if (made.length) ctx.log(`work log: ${made.join(' and ')}`);
}
