import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';

const t = appForFile({}, async () => {
  const out = await seedDemoOnce(t.db, { ...t.config, passwordHashCost: 4 }, t.clock, () => {});
  expect(out.seeded).toBe(true);
});

describe('demo content', () => {
  it('a category tree three levels deep', async () => {
    const body = (await t.get('/wikis/CATEGORY?display=hierarchy')).json();
    expect(body.hierarchy.Equipment.Pumps).toMatchObject({ 'Centrifugal Pump CP-200': null, 'Diaphragm Pump DP-50': null });
    expect(body.hierarchy.Vehicles.Forklifts['Forklift FL-3']).toBeNull();
    expect(body.display_titles.Compressors).toBeUndefined();
    expect((await t.get('/wikis/CATEGORY?display=hierarchy&includeStubs=true')).json().hierarchy.Equipment.Compressors).toBeNull();
    expect((await t.get('/wikis/CATEGORY/Centrifugal%20Pump%20CP-200/identification')).json().identification_raw).toContain('model plate');
  });

  it('ITEM wikis for parts and tools, an INFO page, team and user pages', async () => {
    const items = (await t.get('/wikis/ITEM')).json();
    expect(items.length).toBeGreaterThanOrEqual(4);
    const wrench = (await t.get('/wikis/ITEM/Torque%20Wrench%2020-100%20Nm')).json();
    expect(wrench).toMatchObject({ item_type: 'tool', tags: ['calibrated'] });
    expect(wrench.suppliers[0]).toMatchObject({ name: 'Tool House' });
    expect((await t.get('/wikis/ITEM/O-Ring%2040%20mm')).json().item_type).toBe('part');
    expect((await t.get('/wikis/INFO/About')).json()).toMatchObject({ display_title: 'About this site' });
    expect((await t.get('/wikis/TEAM')).json()).toHaveLength(1);
    expect((await t.get('/wikis/USER')).json()).toHaveLength(1);
  });

  it('comments with replies (on a guide step too, shown in the guide), and a discussion post', async () => {
    const list = (await t.get('/comments')).json();
    expect(list.length).toBeGreaterThanOrEqual(4);
    expect(list.every((c: { replies: unknown[] }) => c.replies.length === 1)).toBe(true);
    expect(list.map((c: { context: string }) => c.context).sort()).toEqual(['info', 'post', 'step', 'wiki']);
    expect((await t.get('/posts')).json()[0].comment_count).toBe(2);
    const onStep = list.find((c: { context: string }) => c.context === 'step');
    const guide = (await t.get('/guides?limit=200')).json().find((g: { title: string }) => g.title === onStep.title);
    const steps = (await t.get(`/guides/${guide.guideid}`)).json().steps;
    expect(steps.find((s: { stepid: number }) => s.stepid === onStep.contextid).comments.map((c: { commentid: number }) => c.commentid)).toEqual([onStep.commentid]);
  });

  it('every revision is kept from the start, and the demo is searchable', async () => {
    const pumps = (await t.get('/wikis/CATEGORY/Pumps')).json();
    expect(pumps.revisionid).toBeGreaterThan(0);
    expect((await t.get('/suggest/pump?doctypes=category')).json().results.map((r: { title: string }) => r.title)).toContain('Pumps');
  });
});
