import type { DemoContext } from '../area.js';
import { DAY, dueColumns, type Recurrence } from './review.due.js';
import { ensureReminderRun } from './review.jobs.js';

/**
 * Two review schedules: safety procedures every 180 days, reviewed by the Quality
 * assurance team and the moderator, whose lockout/tagout guide has a review due now (added
 * 190 days ago, 4 days left of its 14-day window) and whose belt replacement carries an
 * open change request; and a yearly review of the pump category on January 15.
 */
export async function seedReviewDemo(ctx: DemoContext) {
  const { db, clock, users, teams, ids } = ctx;
  const now = clock.now();
  const schedule = async (name: string, r: Recurrence, userids: number[], teamids: number[], creator: number) => {
    const s = await db.insertInto('review_schedules').values({ name, ...r, userid_created: creator, created_date: now - 200 * DAY }).returningAll().executeTakeFirstOrThrow();
    const reviewers = [...userids.map((id) => ({ prsid: s.prsid, kind: 'user', memberid: id })), ...teamids.map((id) => ({ prsid: s.prsid, kind: 'team', memberid: id }))];
    if (reviewers.length) await db.insertInto('review_schedule_reviewers').values(reviewers).execute();
    return s;
  };
  const put = async (s: Recurrence & { prsid: number }, doctype: 'guide' | 'wiki', docid: number | undefined, addedAgo: number, by: number) => {
    if (!docid) return;
    const added = now - addedAgo;
    const cols = dueColumns(s, added, null);
    await db.insertInto('review_documents').values({ prsid: s.prsid, doctype, docid, userid_added: by, added_date: added, last_reviewed_date: null, ...cols }).execute();
    await ensureReminderRun(db, now, cols.due_date);
  };
  if (!users.author || !users.moderator) return;
  const safety = await schedule('Safety procedures', { recurrence: 'interval', month: null, day: null, interval_days: 180, window_days: 14 }, [users.moderator], teams.quality ? [teams.quality] : [], users.author);
  await put(safety, 'guide', ids.guideLoto, 190 * DAY, users.author);
  await put(safety, 'guide', ids.guideReplacement, 30 * DAY, users.author);
  if (ids.guideReplacement) {
    await db.insertInto('review_reviews').values({
      doctype: 'guide', docid: ids.guideReplacement, prsid: safety.prsid, userid: users.moderator, kind: 'change_request',
      notes: 'Step 3: give the belt tension as a range (40 to 50 Hz), not a single value.', date: now - 2 * DAY,
      releaseid: null, due_date: null, resolved_date: null, resolved_reviewid: null,
    }).execute();
  }
  const yearly = await schedule('Annual equipment review', { recurrence: 'yearly', month: 1, day: 15, interval_days: null, window_days: 30 }, [users.author], [], users.author);
  await put(yearly, 'wiki', ids['wiki:CATEGORY:Pumps'], 10 * DAY, users.author);
  ctx.log('periodic review: "Safety procedures" (lockout/tagout review due now, a change request on the belt replacement), "Annual equipment review" (Pumps, every January 15)');
}
