// Writes of the sign-offs area: each change one named function in one transaction, each
// transition one conditional UPDATE with its affected rows counted (of identical
// concurrent requests one wins; the others are 422s).
import { inTx } from '../../db/transactions.js';
import type { Clock } from '../../clock.js';
import { forbidden, invalidField } from '../../http/errors.js';
import { hashToken, newToken } from '../../http/passwords.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
import type { CourseDoctype } from '../courses/courses.tables.js';
import type { Db, RequestRow, SignoffStage } from './signoffs.queries.js';
import { signoffMeaning } from './signoffs.records.js';
import { audit, auditActor, type AuditEvent } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

/**
 * Records a change of sign-off request `id` in its transaction (docs/audit.md); the demo
 * seeder passes no actor and writes no entry.
 */
async function auditSignoff(trx: Db, actor: AuthUser | undefined, event: Omit<AuditEvent, 'actor' | 'resource_type' | 'resource_id'>, id: number) {
  if (actor) await audit(trx, { ...event, actor, resource_type: 'signoff_request', resource_id: id });
}

/** Over-the-shoulder tokens live this long (seconds). */
export const SIGNOFF_TOKEN_TTL = 300;

/** A trainee's request on a sign-off stage; one live request per trainee and stage (422 `already_requested`). */
export async function createRequest(db: Db, clock: Clock, stage: SignoffStage, userid: number, o: { userid_requestee: number | null; work_log_entryid: number | null; doc_revisionid: number | null }, actor?: AuthUser): Promise<number> {
  try {
    return await inTx(db, async (trx) => {
      const row = await trx.insertInto('signoff_requests').values({
        stage_assessmentid: stage.stage_assessmentid!, course_stageid: stage.course_stageid, wikiid: stage.wikiid, doctype: stage.doctype, docid: stage.docid,
        doc_revisionid: o.doc_revisionid, teamid_signer: stage.teamid_signer, userid_requestor: userid, userid_requestee: o.userid_requestee,
        work_log_entryid: o.work_log_entryid, created_at: clock.now(), open: 1,
      }).returning('signoff_requestid').executeTakeFirstOrThrow();
      await auditSignoff(trx, actor, {
        action: 'signoff.requested', time: clock.now(), revisionid_after: o.doc_revisionid,
        changes: { course_stageid: { new: stage.course_stageid }, doctype: { new: stage.doctype }, docid: { new: stage.docid }, userid_requestee: { new: o.userid_requestee }, work_log_entryid: { new: o.work_log_entryid } },
      }, row.signoff_requestid);
      return row.signoff_requestid;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw invalidField('stage_assessmentid', 'You have a sign-off request on this stage already: cancel it, or acknowledge its response, to ask again.', 'already_requested');
    throw e;
  }
}

/** Cancels a request not answered yet (422 otherwise); the trainee may then ask again. */
export async function cancelRequest(db: Db, clock: Clock, id: number, actor?: AuthUser): Promise<void> {
  await inTx(db, async (trx) => {
    const r = await trx.updateTable('signoff_requests').set({ is_cancelled: 1, cancelled_at: clock.now(), open: null })
      .where('signoff_requestid', '=', id).where('is_cancelled', '=', 0).where('response_value', 'is', null).executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw invalidField('signoff_requestid', `Sign-off request ${id} is cancelled or answered already.`, 'invalid_transition');
    await auditSignoff(trx, actor, { action: 'signoff.cancelled', time: clock.now(), changes: { is_cancelled: { old: false, new: true } } }, id);
  });
}

/** Makes a single-use token for the trainer's response to one request; answers it (only its hash is stored). */
export async function issueSignoffToken(db: Db, clock: Clock, signoff_requestid: number, trainer: number): Promise<{ token: string; expires_at: number }> {
  const { token, hash } = newToken();
  const now = clock.now();
  await db.insertInto('signoff_tokens').values({ token_hash: hash, signoff_requestid, userid: trainer, created_at: now, expires_at: now + SIGNOFF_TOKEN_TTL }).execute();
  return { token, expires_at: now + SIGNOFF_TOKEN_TTL };
}

export interface ResponseInput {
  response_value: 'pass' | 'fail';
  response_feedback: string;
  work_log_entryid: number | null;
}

/**
 * Records the response to a request: by `trainer` directly, or with an over-the-shoulder
 * token, which is used up in the same transaction (`UPDATE ... WHERE used_at IS NULL AND
 * expires_at > now`, for this request only; 403 `invalid_signoff_token` otherwise). The
 * stage is not completed: the trainee acknowledges first.
 */
export async function respond(db: Db, clock: Clock, r: RequestRow, how: { trainer: number } | { token: string }, input: ResponseInput, actor?: AuthUser): Promise<number> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    let trainer: number;
    let type: 'direct' | 'over_the_shoulder';
    if ('token' in how) {
      const hash = hashToken(how.token);
      const row = await trx.selectFrom('signoff_tokens').select(['userid']).where('token_hash', '=', hash).executeTakeFirst();
      const used = await trx.updateTable('signoff_tokens').set({ used_at: now })
        .where('token_hash', '=', hash).where('signoff_requestid', '=', r.signoff_requestid).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
      if (!row || Number(used.numUpdatedRows) !== 1) throw forbidden('The sign-off token is not valid for this request (expired, used, or made for another).', 'invalid_signoff_token');
      trainer = row.userid;
      type = 'over_the_shoulder';
    } else {
      trainer = how.trainer;
      type = 'direct';
    }
    // The printed name the response shows: the trainer's display name as they respond.
    const signerName = (await trx.selectFrom('users').select('username').where('userid', '=', trainer).executeTakeFirst())?.username ?? '';
    const u = await trx.updateTable('signoff_requests').set({
      response_value: input.response_value, response_feedback: input.response_feedback, response_type: type, userid_requestee: trainer, completed_at: now, signer_name: signerName,
      work_log_entryid: input.work_log_entryid ?? r.work_log_entryid,
    }).where('signoff_requestid', '=', r.signoff_requestid).where('is_cancelled', '=', 0).where('response_value', 'is', null).executeTakeFirst();
    if (Number(u.numUpdatedRows) !== 1) throw invalidField('signoff_requestid', `Sign-off request ${r.signoff_requestid} is cancelled or answered already.`, 'invalid_transition');
    // The trainer signs; over the shoulder, on the trainee's session (whose request it is).
    const signer = actor && (type === 'direct' ? actor : { ...auditActor(actor), userid: trainer, impersonator_userid: null });
    if (signer) {
      await audit(trx, {
        action: 'signoff.responded', actor: signer, time: now, resource_type: 'signoff_request', resource_id: r.signoff_requestid, revisionid_after: r.doc_revisionid,
        meaning: signoffMeaning(input.response_value, r), reason: input.response_feedback || null,
        changes: { response_value: { new: input.response_value }, response_type: { new: type }, userid_requestor: { new: r.userid_requestor } },
      });
    }
    return trainer;
  });
}

