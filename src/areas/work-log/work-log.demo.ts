import type { DemoContext } from '../area.js';
import { formOf } from './work-log.queries.js';

interface DemoEntry {
  guide: string;
  user: string;
  status: string;
  workorderid: string | null;
  notes: string;
  /** Seconds before now that it started. */
  ago: number;
  /** Seconds started; an entry started counts on from its start. */
  active: number;
  /** Seconds after its start that its status last changed. */
  changed: number;
  /** Timings spent, each [seconds after the start it opened, seconds it lasted or null while open]. */
  timings: Array<[number, number | null]>;
  /** Values recorded, by field label. */
  values?: Record<string, string>;
  label: string;
}

/**
 * A completed work log of the drive belt replacement, a suspended one of the gripper
 * repair, left for someone to assume, and a lockout/tagout started.
 */
const ENTRIES: DemoEntry[] = [
  {
    guide: 'guideReplacement', user: 'user', status: 'complete', workorderid: 'WO-1042', notes: 'Line 2 conveyor; old belt worn at the splice.', ago: 3 * 86400, active: 2700, changed: 3600,
    timings: [[0, 900], [900, 1800]], values: { 'Belt tension (Hz)': '45', 'Bolts torqued to 25 N·m': '1', 'Test run': 'Quiet', Remarks: 'Old belt worn at the splice.' },
    label: 'a completed belt replacement',
  },
  {
    guide: 'guideRepair', user: 'author', status: 'suspended', workorderid: 'WO-1057', notes: 'End of shift: the leak test is still to do.', ago: 7200, active: 1200, changed: 1200,
    timings: [[0, 1200]], label: 'a suspended gripper repair',
  },
  {
    guide: 'guideLoto', user: 'user', status: 'started', workorderid: null, notes: '', ago: 600, active: 0, changed: 0,
    timings: [[0, null]], label: 'a lockout/tagout started',
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
    const running = e.status === 'started';
    const final = e.status === 'complete' || e.status === 'cancelled';
    const { entryid } = await db.insertInto('work_log').values({
      guideid, langid: lang, revisionid, userid, userid_created: userid, status: e.status, notes: e.notes, workorderid: e.workorderid, start_date: start, end_date: final ? start + e.changed : null,
      status_date: start + e.changed, modified_date: start + e.changed, active_seconds: e.active, active_since: running ? start : null,
    }).returning('entryid').executeTakeFirstOrThrow();
    const stepids = (await db.selectFrom('guide_steps').select('stepid').where('guideid', '=', guideid).where('langid', '=', lang).orderBy('orderby').execute()).map((s) => s.stepid);
    await db.insertInto('work_log_timings').values(e.timings.map(([from, lasted], i) => ({
      entryid, userid, start_date: start + from, end_date: lasted === null ? null : start + from + lasted, stepid: lasted === null ? null : stepids[i] ?? null,
    }))).execute();
    const form = await formOf(db, { revisionid });
    const values = [...form.fields].flatMap(([fid, f]) => (e.values?.[f.field.label] !== undefined ? [{ fid, stepid: f.stepid, value: e.values[f.field.label] }] : []));
    if (values.length) {
      await db.insertInto('work_log_values').values(values.map((v) => ({ entryid, field_revisionid: v.fid, stepid: v.stepid, value: v.value, userid, modified_date: start + e.changed }))).execute();
    }
    made.push(e.label);
  }
  if (made.length) ctx.log(`work log: ${made.join(', ')}`);
}
