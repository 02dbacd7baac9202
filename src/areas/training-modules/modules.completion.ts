// What a completed attempt does to the learner's courses: completes the learner's course
// stages that point at the module (only a module completes such a stage), on that module
// version, through the courses area's shared contract.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
import type { AttemptRow } from './modules.queries.js';
import type { ProgressActor } from '../shared/course-progress.js';

/** Called inside the commit's transaction, once per attempt. Answers how many stages completed. */
export function completeModuleStages(trx: Kysely<Database>, clock: Clock, attempt: AttemptRow, actor: ProgressActor): Promise<number> {
  return completeStagesOnDocument(trx, clock, {
    userid: attempt.userid,
    doctype: 'external_training_module',
    docid: attempt.external_training_moduleid,
    doc_revisionid: attempt.importid,
    via: 'module',
    source: { module_attemptid: attempt.module_attemptid },
    actor,
  });
}
