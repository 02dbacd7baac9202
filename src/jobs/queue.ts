// Durable background work: a row in `jobs` per task, claimed by a polling worker,
// retried with exponential backoff. On PostgreSQL the claim uses FOR UPDATE SKIP LOCKED
// so several server processes can share the table; a job whose claim expired (its
// process died) is claimed again, so work resumes after a crash.
//
// Jobs run in lanes (media work, mail, everything else), each with its own concurrency,
// so that a long encode never delays a password-reset mail. A job's attempt is counted
// when it is claimed: a job that kills its process (or hangs past its lease) still uses
// up its attempts and is failed for good after its maximum.
import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { isPostgres } from '../db/helpers.js';

export interface JobContext {
  db: Kysely<Database>;
  /** The app's clock (scheduling: a job that enqueues a later one reads it). */
  clock: Clock;
  jobid: number;
  attempt: number;
  log: FastifyBaseLogger;
  /** Aborted when the server shuts down; long work stops and the job is taken up again later. */
  signal: AbortSignal;
  /** Keeps the claim: call it while long work goes on, so that no other worker takes the job. */
  extendLease: () => Promise<void>;
}
export type JobHandler = (payload: any, ctx: JobContext) => Promise<void>;

export const LANES = ['media', 'mail', 'other'] as const;
export type Lane = (typeof LANES)[number];

/** A job type: its handler, its lane (default `other`), and what to do when it is given up. */
export interface JobType {
  run: JobHandler;
  lane?: Lane;
  /** Called once when the job is failed for good without its handler failing it (its process died in the last attempt). */
  giveUp?: (payload: any, ctx: { db: Kysely<Database>; jobid: number; reason: string }) => Promise<void>;
}

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

export interface WorkerOptions {
  pollMs: number;
  /** Whether this process claims jobs at all (JOB_WORKERS, default true); false: `start()` does nothing, jobs are only enqueued here. */
  claims?: boolean;
  leaseSeconds?: number;
  /** Jobs of a lane running at once in this process (default 1 each). */
  concurrency?: Partial<Record<Lane, number>>;
}

type Claimed = Database['jobs'] & { jobid: number; attempts: number; max_attempts: number };

export class JobWorker {
  private types = new Map<string, JobType>();
  private timer: NodeJS.Timeout | null = null;
  private running = new Set<Promise<void>>();
  private runningIn = new Map<Lane, number>();
  private paused = false;
  private stopping = new AbortController();
  private leaseSeconds: number;

  constructor(private db: Kysely<Database>, private clock: Clock, private log: FastifyBaseLogger, private options: WorkerOptions) {
    this.leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  }

  register(type: string, job: JobHandler | JobType) {
    this.types.set(type, typeof job === 'function' ? { run: job } : job);
  }

  /** Starts polling for due jobs, unless this process claims none (JOB_WORKERS=false, or JOB_POLL_MS=0). */
  start() {
    if (this.options.claims === false || this.options.pollMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.tick(), this.options.pollMs);
    this.timer.unref();
  }

  /** Whether the worker polls for jobs (started, claiming, not stopped). */
  get polling(): boolean {
    return this.timer !== null;
  }

  /** Stops polling, cancels the jobs in hand (their programs are killed) and waits for them. */
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  /** Tests pause the worker so that a database checksum is stable. */
  pause() { this.paused = true; }
  resume() { this.paused = false; }

  /** The lane a job type runs in (`other` for a type this process does not know). */
  laneOf(type: string): Lane {
    return this.types.get(type)?.lane ?? 'other';
  }

  private typesOf(lane: Lane): string[] {
    return [...this.types].filter(([, j]) => (j.lane ?? 'other') === lane).map(([t]) => t);
  }

  /** Fills each lane's free slots with due jobs; the jobs run on without being awaited. */
  private tick() {
    if (this.paused || this.stopping.signal.aborted) return;
    for (const lane of LANES) {
      const limit = this.options.concurrency?.[lane] ?? 1;
      const busy = this.runningIn.get(lane) ?? 0;
      if (busy >= limit) continue;
      this.runningIn.set(lane, busy + 1);
      const work = this.runLane(lane).catch((err) => this.log.error({ err, lane }, 'job worker failed'))
        .finally(() => {
          this.runningIn.set(lane, (this.runningIn.get(lane) ?? 1) - 1);
          this.running.delete(work);
        });
      this.running.add(work);
    }
  }

