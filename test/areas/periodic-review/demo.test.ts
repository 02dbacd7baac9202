import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo periodic review', () => {
  const t = appForFile({}, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  const login = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return { userid: u.userid, token: (await issueToken(t.db, t.config, t.clock, u.userid)).token };
  };

  it('a schedule with a review due, reviewed by the moderator and the Quality assurance team; its reminder mails once', async () => {
    const mod = await login('moderator@example.com');
    const list = (await t.get('/periodic_review', { token: mod.token })).json();
    expect(list.map((s: { name: string }) => s.name)).toEqual(['Safety procedures', 'Annual equipment review']);
    const due = (await t.get(`/periodic_review/documents/${mod.userid}?status=due`, { token: mod.token })).json();
    expect(due.map((d: { title: string }) => d.title)).toEqual(['Lockout/Tagout Before Maintenance']);
    const requests = (await t.get(`/periodic_review/requests/${mod.userid}`, { token: mod.token })).json();
    expect(requests.map((r: { title: string; kind: string }) => [r.title, r.kind])).toEqual([['Conveyor C-200 Drive Belt Replacement', 'change_request']]);
    // a member of the team reviews it too: the user is in Quality assurance
    const user = await login('user@example.com');
    expect((await t.get(`/periodic_review/documents/${user.userid}?status=due`, { token: user.token })).json().length).toBe(1);
    await t.app.jobs.runDue();
    await t.app.jobs.runDue();
    const mails = (await t.db.selectFrom('jobs').select('payload').where('type', '=', 'mail.send').execute()).map((j) => JSON.parse(j.payload));
    const reminders = mails.filter((m) => m.subject === 'Review due: Lockout/Tagout Before Maintenance');
    expect(reminders.map((m) => m.to).sort()).toEqual(['author@example.com', 'moderator@example.com', 'user@example.com']);
  });
});
