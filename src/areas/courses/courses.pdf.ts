// The PDF of a finished work log entry (linked from the course assignee view as
// `work_log_entry_pdf_url`): the guide and the revision performed, each step with the
// field values recorded and who entered them, the start, the stretches worked (pauses
// between them) and the end. Made with PDFKit; text is set in DejaVu Sans (from the
// dejavu-fonts-ttf package), embedded, so any Unicode text prints.
import { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';
import { lazyRequire } from '../../lazy-require.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { parseJson } from '../guides/guides.queries.js';
import type { GuideSnapshot, StepSnapshot } from '../guides/guides.snapshots.js';
import { workLogRecords, type WorkLogRow } from '../work-log/work-log.queries.js';

const require = createRequire(import.meta.url);
/** The font file, resolved through the package (no path under node_modules written by hand). */
export const FONT_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
export const FONT_BOLD_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** PDFKit, loaded with the first PDF (lazy-require.ts). */
const PDFDocument = lazyRequire<typeof PDFKitDocument>('pdfkit');

const when = (t: number | null | undefined) => (t == null ? '-' : `${new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`);

/** The PDF's bytes for a work log entry. */
export async function workLogPdf(db: Kysely<Database>, now: number, row: WorkLogRow): Promise<Buffer> {
  const [entry] = await workLogRecords(db, now, [row]);
  const rev = await db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', row.revisionid).executeTakeFirst();
  const steps = parseJson<GuideSnapshot | null>(rev?.snapshot ?? '', null)?.steps ?? [];
  const stepRevs = steps.length ? await db.selectFrom('guide_step_revisions').select(['revisionid', 'snapshot']).where('revisionid', 'in', steps.map((s) => s.revisionid)).execute() : [];
  const titles = new Map(stepRevs.map((s) => [s.revisionid, parseJson<StepSnapshot | null>(s.snapshot, null)?.title ?? '']));
  const userids = [...new Set([row.userid, row.userid_created, ...entry.work_data.map((v) => v.userid), ...entry.timings.map((t) => t.userid)].filter((x): x is number => x != null))];
  const users = userids.length ? await db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', userids).execute() : [];
  const name = (id: number | null | undefined) => (id == null ? '-' : users.find((u) => u.userid === id)?.username ?? `user ${id}`);

  const doc = new (PDFDocument())({ size: 'A4', margin: 50, info: { Title: `Work log entry ${row.entryid}`, Producer: 'Content Platform API' } });
  doc.registerFont('body', FONT_PATH);
  doc.registerFont('bold', FONT_BOLD_PATH);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('bold').fontSize(16).text(entry.guide_title || `Guide ${row.guideid}`);
  doc.font('body').fontSize(10)
    .text(`Guide ${row.guideid} (${row.langid}), revision ${row.revisionid}`)
    .text(`Work log entry ${row.entryid}${row.workorderid ? `, work order ${row.workorderid}` : ''}: ${entry.status}`)
    .text(`Performed by ${name(row.userid)}; started by ${name(row.userid_created)}`)
    .text(`Start: ${when(row.start_date)}`)
    .text(`End: ${when(row.end_date)}`)
    .text(`Time worked: ${Math.round(entry.duration / 60)} min`);
  doc.moveDown();
  doc.font('bold').fontSize(12).text('Time worked and pauses');
  doc.font('body').fontSize(10);
  let last: number | null = null;
  for (const t of entry.timings) {
    if (last != null && t.starttime > last) doc.text(`  paused ${when(last)} to ${when(t.starttime)}`);
    doc.text(`  ${when(t.starttime)} to ${when(t.endtime)} by ${name(t.userid)}`);
    last = t.endtime ?? null;
  }
  doc.moveDown();
  doc.font('bold').fontSize(12).text('Steps');
  steps.forEach((s, i) => {
    doc.font('bold').fontSize(10).text(`${i + 1}. ${titles.get(s.revisionid) || `Step ${s.stepid}`}`);
    doc.font('body');
    for (const v of entry.work_data.filter((d) => d.stepid === s.stepid)) {
      doc.text(`    ${v.label}: ${v.value}  (${name(v.userid)}, ${when(v.modified_date)})`);
    }
  });
  doc.end();
  return done;
}
