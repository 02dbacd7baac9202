import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo courses', () => {
  const t = appForFile({}, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  const login = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return { userid: u.userid, token: (await issueToken(t.db, t.config, t.clock, u.userid)).token };
  };

  it('a course of three stages assigned to the Maintenance crew, Uma User part-way (the belt replacement through her work log entry, its PDF)', async () => {
    const author = await login('author@example.com');
    const user = await login('user@example.com');
    const { courses } = (await t.get('/courses', { token: author.token })).json();
    // The modules' demo adds a course of its own ('Safe lifting (e-learning)').
    const basics = courses.find((c: { title: string }) => c.title === 'Line maintenance basics');
    expect(basics.stages).toHaveLength(3);
    const wikiid = basics.wikiid;
    const teams = (await t.get(`/course_assignees/course/${wikiid}/teams`, { token: author.token })).json();
    expect(teams.response.map((r: { team_name: string }) => r.team_name)).toEqual(['Maintenance crew']);
    const users = (await t.get(`/course_assignees/course/${wikiid}/users`, { token: author.token })).json();
    expect(users.response.map((r: { username: string; status: string; completed_stages: number }) => [r.username, r.status, r.completed_stages])).toEqual([
      ['Arthur Author', 'Not Started', 0],
      ['Uma User', 'In Progress', 1],
    ]);
    const view = (await t.get(`/course_assignees/course/${wikiid}/user/${user.userid}`, { token: user.token })).json();
    expect(view.stages.map((s: { completion_status: string | null }) => s.completion_status)).toEqual(['started', 'completed', null]);
    const url: string = view.stages[1].work_log_entry_pdf_url;
    const pdf = await t.get(url.slice(url.indexOf('/api/2.0') + 8), { token: user.token });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
