import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';

describe('demo work log', () => {
  const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  const tokenOf = async (email: string) => {
    const u = await t.db.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirstOrThrow();
    return (await issueToken(t.db, t.config, t.clock, u.userid)).token;
  };

  it('a completed belt replacement with its form filled, a suspended gripper repair that another user assumes, a lockout started', async () => {
    const token = await tokenOf('moderator@example.com');
    const list = (await t.get('/work_log', { token })).json().results;
    expect(list.map((e: { status: string }) => e.status)).toEqual(['complete', 'suspended', 'started']);
    const [complete, suspended, running] = list;
    expect(running).toMatchObject({ duration: 600, timingid: expect.any(Number) });
    expect(complete).toMatchObject({ guide_title: 'Conveyor C-200 Drive Belt Replacement', duration: 2700, workorderid: 'WO-1042', timingid: null });
    const guide = (await t.get(`/guides/${complete.guideid}`)).json();
    const fields = guide.steps.flatMap((s: { fields: Array<{ field_revisionid: number; label: string }> }) => s.fields);
    expect(fields.map((f: { label: string }) => f.label)).toEqual(['Belt tension (Hz)', 'Bolts torqued to 25 N·m', 'Test run', 'Remarks']);
    expect(complete.guide_revisionid).toBe(guide.revisionid);
    expect(complete.max_form_revisionid).toBe(Math.max(...fields.map((f: { field_revisionid: number }) => f.field_revisionid)));
    expect(complete.work_data.map((w: { label: string; value: string }) => [w.label, w.value])).toEqual([
      ['Belt tension (Hz)', '45'], ['Bolts torqued to 25 N·m', '1'], ['Test run', 'Quiet'], ['Remarks', 'Old belt worn at the splice.'],
    ]);
    // the guide's page shows the form
    const page = await t.app.inject({ method: 'GET', url: new URL(guide.url).pathname });
    expect(page.body).toContain('<label for="f');
    expect(page.body).toContain('Belt tension (Hz) <abbr title="required">*</abbr>');
    expect(page.body).toContain('<option>Belt slips</option>');
    expect(suspended.guide_title).toBe('Pick-and-Place Gripper Air Leak Repair');
    const user = await tokenOf('user@example.com');
    expect((await t.get(`/work_log/${suspended.guideid}/suspended`, { token: user })).json().results.map((e: { entryid: number }) => e.entryid)).toEqual([suspended.entryid]);
    const taken = await t.post(`/work_log/${suspended.entryid}/assume`, { token: user });
    expect(taken.json()).toMatchObject({ status: 'started', duration: 1200 });
  });
});