  /** Runs the lane's due jobs one after another until none is due (one slot of the lane). */
  private async runLane(lane: Lane) {
    const types = this.typesOf(lane);
    if (!types.length) return;
    while (!this.paused && !this.stopping.signal.aborted) {
      const job = await this.claim(types);
      if (!job) return;
      await this.execute(job);
    }
  }

  /** Runs every due job once, in every lane, one at a time; returns how many ran. Tests call it to drain the queue. */
  async runDue(limit = 100): Promise<number> {
    let n = 0;
    while (n < limit) {
      const job = await this.claim([...this.types.keys()]);
      if (!job) break;
      n++;
      await this.execute(job);
    }
    return n;
  }

  private async execute(job: Claimed) {
    const type = this.types.get(job.type);
    if (job.attempts > job.max_attempts) return this.abandon(job, type);
    const leaseTo = () => this.clock.now() + this.leaseSeconds;
    const extendLease = async () => {
      await this.db.updateTable('jobs').set({ locked_until: leaseTo() }).where('jobid', '=', job.jobid).where('status', '=', 'running').execute();
    };
    try {
      if (!type) throw new Error(`no handler for job type ${job.type}`);
      await type.run(JSON.parse(job.payload), { db: this.db, clock: this.clock, jobid: job.jobid, attempt: job.attempts, log: this.log, signal: this.stopping.signal, extendLease });
      await this.db.updateTable('jobs').set({ status: 'done', finished_date: this.clock.now(), locked_until: null, last_error: null }).where('jobid', '=', job.jobid).execute();
    } catch (err) {
      if (this.stopping.signal.aborted) {
        // Shut down mid-way: not the job's fault; it is taken up again (this attempt is not counted).
        await this.db.updateTable('jobs').set({ status: 'pending', run_at: this.clock.now(), locked_until: null, attempts: Math.max(0, job.attempts - 1) }).where('jobid', '=', job.jobid).execute();
        return;
      }
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

  /** A job claimed again after its last attempt never finished (its process died or hung): failed for good. */
  private async abandon(job: Claimed, type: JobType | undefined) {
    const reason = `gave up after ${job.max_attempts} attempts; the last one never finished (its process stopped or hung)`;
    this.log.warn({ jobid: job.jobid, type: job.type }, reason);
    await this.db.updateTable('jobs').set({ status: 'failed', attempts: job.max_attempts, locked_until: null, last_error: reason, finished_date: this.clock.now() }).where('jobid', '=', job.jobid).execute();
    try {
      await type?.giveUp?.(JSON.parse(job.payload), { db: this.db, jobid: job.jobid, reason });
    } catch (err) {
      this.log.error({ err, jobid: job.jobid }, 'giving up a job failed');
    }
  }

  /** Claims the next due job of these types, counting the attempt. Tests call it to simulate a worker that dies holding a job. */
  async claim(types: string[]): Promise<Claimed | undefined> {
    if (!types.length) return undefined;
    const now = this.clock.now();
    const due = sql`((status = 'pending' and run_at <= ${now}) or (status = 'running' and locked_until < ${now})) and type in (${sql.join(types)})`;
    // Asked first with a read: on SQLite any statement that may write moves the change
    // version that the reads kept in memory are checked against (db/kept-reads.ts), and
    // every lane's poll finding nothing due (24 in 8 s of a benchmark) threw away every
    // kept guide head (a third of a hot guide's reads read their head again).
    if ((await sql`select 1 as due from jobs where ${due} limit 1`.execute(this.db)).rows.length === 0) return undefined;
    const lock = isPostgres(this.db) ? sql`for update skip locked` : sql``;
    const result = await sql<Claimed>`
      update jobs set status = 'running', attempts = attempts + 1, locked_until = ${now + this.leaseSeconds}
      where jobid = (
        select jobid from jobs where ${due}
        order by run_at, jobid limit 1 ${lock}
      )
      returning *`.execute(this.db);
    return result.rows[0];
  }
}
