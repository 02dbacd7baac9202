// The PDFs' layouts: a plain description of what a document shows (built from the
// database by the area that serves it: areas/courses/courses.pdf.ts for a work log entry,
// areas/approvals/approvals.pdf.ts for an approval request) in, the PDF's bytes out. Runs in
// the PDF worker thread (pdf.worker.ts), so it reads nothing but its argument. Made with
// PDFKit; text is set in DejaVu Sans (from the dejavu-fonts-ttf package), embedded, so any
// Unicode text prints.
//
// The same content gives the same bytes: the PDF's creation date (PDFKit's
// `info.CreationDate`, from which it also derives the file's ID) is a time the content
// carries (`date`), never the time of rendering, and nothing random is written.
//
// Cost: PDFKit wraps a word wider than the line by measuring it one character shorter at a
// time (quadratic: a 10 000-character word took 10 to 16 s). Every text is cut into runs of
// at most LONGEST_RUN characters without a break opportunity (a zero-width space between
// them), so layout stays linear in the text's length.
import { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';
import { lazyRequire } from '../lazy-require.js';

const require = createRequire(import.meta.url);
/** The font file, resolved through the package (no path under node_modules written by hand). */
export const FONT_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
export const FONT_BOLD_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** PDFKit, loaded with the first PDF (lazy-require.ts). */
const PDFDocument = lazyRequire<typeof PDFKitDocument>('pdfkit');

/** Part of every kept PDF's key: raise it when the layout changes, so no PDF of the old one is served. */
export const RENDERER_VERSION = 3;
/** The stretches of work listed; the rest are counted. */
export const TIMINGS_SHOWN = 50;
/** The audit entries of a document listed; the rest are counted. */
export const AUDIT_SHOWN = 200;
/** Longest run of characters without a break opportunity handed to PDFKit. */
export const LONGEST_RUN = 30;
const ZWSP = '\u200B';
const LONG_RUN = new RegExp(`[^\\s\\u200B]{${LONGEST_RUN}}(?=[^\\s\\u200B])`, 'gu');

/** `text` with a zero-width space after every LONGEST_RUN characters of a run without whitespace (linear). */
export const breakLongRuns = (text: string) => text.replace(LONG_RUN, `$&${ZWSP}`);

/** An audit entry as a PDF lists it (docs/audit.md). */
export interface PdfAuditEntry {
  auditid: number;
  time: number;
  action: string;
  /** Who acted, in words. */
  by: string;
  hash: string;
}

/** What a work log entry's PDF shows: every text already in words, times in UNIX seconds. */
export interface WorkLogPdfContent {
  entryid: number;
  /** The PDF's creation date (UNIX seconds): the entry's end. */
  date: number;
  title: string;
  lines: string[];
  /** The first TIMINGS_SHOWN stretches worked, in order; `more`: how many are left out. */
  timings: { starttime: number; endtime: number | null; by: string }[];
  moreTimings: number;
  steps: { title: string; values: { label: string; value: string; by: string; modified: number | null }[] }[];
  /** The first AUDIT_SHOWN audit entries of the entry, in order; `moreAudit`: how many are left out. */
  audit: PdfAuditEntry[];
  moreAudit: number;
}

export const when = (t: number | null | undefined) => (t == null ? '-' : `${new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`);

/** A new A4 document dated `date` (UNIX seconds), its fonts registered; `done` resolves to its bytes after `doc.end()`. */
export function newDocument(title: string, date: number) {
  const doc = new (PDFDocument())({ size: 'A4', margin: 50, info: { Title: title, Producer: 'Content Platform API', Creator: 'Content Platform API', CreationDate: new Date(date * 1000) } });
  doc.registerFont('body', FONT_PATH);
  doc.registerFont('bold', FONT_BOLD_PATH);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  /** Writes `s` with its long runs broken first. */
  const text = (s: string) => doc.text(breakLongRuns(s));
  return { doc, text, done };
}
type Writer = ReturnType<typeof newDocument>;

/** The document's header: its title, then its lines (what it is, whose, its state), in the body font. */
export function headerSection({ doc, text }: Writer, title: string, lines: string[]) {
  doc.font('bold').fontSize(16);
  text(title);
  doc.font('body').fontSize(10);
  for (const line of lines) text(line);
}

/** The audit trail section: each entry's id, time, action, actor and hash; the rest counted. */
export function auditSection({ doc, text }: Writer, heading: string, entries: PdfAuditEntry[], more: number, none: string) {
  doc.moveDown();
  doc.font('bold').fontSize(12).text(heading);
  doc.font('body').fontSize(9);
  if (entries.length === 0 && more === 0) text(`  ${none}`);
  for (const e of entries) text(`  audit #${e.auditid}  ${when(e.time)}  ${e.action} by ${e.by}  hash ${e.hash}`);
  if (more > 0) text(`  ... and ${more} more audit entr${more === 1 ? 'y' : 'ies'}, not listed (GET /api/2.0/audit lists them all).`);
}

/** The work log entry's PDF's bytes. */
export function renderWorkLogPdf(c: WorkLogPdfContent): Promise<Buffer> {
  const w = newDocument(`Work log entry ${c.entryid}`, c.date);
  const { doc, text, done } = w;
  headerSection(w, c.title, c.lines);
  doc.moveDown();
  doc.font('bold').fontSize(12).text('Time worked and pauses');
  doc.font('body').fontSize(10);
  let last: number | null = null;
  for (const t of c.timings) {
    if (last != null && t.starttime > last) text(`  paused ${when(last)} to ${when(t.starttime)}`);
    text(`  ${when(t.starttime)} to ${when(t.endtime)} by ${t.by}`);
    last = t.endtime;
  }
  if (c.moreTimings > 0) text(`  ... and ${c.moreTimings} more stretch${c.moreTimings === 1 ? '' : 'es'} of work, not listed (the time worked above counts them all).`);
  doc.moveDown();
  doc.font('bold').fontSize(12).text('Steps');
  c.steps.forEach((s, i) => {
    doc.font('bold').fontSize(10);
    text(`${i + 1}. ${s.title}`);
    doc.font('body');
    for (const v of s.values) text(`    ${v.label}: ${v.value}  (${v.by}, ${when(v.modified)})`);
  });
  auditSection(w, 'Audit trail', c.audit, c.moreAudit, 'No audit entries are recorded for this work log entry.');
  doc.end();
  return done;
}
