import type { DemoContext } from '../area.js';

interface DemoEntry {
  guide: string;
  user: string;
  status: string;
  notes: string;
  /** Seconds before now that it started. */
  ago: number;
  /** Seconds in progress; an entry in progress counts on from its start. */
  active: number;
  /** Seconds after its start that its status last changed. */
  changed: number;
  /** What was recorded on its steps, in step order: [checked, value, notes]. */
  steps: (count: number) => Array<[boolean, string | null, string]>;
  label: string;
}

/**
 * A finished work log of the drive belt replacement (every step checked, a reading noted),
 * a suspended one of the gripper repair, left after its first step for someone to assume,
 * and a lockout/tagout in progress.
 */
const ENTRIES: DemoEntry[] = [
  {
    guide: 'guideReplacement', user: 'user', status: 'finished', notes: 'Line 2 conveyor; old belt worn at the splice.', ago: 3 * 86400, active: 2700, changed: 3600,
    steps: (n) => Array.from({ length: n }, (_, i) => [true, i === n - 1 ? 'Belt deflection 12 mm' : null, '']), label: 'a finished belt replacement',
  },
  {
    guide: 'guideRepair', user: 'author', status: 'suspended', notes: 'End of shift: the leak test is still to do.', ago: 7200, active: 1200, changed: 1200,
    steps: () => [[true, null, 'Air supply locked out at valve V3.']], label: 'a suspended gripper repair',
  },
  {
    guide: 'guideLoto', user: 'user', status: 'in_progress', notes: '', ago: 600, active: 0, changed: 0,
    steps: () => [[true, null, '']], label: 'a lockout/tagout in progress',
  },
];

export async function seedWorkLogDemo(ctx: DemoContext) {
  const { db, clock, users, ids } = ctx;
  const now = clock.now();
  const lang = ctx.config.languages[0];
  const made: string[] = [];
  for (const e of ENTRIES) {
    const guideid = ids[e.guide];
    const revisionid = ids[`${e.guide}Revision`];
    const userid = users[e.user];
    if (!guideid || !revisionid || !userid) continue;
    const start = now - e.ago;
    const running = e.status === 'in_progress';
    const final = e.status === 'finished' || e.status === 'cancelled';
    const { entryid } = await db.insertInto('work_log').values({
      guideid, langid: lang, revisionid, userid, userid_created: userid, status: e.status, notes: e.notes, start_date: start, end_date: final ? start + e.changed : null,
      status_date: start + e.changed, modified_date: start + e.changed, active_seconds: e.active, active_since: running ? start : null,
    }).returning('entryid').executeTakeFirstOrThrow();
    const stepids = (await db.selectFrom('guide_steps').select('stepid').where('guideid', '=', guideid).where('langid', '=', lang).orderBy('orderby').execute()).map((s) => s.stepid);
    const data = e.steps(stepids.length).slice(0, stepids.length);
    if (data.length) {
      await db.insertInto('work_log_steps').values(data.map(([checked, value, notes], i) => ({
        entryid, stepid: stepids[i], checked: checked ? 1 : 0, value, notes, modified_date: start + 60 * (i + 1), userid_modified: userid,
      }))).execute();
    }
    made.push(e.label);
  }
  if (made.length) ctx.log(`work log: ${made.join(', ')}`);
}
