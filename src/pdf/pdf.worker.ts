// The PDF worker thread's entry (started by pdf.renderer.ts): renders one PDF per message,
// one at a time, so that the server's event loop never runs PDFKit's layout. Every kind of
// document (a work log entry, an approval request) is made here. It first renders a sample
// (loading PDFKit and the fonts) and then says it is ready: the renderer's time limit
// counts rendering only, not the worker's start.
import { parentPort } from 'node:worker_threads';
import { renderWorkLogPdf, type WorkLogPdfContent } from './pdf.render.js';
import { renderApprovalPdf, type ApprovalPdfContent } from './approval.render.js';

/** A document to make: its kind and what it shows. */
export type PdfDocument = { kind: 'work_log'; content: WorkLogPdfContent } | { kind: 'approval_request'; content: ApprovalPdfContent };
export type PdfRequest = { id: number; document: PdfDocument };
export type PdfAnswer = { ready: true } | { id: number; pdf: Uint8Array } | { id: number; error: string };

const SAMPLE: WorkLogPdfContent = { entryid: 0, date: 0, title: 'Warm start', lines: ['Sample'], timings: [{ starttime: 0, endtime: 60, by: 'sample' }], moreTimings: 0, steps: [{ title: 'Step', values: [{ label: 'Field', value: 'x'.repeat(100), by: 'sample', modified: 0 }] }], audit: [], moreAudit: 0 };

function render(d: PdfDocument): Promise<Buffer> {
  return d.kind === 'work_log' ? renderWorkLogPdf(d.content) : renderApprovalPdf(d.content);
}

const port = parentPort!;
port.on('message', (m: PdfRequest) => {
  render(m.document).then(
    (pdf) => port.postMessage({ id: m.id, pdf } satisfies PdfAnswer),
    (err: unknown) => port.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies PdfAnswer),
  );
});
await renderWorkLogPdf(SAMPLE);
port.postMessage({ ready: true } satisfies PdfAnswer);
