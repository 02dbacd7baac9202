// The PDF of a finished work log entry (linked from the course assignee view as
// `work_log_entry_pdf_url`): the guide and the revision performed, each step with the
// field values recorded and who entered them, the start, the stretches worked (pauses
// between them; the first TIMINGS_SHOWN, the rest counted), the end, and the entry's audit
// entries with their ids and hashes (the first AUDIT_SHOWN, the rest counted). What it shows
// is read here; the layout (src/pdf/pdf.render.ts) runs in the PDF worker thread
// (src/pdf/pdf.renderer.ts), which keeps the PDF per entry keyed by all of this (a new audit
// entry of the entry makes a new PDF). Dated by the entry's end: the same entry, the same bytes.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { parseJson } from '../guides/guides.queries.js';
import type { GuideSnapshot, StepSnapshot } from '../guides/guides.snapshots.js';
import { workLogRecords, type WorkLogRow } from '../work-log/work-log.queries.js';
import { resourceTrail } from '../../audit/trail.js';
import { AUDIT_SHOWN, TIMINGS_SHOWN, when, type WorkLogPdfContent } from '../../pdf/pdf.render.js';

/**
 * The resource type a work log entry's audit entries are recorded under (resource_id: the
 * entryid), as the work log area's changes record them (started, paused, finished...).
 */
export const WORK_LOG_AUDIT_TYPES = ['work_log_entry'] as const;

/** What the PDF of a work log entry shows. */
export async function workLogPdfContent(db: Kysely<Database>, now: number, row: WorkLogRow): Promise<WorkLogPdfContent> {
  const [entry] = await workLogRecords(db, now, [row]);
  const rev = await db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', row.revisionid).executeTakeFirst();
  const steps = parseJson<GuideSnapshot | null>(rev?.snapshot ?? '', null)?.steps ?? [];
  const stepRevs = steps.length ? await db.selectFrom('guide_step_revisions').select(['revisionid', 'snapshot']).where('revisionid', 'in', steps.map((s) => s.revisionid)).execute() : [];
  const titles = new Map(stepRevs.map((s) => [s.revisionid, parseJson<StepSnapshot | null>(s.snapshot, null)?.title ?? '']));
  const timings = entry.timings.slice(0, TIMINGS_SHOWN);
  const trail = await resourceTrail(db, WORK_LOG_AUDIT_TYPES, row.entryid, AUDIT_SHOWN);
  const userids = [...new Set([row.userid, row.userid_created, ...entry.work_data.map((v) => v.userid), ...timings.map((t) => t.userid), ...trail.entries.map((e) => e.userid)]
    .filter((x): x is number => x != null))];
  const users = userids.length ? await db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', userids).execute() : [];
  const names = new Map(users.map((u) => [u.userid, u.username]));
  const name = (id: number | null | undefined) => (id == null ? '-' : names.get(id) ?? `user ${id}`);
  return {
    entryid: row.entryid,
    date: row.end_date ?? row.start_date,
    title: entry.guide_title || `Guide ${row.guideid}`,
    lines: [
      `Guide ${row.guideid} (${row.langid}), revision ${row.revisionid}`,
      `Work log entry ${row.entryid}${row.workorderid ? `, work order ${row.workorderid}` : ''}: ${entry.status}`,
      `Performed by ${name(row.userid)}; started by ${name(row.userid_created)}`,
      `Start: ${when(row.start_date)}`,
      `End: ${when(row.end_date)}`,
      `Time worked: ${Math.round(entry.duration / 60)} min`,
    ],
    timings: timings.map((t) => ({ starttime: t.starttime, endtime: t.endtime ?? null, by: name(t.userid) })),
    moreTimings: entry.timings.length - timings.length,
    steps: steps.map((s) => ({
      title: titles.get(s.revisionid) || `Step ${s.stepid}`,
      values: entry.work_data.filter((d) => d.stepid === s.stepid).map((v) => ({ label: v.label, value: v.value, by: name(v.userid), modified: v.modified_date ?? null })),
    })),
    audit: trail.entries.map((e) => ({ auditid: e.auditid, time: e.time, action: e.action, by: e.userid == null ? 'the system' : name(e.userid), hash: e.hash })),
    moreAudit: trail.more,
  };
}
