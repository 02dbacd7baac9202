// Writes of the periodic review area: each change one named function in one transaction.
import type { Clock } from '../../clock.js';
import { onGuideReleased, type ReleaseRow } from '../guides/guides.releases.js';
import { dueColumns } from './review.due.js';
import { ensureReminderRun } from './review.jobs.js';
import { findDocumentOf, findSchedule, type Db, type DocTarget, type DocumentRow, type ScheduleRow } from './review.queries.js';
import { audit, changesOf, type AuditActor } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

export interface ScheduleInput {
  name: string;
  recurrence: 'yearly' | 'interval';
  month: number | null;
  day: number | null;
  interval_days: number | null;
  window_days: number;
  userids: number[];
  teamids: number[];
}

/** Puts documents on a schedule (a document on another schedule moves, keeping its last review); answers the earliest due date set. */
async function putDocuments(trx: Db, now: number, s: ScheduleRow, targets: DocTarget[], actor: AuthUser): Promise<number | null> {
  const userid = actor.userid;
  let earliest: number | null = null;
  for (const t of targets) {
    const fresh = dueColumns(s, now, null);
    const inserted = await trx.insertInto('review_documents')
      .values({ prsid: s.prsid, doctype: t.doctype, docid: t.docid, userid_added: userid, added_date: now, last_reviewed_date: null, ...fresh })
      .onConflict((oc) => oc.columns(['doctype', 'docid']).doNothing())
      .returning('prdid').executeTakeFirst();
    let due = fresh.due_date;
    let prdid = inserted?.prdid;
    let from: number | null = null;
    if (!inserted) {
      const existing = await findDocumentOf(trx, t.doctype, t.docid);
      if (!existing || existing.prsid === s.prsid) continue;
      const moved = dueColumns(s, now, existing.last_reviewed_date);
      await trx.updateTable('review_documents').set({ prsid: s.prsid, userid_added: userid, added_date: now, ...moved }).where('prdid', '=', existing.prdid).execute();
      due = moved.due_date;
      prdid = existing.prdid;
      from = existing.prsid;
    }
    await audit(trx, {
      action: 'review.scheduled', actor, time: now, resource_type: 'review_document', resource_id: prdid!,
      changes: { doctype: { new: t.doctype }, docid: { new: t.docid }, prsid: { old: from, new: s.prsid }, due_date: { new: due } },
    });
    earliest = earliest === null ? due : Math.min(earliest, due);
  }
  if (earliest !== null) await ensureReminderRun(trx, now, earliest);
  return earliest;
}

export async function createSchedule(db: Db, clock: Clock, actor: AuthUser, input: ScheduleInput, targets: DocTarget[]): Promise<number> {
  const userid = actor.userid;
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const s = await trx.insertInto('review_schedules').values({
      name: input.name, recurrence: input.recurrence, month: input.month, day: input.day, interval_days: input.interval_days,
      window_days: input.window_days, userid_created: userid, created_date: now,
    }).returningAll().executeTakeFirstOrThrow();
    const reviewers = [...input.userids.map((id) => ({ prsid: s.prsid, kind: 'user', memberid: id })), ...input.teamids.map((id) => ({ prsid: s.prsid, kind: 'team', memberid: id }))];
    if (reviewers.length) await trx.insertInto('review_schedule_reviewers').values(reviewers).execute();
    const { userids: _u, teamids: _t, ...fields } = input;
    await audit(trx, {
      action: 'review.schedule_created', actor, time: now, resource_type: 'review_schedule', resource_id: s.prsid,
      changes: { ...changesOf(null, fields), reviewer_userids: { new: input.userids.join(',') }, reviewer_teamids: { new: input.teamids.join(',') } },
    });
    await putDocuments(trx, now, s, targets, actor);
    return s.prsid;
  });
}

export async function addDocuments(db: Db, clock: Clock, s: ScheduleRow, targets: DocTarget[], actor: AuthUser) {
  const now = clock.now();
  await db.transaction().execute((trx) => putDocuments(trx, now, s, targets, actor));
}

/** Takes documents off their schedules, all or none: answers false (and changes nothing) when one of them is gone already. */
export async function removeDocuments(db: Db, clock: Clock, actor: AuthUser, prdids: number[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx.deleteFrom('review_documents').where('prdid', 'in', prdids).returning(['prdid', 'prsid', 'doctype', 'docid']).execute();
    if (res.length !== prdids.length) throw new GoneMeanwhile();
    for (const d of res) {
      await audit(trx, {
        action: 'review.unscheduled', actor, time: clock.now(), resource_type: 'review_document', resource_id: d.prdid,
        changes: { doctype: { new: d.doctype }, docid: { new: d.docid }, prsid: { old: d.prsid, new: null } },
      });
    }
    return true;
  }).catch((err) => {
    if (err instanceof GoneMeanwhile) return false;
    throw err;
  });
}

