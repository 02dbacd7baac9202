// What a completed attempt does to the learner's courses: completes the course stages that
// point at the module, on that module version (the courses area's shared contract).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import type { AttemptRow } from './modules.queries.js';

/** Called inside the commit's transaction, once per attempt. Answers how many stages completed. */
export async function completeModuleStages(_trx: Kysely<Database>, _clock: Clock, _attempt: AttemptRow): Promise<number> {
  // Wired to completeStagesOnDocument once the courses area is merged (courses14).
  return 0;
}
