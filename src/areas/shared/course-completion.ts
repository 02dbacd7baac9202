// Completing course stages: the one function every way of completing calls (the explicit
// complete, a guide marked completed, a finished work log entry, a passed quiz, an
// acknowledged sign-off, a completed training module, a manager's override), inside the
// caller's transaction. It completes the user's assigned stages on one document that the
// way may complete, ties each completion to the document revision it was made on and to
// what made it, keeps the stored assignee rows current and publishes
// `Courses.StageCompleted` in the same transaction (the webhook outbox: no event without
// the completion). Below the areas, like course-status.ts.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import type { CompletionVia, CourseDoctype } from '../courses/courses.tables.js';
import { publishEvent } from '../webhooks/webhooks.outbox.js';
import { assignedStages, type AssignedStage } from './course-status.js';
import { auditProgress, claimStatus, expiryOf, refreshAssignees, syncAssignees, type ProgressActor } from './course-progress.js';
import { selfOverride } from './oversight.js';

type Db = Kysely<Database>;

export type CompletionWay = 'explicit' | 'guide_completed' | 'work_log' | 'quiz' | 'signoff' | 'module';

export interface CompletionSource {
  work_log_entryid?: number | null;
  quiz_sessionid?: number | null;
  signoff_requestid?: number | null;
  module_attemptid?: number | null;
}

export interface CompleteStagesInput {
  userid: number;
  doctype: CourseDoctype;
  docid: number;
  /** The document revision the completion was made on (guide or wiki revisionid, module version). */
  doc_revisionid: number | null;
  via: CompletionWay;
  /** Who completed (the audit entry's actor: see ProgressActor). */
  actor: ProgressActor;
  /** Only this stage (it must be one of the user's assigned stages on the document). */
  course_stageid?: number;
  source?: CompletionSource;
}

/**
 * Whether `via` may complete `stage`: a quiz stage only by a passed quiz, a sign-off stage
 * only by an acknowledged sign-off, a training module stage only by the module; every
 * other stage by any way. A manager's override ('manager', 'bulk') completes any stage.
 */
export function wayCompletes(stage: Pick<AssignedStage, 'assessmenttype' | 'doctype'>, via: CompletionVia): boolean {
  if (via === 'manager' || via === 'bulk') return true;
  if (stage.assessmenttype === 'quiz') return via === 'quiz';
  if (stage.assessmenttype === 'signoff') return via === 'signoff';
  if (stage.doctype === 'external_training_module') return via === 'module';
  return true;
}

/** The title a Courses.StageCompleted event names (the document's). */
async function docTitle(db: Db, doctype: string, docid: number): Promise<string> {
  if (doctype === 'guide') {
    const g = await db.selectFrom('guides').select('title').where('guideid', '=', docid).orderBy('langid').executeTakeFirst();
    return g?.title ?? '';
  }
  if (doctype === 'wiki') {
    const w = await db.selectFrom('wikis').select('title').where('wikiid', '=', docid).executeTakeFirst();
    return w?.title ?? '';
  }
  return '';
}

/**
 * Completes `stages` (already chosen and allowed) for `userid`; answers how many moved to
 * completed (a stage already completed is left as it is: of identical concurrent calls
 * one completes).
 */
export async function completeStages(trx: Db, clock: Clock, userid: number, stages: AssignedStage[], c: { doc_revisionid: number | null; via: CompletionVia; source?: CompletionSource; manager_override_userid?: number | null; actor: ProgressActor }): Promise<number> {
  const now = clock.now();
  let n = 0;
  const touched = new Set<number>();
  for (const stage of stages) {
    const before = await trx.selectFrom('course_stage_statuses').select(['status', 'completionid'])
      .where('course_stageid', '=', stage.course_stageid).where('userid', '=', userid).executeTakeFirst();
    if (before?.status === 'completed') continue;
    if (!(await claimStatus(trx, now, stage, userid, ['started', 'expired', 'invalidated'], 'completed'))) continue;
    const fields = {
      doc_revisionid: c.doc_revisionid,
      via: c.via,
      end_date: now,
      work_log_entryid: c.source?.work_log_entryid ?? null,
      quiz_sessionid: c.source?.quiz_sessionid ?? null,
      signoff_requestid: c.source?.signoff_requestid ?? null,
      module_attemptid: c.source?.module_attemptid ?? null,
      manager_override_userid: c.manager_override_userid ?? null,
      self_override: selfOverride(c.manager_override_userid, userid),
    };
    let completionid: number;
    if (before?.status === 'started' && before.completionid) {
      await trx.updateTable('course_stage_completions').set(fields).where('course_assignment_stage_completionid', '=', before.completionid).execute();
      completionid = before.completionid;
    } else {
      const row = await trx.insertInto('course_stage_completions')
        .values({ course_stageid: stage.course_stageid, wikiid: stage.wikiid, userid, doctype: stage.doctype, docid: stage.docid, init_date: now, invalidated_date: null, expired_date: null, ...fields })
        .returning('course_assignment_stage_completionid').executeTakeFirstOrThrow();
      completionid = row.course_assignment_stage_completionid;
    }
    await trx.updateTable('course_stage_statuses').set({ completionid, expires_date: expiryOf(stage, now) })
      .where('course_stageid', '=', stage.course_stageid).where('userid', '=', userid).execute();
    const override = c.via === 'manager' || c.via === 'bulk';
    await auditProgress(trx, c.actor, now, override ? 'course.completion_overridden' : 'course.stage_completed', completionid, stage, userid, {
      doctype: stage.doctype, docid: stage.docid, doc_revisionid: c.doc_revisionid, via: c.via,
      ...(override ? { self_override: fields.self_override === 1 } : {}),
      ...Object.fromEntries(Object.entries(c.source ?? {}).filter(([, v]) => v != null)),
    });
    const init = await trx.selectFrom('course_stage_completions').select('init_date').where('course_assignment_stage_completionid', '=', completionid).executeTakeFirstOrThrow();
    await publishEvent(trx, clock, {
      key: 'Courses.StageCompleted',
      title: 'Course Stage Completed',
      description: 'A user completed a document of a course stage.',
      data: async () => ({
        course_stageid: stage.course_stageid, docid: stage.docid, doctype: stage.doctype, title: await docTitle(trx, stage.doctype, stage.docid), userid,
        doc_completion: { course_assignment_stage_completionid: completionid, init_date: Number(init.init_date), end_date: now },
      }),
    });
    touched.add(stage.wikiid);
    n++;
  }
  if (n) await syncAssignees(trx, now, { userid });
  for (const wikiid of touched) await refreshAssignees(trx, now, wikiid, [userid]);
  return n;
}

/**
 * Completes the user's assigned stages on the document (all of them, or only
 * `course_stageid`) that `via` may complete (see `wayCompletes`); answers how many
 * completed. Call it inside the transaction of the write that completes (a work log
 * finish, a quiz submission, an acknowledgement...).
 */
export async function completeStagesOnDocument(trx: Db, clock: Clock, input: CompleteStagesInput): Promise<number> {
  const stages = (await assignedStages(trx, input.userid, { doctype: input.doctype, docid: input.docid }))
    .filter((s) => (input.course_stageid === undefined || s.course_stageid === input.course_stageid) && wayCompletes(s, input.via));
  if (!stages.length) return 0;
  return completeStages(trx, clock, input.userid, stages, { doc_revisionid: input.doc_revisionid, via: input.via, source: input.source, actor: input.actor });
}
