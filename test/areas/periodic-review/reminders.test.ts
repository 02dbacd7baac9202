// Review reminders: a job (not polled; queued for the earliest stored reminder time)
// mails every reviewer, directly or through a team, once when a review comes due and
// once when it is overdue; running it again, or twice at once, sends nothing more.
// The test moves the app's clock; nothing sleeps.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide } from '../../helpers/factories/guides.js';
import { REMINDER_JOB, sendReminders } from '../../../src/areas/periodic-review/review.jobs.js';

const DAY = 86_400;
let author: TestUser;
let reviewer: TestUser;
let lead: TestUser;
let member: TestUser;
const t = appForFile({ config: { tokenTtl: 10 * 365 * DAY } }, async () => {
  [author, reviewer, lead, member] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
});

const mails = async (title: string) => (await t.db.selectFrom('jobs').select('payload').where('type', '=', 'mail.send').orderBy('jobid').execute())
  .map((j) => JSON.parse(j.payload) as { to: string; subject: string; text: string })
  .filter((m) => m.subject.endsWith(title));
const pendingRuns = () => t.db.selectFrom('jobs').select(['jobid', 'run_at']).where('type', '=', REMINDER_JOB).where('status', '=', 'pending').execute();

describe('reminders', () => {
  it('due and overdue mails, once each, to every reviewer; the job is idempotent', async () => {
    const team = await makeTeam(t, lead, [{ user: member }]);
    const guide = await makeGuide(t, author);
    const res = await t.post('/periodic_review', { token: author.token, body: {
      name: 'Monthly', recurrence: 'interval', interval_days: 30, window_days: 5, userids: [reviewer.userid, member.userid], teamids: [team.teamid],
      documents: [{ doctype: 'guide', docid: guide.guideid }],
    } });
    expect(res.statusCode, res.body).toBe(201);
    const due = res.json().documents[0].due_date;
    // a run is queued for the due date, not polled before it
    expect((await pendingRuns()).map((r) => r.run_at)).toEqual([due]);
    t.clock.advance(29 * DAY);
    await t.app.jobs.runDue();
    expect(await mails(guide.title)).toEqual([]);

    t.clock.advance(DAY);
    await t.app.jobs.runDue();
    const dueMails = await mails(guide.title);
    expect(dueMails.map((m) => m.to).sort()).toEqual([reviewer.email, lead.email, member.email].sort());
    expect(dueMails.every((m) => m.subject === `Review due: ${guide.title}`)).toBe(true);
    expect(dueMails[0].text).toContain('is due since');
    // the next run waits for the overdue date; running again (and the job's function twice at once) sends nothing
    expect((await pendingRuns()).map((r) => r.run_at)).toEqual([due + 5 * DAY]);
    await t.app.jobs.runDue();
    await Promise.all([sendReminders(t.db, t.config, t.clock.now()), sendReminders(t.db, t.config, t.clock.now())]);
    expect((await mails(guide.title)).length).toBe(3);

    t.clock.advance(5 * DAY);
    await t.app.jobs.runDue();
    await t.app.jobs.runDue();
    await Promise.all([sendReminders(t.db, t.config, t.clock.now()), sendReminders(t.db, t.config, t.clock.now())]);
    const all = await mails(guide.title);
    expect(all.length).toBe(6);
    expect(all.slice(3).map((m) => m.subject)).toEqual(Array(3).fill(`Review overdue: ${guide.title}`));
    // the mails were delivered by the mail lane (MAIL_TRANSPORT=log)
    const states = await t.db.selectFrom('jobs').select('status').where('type', '=', 'mail.send').execute();
    expect(states.every((s) => s.status === 'done')).toBe(true);
    // nothing left to remind of: no run pending
    expect(await pendingRuns()).toEqual([]);

    // a review starts the reminders over for the next due date
    const review = await t.post('/periodic_review/review', { token: member.token, body: { doctype: 'guide', docid: guide.guideid, status: 'still_valid' } });
    expect(review.statusCode, review.body).toBe(201);
    expect((await pendingRuns()).map((r) => r.run_at)).toEqual([t.clock.now() + 30 * DAY]);
    t.clock.advance(30 * DAY);
    await t.app.jobs.runDue();
    expect((await mails(guide.title)).length).toBe(9);
  });

  it('a document reviewed before its due date gets no mail; one deleted meanwhile neither', async () => {
    const kept = await makeGuide(t, author);
    const gone = await makeGuide(t, author);
    const res = await t.post('/periodic_review', { token: author.token, body: {
      name: 'Weekly', recurrence: 'interval', interval_days: 7, window_days: 2, userids: [reviewer.userid],
      documents: [{ doctype: 'guide', docid: kept.guideid }, { doctype: 'guide', docid: gone.guideid }],
    } });
    expect(res.statusCode, res.body).toBe(201);
    t.clock.advance(6 * DAY);
    expect((await t.post('/periodic_review/review', { token: reviewer.token, body: { doctype: 'guide', docid: kept.guideid, status: 'still_valid' } })).statusCode).toBe(201);
    await t.db.updateTable('guides').set({ deleted: 1 }).where('guideid', '=', gone.guideid).execute();
    t.clock.advance(DAY);
    await t.app.jobs.runDue();
    expect(await mails(kept.title)).toEqual([]);
    expect(await mails(gone.title)).toEqual([]);
  });
});
