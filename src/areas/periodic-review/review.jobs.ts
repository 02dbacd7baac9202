// Review reminders: a job that e-mails the reviewers of each document when its review
// comes due and again when it is overdue, once each. It is idempotent: a reminder is
// claimed by a conditional UPDATE of the document's stored `next_notice_date` (from the
// value read to the next one), and its mails are queued in that same transaction, so a
// run repeated, or two runs at once, send nothing twice. The job is not polled: each run
// (and each write that moves a due date earlier) makes sure a run is pending for the
// earliest stored `next_notice_date` (`ensureReminderRun`). Times come from the app's clock.
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { enqueueJob, type JobType } from '../../jobs/queue.js';
import { queueMail } from '../../jobs/mail.js';
import { documentsSelect, loadTargets, reviewerEmails, titleAndUrl, type Db, type DocumentWithSchedule } from './review.queries.js';

export const REMINDER_JOB = 'periodic_review.reminders';
const BATCH = 100;
/** Batches per run; a run that stops there leaves a run pending at once for the rest. */
const MAX_BATCHES = 50;

const at = (now: number): Clock => ({ now: () => now });
const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/** Makes sure a reminder run is pending at `when` or earlier (call it in the transaction that stores a due date). */
export async function ensureReminderRun(db: Db, now: number, when: number) {
  const pending = await db.selectFrom('jobs').select('jobid').where('type', '=', REMINDER_JOB).where('status', '=', 'pending')
    .where('run_at', '<=', Math.max(when, now)).limit(1).executeTakeFirst();
  if (!pending) await enqueueJob(db, at(now), REMINDER_JOB, {}, { runAt: Math.max(when, now) });
}

/** One document's reminder, if it is still to be sent; answers the mails queued. */
async function remind(db: Db, config: Config, now: number, d: DocumentWithSchedule): Promise<number> {
  const kind = now >= d.overdue_date ? 'overdue' : 'due';
  return db.transaction().execute(async (trx) => {
    const claimed = await trx.updateTable('review_documents')
      .set({ notice: kind, next_notice_date: kind === 'overdue' ? null : d.overdue_date })
      .where('prdid', '=', d.prdid).where('next_notice_date', '=', d.next_notice_date).where('due_date', '=', d.due_date)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return 0;
    const target = (await loadTargets(trx, [d])).get(`${d.doctype}:${d.docid}`);
    if (!target) return 0; // deleted meanwhile: nothing to review
    const { title, url } = titleAndUrl(config, target, d);
    const subject = kind === 'due' ? `Review due: ${title}` : `Review overdue: ${title}`;
    const text = kind === 'due'
      ? `The periodic review of "${title}" (schedule "${d.schedule_name}") is due since ${day(d.due_date)}. Please review it by ${day(d.overdue_date)}: record that it is still valid or request changes.\n\n${url}\n`
      : `The periodic review of "${title}" (schedule "${d.schedule_name}") is overdue: it was due by ${day(d.overdue_date)}. Please record that it is still valid or request changes.\n\n${url}\n`;
    const emails = await reviewerEmails(trx, d.prsid);
    for (const to of emails) await queueMail(trx, at(now), { to, subject, text });
    return emails.length;
  });
}

/** Sends every reminder that is due at `now`; answers the mails queued. */
export async function sendReminders(db: Db, config: Config, now: number): Promise<number> {
  let mails = 0;
  let batches = 0;
  for (; batches < MAX_BATCHES; batches++) {
    const rows = await documentsSelect(db).where('d.next_notice_date', '<=', now).orderBy('d.next_notice_date').orderBy('d.prdid').limit(BATCH).execute();
    for (const d of rows) mails += await remind(db, config, now, d);
    if (rows.length < BATCH) break;
  }
  const next = await db.selectFrom('review_documents').select((eb) => eb.fn.min('next_notice_date').as('at')).executeTakeFirst();
  if (batches === MAX_BATCHES) await ensureReminderRun(db, now, now);
  else if (next?.at != null) await ensureReminderRun(db, now, Number(next.at));
  return mails;
}

export function reminderJob(config: Config, clock: Clock): JobType {
  return { run: async (_payload, ctx) => { await sendReminders(ctx.db, config, clock.now()); } };
}
