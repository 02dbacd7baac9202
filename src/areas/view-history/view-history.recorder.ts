// Views of guides and wikis, recorded without slowing reads down: a read adds its view
// to an in-memory buffer, which is written in one INSERT within a second (or sooner when
// it fills up), and on app close. Best-effort by design: a crash loses at most the
// views of the last second; a failed write is logged and dropped, never reported to
// the reader. One recorder per database (the app's), created on first use.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export type ViewDocType = 'guide' | 'wiki';

export interface PendingView {
  userid: number;
  doc_type: ViewDocType;
  docid: number;
  langid: string;
  date: number;
}

export interface RecorderOptions {
  /** Longest a view waits in the buffer, in milliseconds (at most 1000). */
  flushMs?: number;
  /** A buffer this full is written at once. */
  maxBuffer?: number;
  onError?: (err: unknown) => void;
}

export class ViewRecorder {
  private buffer: PendingView[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  readonly flushMs: number;
  private readonly maxBuffer: number;
  onError: (err: unknown) => void;

  constructor(private readonly db: Kysely<Database>, options: RecorderOptions = {}) {
    this.flushMs = Math.min(options.flushMs ?? 1000, 1000);
    this.maxBuffer = options.maxBuffer ?? 500;
    this.onError = options.onError ?? (() => {});
  }

  /** Buffers a view; never throws and never waits for the database. */
  record(view: PendingView): void {
    if (this.closed) return;
    this.buffer.push(view);
    if (this.buffer.length >= this.maxBuffer) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Writes what is buffered; resolves when it (and any write already running) is done. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length > 0) {
      this.writing = this.writing.then(() => this.write(batch));
    }
    return this.writing;
  }

  private async write(batch: PendingView[]): Promise<void> {
    for (let i = 0; i < batch.length; i += 500) {
      const chunk = batch.slice(i, i + 500);
      try {
        await this.db.insertInto('view_history').values(chunk).execute();
      } catch (err) {
        // One bad row (its user deleted meanwhile) must not lose the others.
        this.onError(err);
        for (const view of chunk) {
          try {
            await this.db.insertInto('view_history').values(view).execute();
          } catch {}
        }
      }
    }
  }

  /** Flushes and stops taking views (app close). */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }
}

const recorders = new WeakMap<Kysely<Database>, ViewRecorder>();

/** The recorder of a database, created on first use. */
export function viewRecorder(db: Kysely<Database>): ViewRecorder {
  let r = recorders.get(db);
  if (!r) {
    r = new ViewRecorder(db);
    recorders.set(db, r);
  }
  return r;
}

/** Records that a logged-in user viewed a guide or wiki (no-op for anonymous readers). */
export function recordView(db: Kysely<Database>, userid: number | null | undefined, docType: ViewDocType, docid: number, langid: string, date: number): void {
  if (!userid) return;
  viewRecorder(db).record({ userid, doc_type: docType, docid, langid, date });
}
