import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';
import { stageStatusOf } from '../../../src/areas/shared/course-status.js';

describe('demo training module', () => {
  const t = appForFile({}, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  const login = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return { userid: u.userid, token: (await issueToken(t.db, t.config, t.clock, u.userid)).token };
  };

  it('a current SCORM module in a course stage: Uma plays it and completes the stage; Arthur manages it', async () => {
    const user = await login('user@example.com');
    const current = (await t.get('/external_training_modules/current', { token: user.token })).json();
    expect(current.map((m: { title: string }) => m.title)).toEqual(['Safe lifting']);
    const id = current[0].external_training_moduleid;
    const usage = (await t.get(`/external_training_modules/${id}/usage`, { token: user.token })).json();
    expect(usage.courses.map((c: { title: string }) => c.title)).toEqual(['Safe lifting (e-learning)']);
    const player = await t.get(`/external_training_modules/${id}/player`, { token: user.token });
    expect(player.statusCode, player.body).toBe(200);
    const launch = await t.app.inject({ method: 'GET', url: new URL(player.json().launch_url).pathname });
    expect(launch.statusCode).toBe(200);
    expect(launch.body).toContain('Safe lifting');
    const token = player.json().commit_url.split('/').pop();
    expect((await t.post(`/external_training_modules/commits/${token}`, { body: { cmi: { core: { lesson_status: 'passed' } } } })).json()).toEqual({ result: true, errorCode: 0 });
    expect((await stageStatusOf(t.db, user.userid, usage.courses[0].course_stageid))?.status).toBe('completed');
    const author = await login('author@example.com');
    expect((await t.get(`/external_training_modules/${id}/imports`, { token: author.token })).statusCode).toBe(200);
    expect((await t.get(`/external_training_modules/${id}/imports`, { token: user.token })).statusCode).toBe(403);
  });
});