class GoneMeanwhile extends Error {}

/** Deletes a schedule (its documents and reviewers with it; the reviews stay, without it); false when it was gone already. */
export async function deleteSchedule(db: Db, clock: Clock, actor: AuthUser, prsid: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx.deleteFrom('review_schedules').where('prsid', '=', prsid).executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) return false;
    // One entry: its documents leave their schedule with it, its reviews stay.
    await audit(trx, { action: 'review.schedule_deleted', actor, time: clock.now(), resource_type: 'review_schedule', resource_id: prsid });
    await trx.deleteFrom('review_documents').where('prsid', '=', prsid).execute();
    await trx.deleteFrom('review_schedule_reviewers').where('prsid', '=', prsid).execute();
    await trx.updateTable('review_reviews').set({ prsid: null }).where('prsid', '=', prsid).execute();
    return true;
  });
}

/**
 * A review that satisfies the due review (still valid, or a reviewed release): the
 * document's last review is now, its next due date is computed from it, its reminders
 * start over, and its open change requests are settled by this review.
 */
async function satisfied(trx: Db, now: number, doc: DocumentRow, s: ScheduleRow, reviewid: number) {
  const next = dueColumns(s, doc.added_date, now);
  await trx.updateTable('review_documents').set({ last_reviewed_date: now, ...next }).where('prdid', '=', doc.prdid).execute();
  await trx.updateTable('review_reviews').set({ resolved_date: now, resolved_reviewid: reviewid })
    .where('doctype', '=', doc.doctype).where('docid', '=', doc.docid).where('kind', '=', 'change_request').where('resolved_date', 'is', null)
    .where('reviewid', '<', reviewid).execute();
  await ensureReminderRun(trx, now, next.due_date);
}

/** Records a review (resource review) with the reviewer's notes as its reason (docs/audit.md). */
async function auditReview(trx: Db, actor: AuthUser | AuditActor, now: number, action: 'review.completed' | 'review.change_requested', reviewid: number, doc: DocumentRow, s: ScheduleRow, kind: string, notes: string) {
  await audit(trx, {
    action, actor, time: now, resource_type: 'review', resource_id: reviewid, reason: notes || null,
    changes: { doctype: { new: doc.doctype }, docid: { new: doc.docid }, prdid: { new: doc.prdid }, prsid: { new: s.prsid }, kind: { new: kind } },
  });
}

/** Records a reviewer's review of a document on a schedule; answers the reviewid. */
export async function recordReview(db: Db, clock: Clock, actor: AuthUser, read: DocumentRow, s: ScheduleRow, status: 'still_valid' | 'change_request', notes: string): Promise<number | null> {
  const userid = actor.userid;
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    // The document as it is now, on the schedule whose reviewer was checked (null: it moved or left meanwhile).
    const doc = await trx.selectFrom('review_documents').selectAll().where('prdid', '=', read.prdid).where('prsid', '=', s.prsid).executeTakeFirst();
    if (!doc) return null;
    const { reviewid } = await trx.insertInto('review_reviews').values({
      doctype: doc.doctype, docid: doc.docid, prsid: s.prsid, userid, kind: status, notes, date: now, releaseid: null,
      due_date: status === 'still_valid' ? doc.due_date : null, resolved_date: null, resolved_reviewid: null,
    }).returning('reviewid').executeTakeFirstOrThrow();
    await auditReview(trx, actor, now, status === 'still_valid' ? 'review.completed' : 'review.change_requested', reviewid, doc, s, status, notes);
    if (status === 'still_valid') await satisfied(trx, now, doc, s, reviewid);
    return reviewid;
  });
}

/** A guide released with `reviewed` counts as a review from the moment it is released (in the release's transaction). */
export async function reviewedRelease(trx: Db, release: ReleaseRow, now: number) {
  if (!release.reviewed) return;
  const doc = await findDocumentOf(trx, 'guide', release.guideid);
  if (!doc) return;
  const s = await findSchedule(trx, doc.prsid);
  if (!s) return;
  const { reviewid } = await trx.insertInto('review_reviews').values({
    doctype: 'guide', docid: release.guideid, prsid: s.prsid, userid: release.userid, kind: 'reviewed_release', notes: release.notes, date: now,
    releaseid: release.releaseid, due_date: doc.due_date, resolved_date: null, resolved_reviewid: null,
  }).returning('reviewid').executeTakeFirstOrThrow();
  // Made by the release (its own entry names the request): the releasing user reviewed.
  await auditReview(trx, { userid: release.userid, impersonator_userid: null, request_id: null, client_ip: null }, now, 'review.completed', reviewid, doc, s, 'reviewed_release', release.notes);
  await satisfied(trx, now, doc, s, reviewid);
}

onGuideReleased(reviewedRelease);
