// Durable background work: a row in `jobs` per task, claimed by a polling worker,
// retried with exponential backoff. On PostgreSQL the claim uses FOR UPDATE SKIP LOCKED
// so several server processes can share the table; a job whose claim expired (its
// process died) is claimed again, so work resumes after a crash.
import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { isPostgres } from '../db/helpers.js';

export interface JobContext { db: Kysely<Database>; jobid: number; attempt: number; log: FastifyBaseLogger }
export type JobHandler = (payload: any, ctx: JobContext) => Promise<void>;

export interface EnqueueOptions {
  runAt?: number;
  maxAttempts?: number;
}

/** Adds a job; call it inside the transaction of the write that needs it. */
export async function enqueueJob(db: Kysely<Database>, clock: Clock, type: string, payload: unknown, options: EnqueueOptions = {}) {
  const now = clock.now();
  const row = await db
    .insertInto('jobs')
    .values({ type, payload: JSON.stringify(payload), status: 'pending', run_at: options.runAt ?? now, attempts: 0, max_attempts: options.maxAttempts ?? 5, locked_until: null, last_error: null, created_date: now, finished_date: null })
    .returning('jobid')
    .executeTakeFirstOrThrow();
  return row.jobid;
}

/** How long a claimed job may run before another worker may take it over, in seconds (JOB_LEASE_SECONDS). */
export const DEFAULT_LEASE_SECONDS = 300;

export class JobWorker {
  private handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private paused = false;

  constructor(private db: Kysely<Database>, private clock: Clock, private log: FastifyBaseLogger, private pollMs: number, private leaseSeconds = DEFAULT_LEASE_SECONDS) {}

  register(type: string, handler: JobHandler) {
    this.handlers.set(type, handler);
  }

  start() {
    if (this.pollMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref();
  }

  /** Stops polling and waits for the job in hand. */
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Tests pause the worker so that a database checksum is stable. */
  pause() { this.paused = true; }
  resume() { this.paused = false; }

  private async tick() {
    if (this.running || this.paused) return;
    this.running = this.runDue().then(() => undefined, (err) => this.log.error({ err }, 'job worker failed'));
    await this.running;
    this.running = null;
  }

  /** Runs every due job once; returns how many ran. Tests call it to drain the queue. */
  async runDue(limit = 100): Promise<number> {
    let n = 0;
    while (n < limit) {
      const job = await this.claim();
      if (!job) break;
      n++;
      const handler = this.handlers.get(job.type);
      try {
        if (!handler) throw new Error(`no handler for job type ${job.type}`);
        await handler(JSON.parse(job.payload), { db: this.db, jobid: job.jobid, attempt: job.attempts, log: this.log });
        await this.db.updateTable('jobs').set({ status: 'done', finished_date: this.clock.now(), locked_until: null, last_error: null }).where('jobid', '=', job.jobid).execute();
      } catch (err) {
        const failed = job.attempts >= job.max_attempts;
        const backoff = Math.min(3600, 5 * 2 ** (job.attempts - 1));
        this.log.warn({ err, jobid: job.jobid, type: job.type, attempt: job.attempts }, failed ? 'job failed for good' : 'job failed; will retry');
        await this.db
          .updateTable('jobs')
          .set({ status: failed ? 'failed' : 'pending', run_at: this.clock.now() + backoff, locked_until: null, last_error: String((err as Error)?.message ?? err).slice(0, 2000), finished_date: failed ? this.clock.now() : null })
          .where('jobid', '=', job.jobid)
          .execute();
      }
    }
    return n;
  }

  private async claim() {
    const now = this.clock.now();
    const lock = isPostgres(this.db) ? sql`for update skip locked` : sql``;
    const result = await sql<Database['jobs'] & { jobid: number }>`
      update jobs set status = 'running', attempts = attempts + 1, locked_until = ${now + this.leaseSeconds}
      where jobid = (
        select jobid from jobs
        where (status = 'pending' and run_at <= ${now}) or (status = 'running' and locked_until < ${now})
        order by run_at, jobid limit 1 ${lock}
      )
      returning *`.execute(this.db);
    return result.rows[0];
  }
}
