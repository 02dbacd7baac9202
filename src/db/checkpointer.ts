// SQLite's upkeep, off the event loop: WAL checkpoints and the full-text index's merges.
//
// Checkpoints: by default the connection that commits the 1000th page of the WAL copies
// the log into the database file and syncs it, inside that commit: on a 2 GB site that was
// 0.4 to 0.75 s for one write (the p99 of guide edits), while every other request waited
// on the process's only thread. The server's connection turns automatic checkpoints off
// and a worker thread with its own connection runs a PASSIVE checkpoint every second (it
// never waits for readers or writers, and they never wait for it).
//
// The log: writes to search_docs reach the full-text index through a log (migration
// 2026_11_25_0900_search_index_log); each step first replays a batch of it, LOG_BATCH
// rows (about a hundred documents) to one segment, and merges only when it is empty.
//
// Merges: every commit that writes search_fts (a replay, a search's own) adds a segment to the
// FTS5 index, and FTS5 merged segments inside such commits: most paid nothing, some tens
// to hundreds of milliseconds (at 100 000 guides a comment's COMMIT took 0.79 ms on
// average with them, 0.26 to 0.30 ms without). Automatic merging is off (migration
// 2026_11_25_0700_search_background_merge) and this worker merges instead, in steps of
// MERGE_PAGES pages (FTS5's 'merge' command: levels of at least `usermerge`, 8, segments;
// see the migration), one after another while there is work, else once a second. A step mostly takes 1 to 3 ms, at
// times tens (it ends at a term's end, and a one-letter prefix's list spans many pages).
// It holds SQLite's write lock, which the server's connection would wait for
// synchronously (busy_timeout: the event loop stalls), so the two take turns through a
// gate in shared memory first: the worker steps only while the server has no write
// transaction open, and a transaction that begins during a step awaits its end without
// blocking the event loop (`beginWrite`). Past the gate (another process writing), the
// worker's connection never waits (busy_timeout 0): the step fails busy and is tried
// again MERGE_GAP_MS later. If the worker falls behind, FTS5's `crisismerge` (16
// segments on a level) still merges inside the commit that reaches it. Several server
// processes each run one worker; they take turns through SQLite's lock.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { SEARCH_LOG_CLEAR_UPTO, SEARCH_LOG_REPLAY_UPTO } from './search.js';

/** Pages (of about 4 KB) one merge step writes, at least. */
const MERGE_PAGES = 16;
/** Rows of the full-text index's log one step replays, at most (two per edited document). */
const LOG_BATCH = 256;
/** While another process holds the write lock, the pause before trying again; while the server writes, the longest wait at the gate at a time. */
const MERGE_GAP_MS = 10;

/** The gate's slots (Int32Array over a SharedArrayBuffer): write transactions the server has open, and 1 while a merge step runs. */
const WRITING = 0;
const MERGING = 1;

