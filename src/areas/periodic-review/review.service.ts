// Writes of the periodic review area: each change one named function in one transaction.
import type { Clock } from '../../clock.js';
import { onGuideReleased, type ReleaseRow } from '../guides/guides.releases.js';
import { dueColumns } from './review.due.js';
import { ensureReminderRun } from './review.jobs.js';
import { findDocumentOf, findSchedule, type Db, type DocTarget, type DocumentRow, type ScheduleRow } from './review.queries.js';

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
async function putDocuments(trx: Db, now: number, s: ScheduleRow, targets: DocTarget[], userid: number): Promise<number | null> {
  let earliest: number | null = null;
  for (const t of targets) {
    const fresh = dueColumns(s, now, null);
    const inserted = await trx.insertInto('review_documents')
      .values({ prsid: s.prsid, doctype: t.doctype, docid: t.docid, userid_added: userid, added_date: now, last_reviewed_date: null, ...fresh })
      .onConflict((oc) => oc.columns(['doctype', 'docid']).doNothing())
      .returning('prdid').executeTakeFirst();
    let due = fresh.due_date;
    if (!inserted) {
      const existing = await findDocumentOf(trx, t.doctype, t.docid);
      if (!existing || existing.prsid === s.prsid) continue;
      const moved = dueColumns(s, now, existing.last_reviewed_date);
      await trx.updateTable('review_documents').set({ prsid: s.prsid, userid_added: userid, added_date: now, ...moved }).where('prdid', '=', existing.prdid).execute();
      due = moved.due_date;
    }
    earliest = earliest === null ? due : Math.min(earliest, due);
  }
  if (earliest !== null) await ensureReminderRun(trx, now, earliest);
  return earliest;
}

export async function createSchedule(db: Db, clock: Clock, userid: number, input: ScheduleInput, targets: DocTarget[]): Promise<number> {
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const s = await trx.insertInto('review_schedules').values({
      name: input.name, recurrence: input.recurrence, month: input.month, day: input.day, interval_days: input.interval_days,
      window_days: input.window_days, userid_created: userid, created_date: now,
    }).returningAll().executeTakeFirstOrThrow();
    const reviewers = [...input.userids.map((id) => ({ prsid: s.prsid, kind: 'user', memberid: id })), ...input.teamids.map((id) => ({ prsid: s.prsid, kind: 'team', memberid: id }))];
    if (reviewers.length) await trx.insertInto('review_schedule_reviewers').values(reviewers).execute();
    await putDocuments(trx, now, s, targets, userid);
    return s.prsid;
  });
}

export async function addDocuments(db: Db, clock: Clock, s: ScheduleRow, targets: DocTarget[], userid: number) {
  const now = clock.now();
  await db.transaction().execute((trx) => putDocuments(trx, now, s, targets, userid));
}

/** Takes documents off their schedules, all or none: answers false (and changes nothing) when one of them is gone already. */
export async function removeDocuments(db: Db, prdids: number[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx.deleteFrom('review_documents').where('prdid', 'in', prdids).executeTakeFirst();
    if (Number(res.numDeletedRows) !== prdids.length) throw new GoneMeanwhile();
    return true;
  }).catch((err) => {
    if (err instanceof GoneMeanwhile) return false;
    throw err;
  });
}

class GoneMeanwhile extends Error {}

/** Deletes a schedule (its documents and reviewers with it; the reviews stay, without it); false when it was gone already. */
export async function deleteSchedule(db: Db, prsid: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx.deleteFrom('review_schedules').where('prsid', '=', prsid).executeTakeFirst();
    if (Number(res.numDeletedRows) !== 1) return false;
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

/** Records a reviewer's review of a document on a schedule; answers the reviewid. */
export async function recordReview(db: Db, clock: Clock, userid: number, read: DocumentRow, s: ScheduleRow, status: 'still_valid' | 'change_request', notes: string): Promise<number | null> {
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    // The document as it is now, on the schedule whose reviewer was checked (null: it moved or left meanwhile).
    const doc = await trx.selectFrom('review_documents').selectAll().where('prdid', '=', read.prdid).where('prsid', '=', s.prsid).executeTakeFirst();
    if (!doc) return null;
    const { reviewid } = await trx.insertInto('review_reviews').values({
      doctype: doc.doctype, docid: doc.docid, prsid: s.prsid, userid, kind: status, notes, date: now, releaseid: null,
      due_date: status === 'still_valid' ? doc.due_date : null, resolved_date: null, resolved_reviewid: null,
    }).returning('reviewid').executeTakeFirstOrThrow();
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
  await satisfied(trx, now, doc, s, reviewid);
}

onGuideReleased(reviewedRelease);
