// PDFs are made in a worker thread (node:worker_threads), one at a time, so that a large
// PDF never holds the event loop: other requests are served while it renders.
//   - Warm start (PDF_WARM_START): the worker starts with the server (else with the first
//     PDF); it renders a sample, loading PDFKit and the fonts, before it takes PDFs.
//     A worker that fails before it is ready fails the PDFs waiting.
//   - A bounded queue (PDF_QUEUE_SIZE PDFs waiting beside the one rendering): beyond it,
//     503 with Retry-After.
//   - A timeout (PDF_TIMEOUT_MS per PDF, counted from the moment the ready worker takes
//     it): the worker is ended (a new one starts for the next PDF) and the request answers 503.
//   - Kept PDFs (PDF_KEPT_MB): the last PDF of each document (a work log entry, an approval
//     request), keyed by a hash of its kind, everything it shows and the renderer's version,
//     least recently used dropped first; the same PDF asked for twice at once is rendered once.
// One renderer (and one worker) serves every kind: app.ts makes it (`app.pdfs`).
// The worker's file is found beside this one: pdf.worker.js in the build (dist/), or
// pdf.worker.ts when the server runs from its sources (tsx, the tests), which the worker
// then loads through tsx's loader.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../http/errors.js';
import { RENDERER_VERSION, type WorkLogPdfContent } from './pdf.render.js';
import type { ApprovalPdfContent } from './approval.render.js';
import type { PdfAnswer, PdfDocument, PdfRequest } from './pdf.worker.js';

export interface PdfLimits {
  pdfWarmStart: boolean;
  pdfQueueSize: number;
  pdfTimeoutMs: number;
  pdfKeptMb: number;
}

const RETRY_AFTER_SECONDS = 5;
const busy = (message: string) => new HttpError(503, 'unavailable', `${message} Try again in ${RETRY_AFTER_SECONDS} seconds.`, undefined, undefined, { 'retry-after': String(RETRY_AFTER_SECONDS) });

/** tsx's loader API (its ES module: the CommonJS one registers nothing a worker can use). */
function tsxLoaderUrl(here: string): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
  const pkg = createRequire(here).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(pkg), (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'].import.default)).href;
}

/** A new worker running pdf.worker.ts/.js (see the header). */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./pdf.worker.js', here));
  const tsx = tsxLoaderUrl(here);
  const entry = new URL('./pdf.worker.ts', here).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

type Job = { id: number; document: PdfDocument; resolve: (pdf: Buffer) => void; reject: (err: Error) => void };

export class PdfRenderer {
  private worker: Worker | null = null;
  private ready = false;
  private waiting: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;
  private closed = false;
  private kept = new Map<string, { key: string; pdf: Buffer }>();
  private keptBytes = 0;
  private inFlight = new Map<string, Promise<Buffer>>();

  constructor(private limits: PdfLimits) {}

  /** With PDF_WARM_START: the worker starts now. */
  start(): void {
    if (this.limits.pdfWarmStart && !this.closed) this.ensureWorker();
  }

  /** The PDF of a work log entry showing `content`: kept, or rendered in the worker. */
  workLogPdf(content: WorkLogPdfContent): Promise<Buffer> {
    return this.pdf(`work_log:${content.entryid}`, { kind: 'work_log', content });
  }

  /** The PDF of an approval request showing `content`: kept, or rendered in the worker. */
  approvalRequestPdf(content: ApprovalPdfContent): Promise<Buffer> {
    return this.pdf(`approval_request:${content.approval_requestid}`, { kind: 'approval_request', content });
  }

  /** The PDF of document `name` (its kind and id): kept under the hash of what it shows, or rendered. */
  private async pdf(name: string, document: PdfDocument): Promise<Buffer> {
    const key = createHash('sha256').update(JSON.stringify({ renderer: RENDERER_VERSION, document })).digest('hex');
    const kept = this.kept.get(name);
    if (kept?.key === key) {
      this.kept.delete(name);
      this.kept.set(name, kept);
      return kept.pdf;
    }
    const running = this.inFlight.get(key);
    if (running) return running;
    const made = this.render(document).then((pdf) => {
      this.keep(name, key, pdf);
      return pdf;
    }).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, made);
    return made;
  }

  /** PDFs rendering or waiting (tests read it). */
  get pending(): number {
    return this.waiting.length + (this.current ? 1 : 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(busy('The server is shutting down.'));
    if (this.current) {
      clearTimeout(this.current.timer);
      this.current.job.reject(busy('The server is shutting down.'));
      this.current = null;
    }
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private render(document: PdfDocument): Promise<Buffer> {
    if (this.closed) return Promise.reject(busy('The server is shutting down.'));
    if (this.waiting.length >= this.limits.pdfQueueSize) return Promise.reject(busy('Too many PDFs are being made.'));
    return new Promise<Buffer>((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, document, resolve, reject });
      this.next();
    });
  }

  private keep(name: string, key: string, pdf: Buffer) {
    const max = this.limits.pdfKeptMb * 1024 * 1024;
    const old = this.kept.get(name);
    if (old) {
      this.keptBytes -= old.pdf.length;
      this.kept.delete(name);
    }
    if (pdf.length > max) return;
    this.kept.set(name, { key, pdf });
    this.keptBytes += pdf.length;
    for (const [id, entry] of this.kept) {
      if (this.keptBytes <= max) break;
      this.kept.delete(id);
      this.keptBytes -= entry.pdf.length;
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker();
    worker.unref();
    this.ready = false;
    worker.on('message', (m: PdfAnswer) => {
      if ('ready' in m) {
        if (this.worker === worker) this.ready = true;
        return this.next();
      }
      if (!this.current || this.current.job.id !== m.id) return;
      const { job, timer } = this.current;
      clearTimeout(timer);
      this.current = null;
      if ('pdf' in m) job.resolve(Buffer.from(m.pdf.buffer, m.pdf.byteOffset, m.pdf.byteLength));
      else job.reject(new Error(`The PDF could not be made: ${m.error}`));
      this.next();
    });
    // A worker that fails or exits on its own: the PDF in hand fails, the next starts a new worker.
    const lost = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.current) {
        clearTimeout(this.current.timer);
        this.current.job.reject(err);
        this.current = null;
      } else if (!this.ready) {
        // It never became ready: starting another would fail the same way.
        for (const job of this.waiting.splice(0)) job.reject(err);
      }
      this.next();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The PDF worker stopped (exit code ${code}).`)));
    this.worker = worker;
    return worker;
  }

  private next() {
    if (this.current || this.closed || this.waiting.length === 0) return;
    const worker = this.ensureWorker();
    if (!this.ready) return; // its 'ready' calls next() again
    const job = this.waiting.shift()!;
    const timer = setTimeout(() => {
      if (this.current?.job !== job) return;
      // Past its time: the worker is ended (its layout cannot be interrupted otherwise).
      this.current = null;
      this.worker = null;
      job.reject(busy(`The PDF took longer than ${this.limits.pdfTimeoutMs} ms to make.`));
      void worker.terminate().finally(() => this.next());
    }, this.limits.pdfTimeoutMs);
    this.current = { job, timer };
    worker.postMessage({ id: job.id, document: job.document } satisfies PdfRequest);
  }
}
