import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo work log', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { languages: ['en', 'de'] } });
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });
  afterAll(() => t.close());

  const tokenOf = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return (await issueToken(t.db, t.config, t.clock, u.userid)).token;
  };

  it('a finished belt replacement with every step checked, a suspended gripper repair that another user assumes, a lockout in progress', async () => {
    const token = await tokenOf('moderator@example.com');
    const list = (await t.get('/work_log', { token })).json();
    expect(list.map((e: { status: string }) => e.status)).toEqual(['finished', 'suspended', 'in_progress']);
    const [finished, suspended, running] = list;
    expect(running).toMatchObject({ duration: 600, step_data: [expect.objectContaining({ checked: true })] });
    expect(finished.guide_title).toBe('Conveyor C-200 Drive Belt Replacement');
    expect(finished.duration).toBe(2700);
    const guide = (await t.get(`/guides/${finished.guideid}`)).json();
    expect(finished.step_data.map((s: { stepid: number; checked: boolean }) => s.checked && s.stepid)).toEqual(guide.steps.map((s: { stepid: number }) => s.stepid));
    expect(finished.revisionid).toBe(guide.revisionid);
    expect(suspended.guide_title).toBe('Pick-and-Place Gripper Air Leak Repair');
    expect(suspended.step_data).toHaveLength(1);
    const user = await tokenOf('user@example.com');
    expect((await t.get(`/work_log/${suspended.guideid}/suspended`, { token: user })).json().map((e: { entryid: number }) => e.entryid)).toEqual([suspended.entryid]);
    const taken = await t.post(`/work_log/${suspended.entryid}/assume`, { token: user });
    expect(taken.json()).toMatchObject({ status: 'in_progress', duration: 1200 });
  });
});