/**
 * The trainee acknowledges the response; a pass then completes the stage (only that
 * stage, via 'signoff', tied to the request and its work log entry, on the revision of
 * the work log entry or else the one current when the trainee asked). A fail completes nothing.
 */
export async function acknowledge(db: Db, clock: Clock, r: RequestRow, actor?: AuthUser): Promise<void> {
  const now = clock.now();
  await inTx(db, async (trx) => {
    const u = await trx.updateTable('signoff_requests').set({ response_acknowledged: 1, acknowledged_at: now, open: null })
      .where('signoff_requestid', '=', r.signoff_requestid).where('is_cancelled', '=', 0).where('response_value', 'is not', null).where('response_acknowledged', '=', 0).executeTakeFirst();
    if (Number(u.numUpdatedRows) !== 1) throw invalidField('signoff_requestid', `Sign-off request ${r.signoff_requestid} has no response to acknowledge, or it is acknowledged already.`, 'invalid_transition');
    const row = await trx.selectFrom('signoff_requests').selectAll().where('signoff_requestid', '=', r.signoff_requestid).executeTakeFirstOrThrow();
    await auditSignoff(trx, actor, { action: 'signoff.acknowledged', time: now, meaning: row.response_value === 'pass' ? 'passed' : 'failed', changes: { response_acknowledged: { old: false, new: true } } }, r.signoff_requestid);
    if (row.response_value !== 'pass') return;
    let revision = row.doc_revisionid;
    if (row.work_log_entryid !== null) {
      const entry = await trx.selectFrom('work_log').select('revisionid').where('entryid', '=', row.work_log_entryid).executeTakeFirst();
      revision = entry?.revisionid ?? revision;
    }
    await completeStagesOnDocument(trx, clock, {
      userid: row.userid_requestor, doctype: row.doctype as CourseDoctype, docid: row.docid, doc_revisionid: revision, via: 'signoff', course_stageid: row.course_stageid,
      source: { signoff_requestid: row.signoff_requestid, work_log_entryid: row.work_log_entryid }, actor,
    });
  });
}

