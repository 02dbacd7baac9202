// The PDF worker thread's entry (started by pdf.renderer.ts): renders one PDF per message,
// one at a time, so that the server's event loop never runs PDFKit's layout.
import { parentPort } from 'node:worker_threads';
import { renderWorkLogPdf, type WorkLogPdfContent } from './pdf.render.js';

export type PdfRequest = { id: number; content: WorkLogPdfContent };
export type PdfAnswer = { id: number; pdf: Uint8Array } | { id: number; error: string };

parentPort!.on('message', (m: PdfRequest) => {
  renderWorkLogPdf(m.content).then(
    (pdf) => parentPort!.postMessage({ id: m.id, pdf } satisfies PdfAnswer),
    (err: unknown) => parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies PdfAnswer),
  );
});
