// Writes of concurrent requests committed together on SQLite. A commit writes every page
// the transaction changed to the WAL, two system calls a page, and takes and drops the
// locks: for a comment, about 13 pages (its row, five index leaves, the search document
// and its log, the stamps' row), most of them the same pages as the comment before it
// (the tables' last leaves, the stamps' row). Concurrent writes of the same kind are
// queued and run at the next turn of the event loop in one transaction, each in a
// savepoint of its own: one that fails is undone alone and its caller gets its error;
// the others commit, and every caller is answered after the commit (or gets its error if
// the commit fails). PostgreSQL commits each write alone (its own group commit is the
// server's `commit_delay`), and so does a write given a transaction.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { isPostgres } from './helpers.js';
import { auditQueueMark, rollbackAuditQueue } from './audit-append.js';

type Db = Kysely<Database>;

interface Waiting<A, R> { args: A; resolve: (value: R) => void; reject: (err: unknown) => void }

// Taken when the module loads: a test's fake timers must not hold a batch back.
const nextTurn = globalThis.setImmediate;

/**
 * `write(db, args)`, committed with the writes of the same function that other requests
 * asked for meanwhile (SQLite). `write` runs one statement or several, given the
 * transaction; it must not open one of its own.
 */
export function groupCommitted<A, R>(write: (db: Db, args: A) => Promise<R>): (db: Db, args: A) => Promise<R> {
  const queues = new WeakMap<Db, { waiting: Array<Waiting<A, R>>; scheduled: boolean }>();

  async function flush(db: Db, batch: Array<Waiting<A, R>>): Promise<void> {
    if (batch.length === 1) {
      // Alone: its own statement's transaction, no savepoint.
      const [one] = batch;
      return write(db, one.args).then(one.resolve, one.reject);
    }
    const outcomes: Array<{ value: R } | { error: unknown }> = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const w of batch) {
          await sql`savepoint grouped_write`.execute(trx);
          // The audit entries it queued stay only with a savepoint that is kept (audit-append.ts).
          const audited = await auditQueueMark(trx);
          try {
            outcomes.push({ value: await write(trx, w.args) });
          } catch (error) {
            outcomes.push({ error });
            await sql`rollback to grouped_write`.execute(trx);
            await rollbackAuditQueue(trx, audited);
          }
          await sql`release grouped_write`.execute(trx);
        }
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if ('error' in outcome) w.reject(outcome.error);
      else w.resolve(outcome.value);
    });
  }

  return (db, args) => {
    if (db.isTransaction || isPostgres(db)) return write(db, args);
    let queue = queues.get(db);
    if (!queue) queues.set(db, (queue = { waiting: [], scheduled: false }));
    const q = queue;
    return new Promise<R>((resolve, reject) => {
      q.waiting.push({ args, resolve, reject });
      if (q.scheduled) return;
      q.scheduled = true;
      nextTurn(() => {
        const batch = q.waiting;
        q.waiting = [];
        q.scheduled = false;
        void flush(db, batch);
      });
    });
  };
}
