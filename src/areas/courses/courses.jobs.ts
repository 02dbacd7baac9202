// The expiry job: applies expiry from recurrence and due dates (shared/course-progress.ts
// `expireDue`) at the app's clock, then makes sure a run is pending for the earliest date
// left to check. Idempotent: a second run (or two at once) finds nothing more to move.
// Reads bring their course or user up to now the same way, so a read between runs
// answers what the next run stores.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { JobContext } from '../../jobs/queue.js';
import { ensureExpiryRun, EXPIRY_JOB } from '../shared/course-progress.js';
import { runExpiry } from './courses.service.js';

export { EXPIRY_JOB };

/** Runs expiry at `now`; answers the rows moved. */
export async function expireCourses(db: Kysely<Database>, now: number): Promise<number> {
  const n = await runExpiry(db, now);
  const next = await db.selectFrom('course_assignees').select((eb) => eb.fn.min('next_check_date').as('at')).where('active', '=', 1).executeTakeFirst();
  if (next?.at != null) await ensureExpiryRun(db, now, Number(next.at) > now ? Number(next.at) : now + 60);
  return n;
}

export const expiryJob = (_config: Config, clock: Clock) => async (_payload: unknown, ctx: JobContext) => {
  await expireCourses(ctx.db, clock.now());
};