/** The worker: CommonJS, evaluated from this string so it needs no build step. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
// Its own commits (the log's replays, merge steps) must not checkpoint either: SQLite's
// automatic checkpoint runs right after the commit that passes 1000 pages of WAL, inside
// the step, while the server's writes wait at the gate (at 100 000 guides, 20 to 100 ms of
// fsync and copying: the comment POST's p99). The timer below checkpoints instead.
db.pragma('wal_autocheckpoint = 0');
// Keep the WAL file from staying at its largest size after a burst of writes.
db.pragma('journal_size_limit = ' + (64 * 1024 * 1024));
const errorText = (err) => String(err && err.message || err);
const isBusy = (err) => typeof (err && err.code) === 'string' && err.code.startsWith('SQLITE_BUSY');

const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    return { busy: r.busy, log: r.log, checkpointed: r.checkpointed };
  } catch (err) {
    return { busy: 1, log: -1, checkpointed: -1, error: errorText(err) };
  }
};

const gate = new Int32Array(workerData.gate);
const hasIndex = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'search_fts'").pluck();
const totalChanges = db.prepare('select total_changes()').pluck();
let merge = null;
// The log of writes the index has not been told yet (search.ts, logSqliteFtsWrites): a
// batch of its first rows, replayed in one transaction. True when there was one.
const hasLog = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'search_fts_log'").pluck();
let log = null;
const replayBatch = () => {
  if (!log) {
    if (!hasLog.get()) return false;
    log = {
      end: db.prepare('select max(seq) from (select seq from search_fts_log order by seq limit ' + workerData.logBatch + ')').pluck(),
      replay: db.prepare(${JSON.stringify(SEARCH_LOG_REPLAY_UPTO)}),
      clear: db.prepare(${JSON.stringify(SEARCH_LOG_CLEAR_UPTO)}),
    };
  }
  const upto = log.end.get();
  if (upto === null) return false;
  db.exec('begin immediate');
  try {
    log.replay.run(upto);
    log.clear.run(upto);
    db.exec('commit');
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    throw err;
  }
  return true;
};
// One merge step, unless the server is writing. The gate: this side raises MERGING, then
// looks at WRITING; the server raises WRITING, then looks at MERGING (sequentially
// consistent), so at most one of them goes on. FTS5 counts the rows it writes as
// changes: two or more mean it merged.
const mergeStep = () => {
  if (Atomics.load(gate, ${WRITING}) > 0) return { merged: false, busy: 1, writing: true };
  Atomics.store(gate, ${MERGING}, 1);
  try {
    if (Atomics.load(gate, ${WRITING}) > 0) return { merged: false, busy: 1, writing: true };
    if (!hasIndex.get()) return { merged: false, busy: 0 };
    if (replayBatch()) return { merged: true, busy: 0 };
    merge ??= db.prepare("insert into search_fts(search_fts, rank) values ('merge', " + workerData.mergePages + ")");
    const before = totalChanges.get();
    merge.run();
    return { merged: totalChanges.get() - before >= 2, busy: 0 };
  } catch (err) {
    if (isBusy(err)) return { merged: false, busy: 1 };
    return { merged: false, busy: 0, error: errorText(err) };
  } finally {
    Atomics.store(gate, ${MERGING}, 0);
    Atomics.notify(gate, ${MERGING});
  }
};

const checkpointTimer = setInterval(checkpoint, workerData.intervalMs);
// While there is work, steps follow one another whenever the server is not writing (this
// thread waits on the gate for the server's transaction to end, a little at a time so it
// still answers messages); another process writing: again a little later; nothing to
// merge: again at the next tick.
let mergeTimer = null;
const mergeWhileWork = () => {
  const result = mergeStep();
  if (result.writing) {
    Atomics.wait(gate, ${WRITING}, Atomics.load(gate, ${WRITING}) || 1, workerData.mergeGapMs);
    mergeTimer = setTimeout(mergeWhileWork, 0);
  } else {
    mergeTimer = setTimeout(mergeWhileWork, result.merged ? 0 : result.busy ? workerData.mergeGapMs : workerData.intervalMs);
  }
};
if (workerData.mergeInBackground) mergeTimer = setTimeout(mergeWhileWork, workerData.intervalMs);

parentPort.on('message', (m) => {
  if (m === 'checkpoint') parentPort.postMessage(checkpoint());
  if (m === 'merge') parentPort.postMessage(mergeStep());
  if (m === 'stop') {
    clearInterval(checkpointTimer);
    clearTimeout(mergeTimer);
    db.close();
    parentPort.close();
  }
});
`;

export interface CheckpointResult { busy: number; log: number; checkpointed: number; error?: string }
/** One step of the index's upkeep: whether it wrote anything (a batch of the log, or a merge), or found the write lock taken (busy 1; `writing`: by this process's server, at the gate). */
export interface MergeResult { merged: boolean; busy: number; writing?: boolean; error?: string }

/** The server's side of the gate: around every write transaction of its connection. */
export interface WriteGate {
  /** Before BEGIN: waits (without blocking the event loop) for a merge step under way to end. */
  beginWrite(): Promise<void>;
  /** After COMMIT or ROLLBACK. */
  endWrite(): void;
}

export interface Checkpointer extends WriteGate {
  /** A checkpoint now (tests, and before a backup): frames in the WAL and frames copied. */
  now(): Promise<CheckpointResult>;
  /** One merge step of the full-text index now (tests): busy 1 when the server was writing. */
  mergeStep(): Promise<MergeResult>;
  stop(): Promise<void>;
}

// Atomics.waitAsync (ES2024, in Node since 16) is not in the ES2023 library types.
type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export interface CheckpointerOptions {
  intervalMs?: number;
  /** Merge steps on the worker's own schedule (off: only `mergeStep()`, for tests that drive it). */
  mergeInBackground?: boolean;
}

export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const gate = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const workerData = {
    file, driver, gate: gate.buffer, intervalMs: options.intervalMs ?? 1000, mergeInBackground: options.mergeInBackground ?? true,
    mergePages: MERGE_PAGES, mergeGapMs: MERGE_GAP_MS, logBatch: LOG_BATCH,
  };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // It must not keep a process alive that has nothing else to do.
  worker.unref();
  // A failed checkpoint or merge is retried later; never fatal to the server. A worker that
  // ended in the middle of a step must not leave the gate closed to every write.
  const openGate = () => {
    Atomics.store(gate, MERGING, 0);
    Atomics.notify(gate, MERGING);
  };
  worker.on('error', openGate);
  worker.on('exit', openGate);
  let stopped = false;
  // The worker answers messages one at a time, in the order they were sent.
  const waiting: Array<(answer: unknown) => void> = [];
  worker.on('message', (answer: unknown) => waiting.shift()?.(answer));
  const ask = <T>(message: string) => new Promise<T>((resolve) => {
    waiting.push(resolve as (answer: unknown) => void);
    worker.postMessage(message);
  });
  return {
    beginWrite: async () => {
      Atomics.add(gate, WRITING, 1);
      while (Atomics.load(gate, MERGING) === 1) {
        const wait = waitAsync(gate, MERGING, 1);
        if (wait.async) await wait.value;
      }
    },
    endWrite: () => {
      Atomics.sub(gate, WRITING, 1);
      Atomics.notify(gate, WRITING);
    },
    now: () => ask<CheckpointResult>('checkpoint'),
    mergeStep: () => ask<MergeResult>('merge'),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
    },
  };
}
