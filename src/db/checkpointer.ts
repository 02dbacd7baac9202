// SQLite's WAL checkpoints, off the event loop. By default the connection that commits
// the 1000th page of the WAL copies the log into the database file and syncs it, inside
// that commit: on a 2 GB site that was 0.4 to 0.75 s for one write (the p99 of guide
// edits), while every other request waited on the process's only thread. The server's
// connection turns automatic checkpoints off and a worker thread with its own connection
// runs a PASSIVE checkpoint every second (it never waits for readers or writers, and
// they never wait for it). Several server processes each run one; they take turns.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

/** The worker: CommonJS, evaluated from this string so it needs no build step. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
// Keep the WAL file from staying at its largest size after a burst of writes.
db.pragma('journal_size_limit = ' + (64 * 1024 * 1024));
const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    return { busy: r.busy, log: r.log, checkpointed: r.checkpointed };
  } catch (err) {
    return { busy: 1, log: -1, checkpointed: -1, error: String(err && err.message || err) };
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'now') parentPort.postMessage(checkpoint());
  if (m === 'stop') { clearInterval(timer); db.close(); parentPort.close(); }
});
`;

export interface CheckpointResult { busy: number; log: number; checkpointed: number; error?: string }

export interface Checkpointer {
  /** A checkpoint now (tests, and before a backup): frames in the WAL and frames copied. */
  now(): Promise<CheckpointResult>;
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, intervalMs = 1000): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
  // It must not keep a process alive that has nothing else to do.
  worker.unref();
  worker.on('error', () => {}); // a failed checkpoint is retried by the next tick; never fatal to the server
  let stopped = false;
  return {
    now: () => new Promise((resolve) => {
      worker.once('message', resolve);
      worker.postMessage('now');
    }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
    },
  };
}
