import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeImage } from '../../helpers/factories/guides.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { seedUsersDemo } from '../../../src/areas/users/users.demo.js';
import { seedTeamsDemo } from '../../../src/areas/teams/teams.demo.js';
import { seedGuidesDemo } from '../../../src/areas/guides/guides.demo.js';
import type { DemoContext } from '../../../src/areas/area.js';

describe('demo guides', () => {
  const t = appForFile();

  it('the demo site gets a replacement, a repair and a teardown, with their prerequisite, tags, flags and a release', async () => {
    // the wikis area may have made a category already: the seeder tolerates it
    await t.db.insertInto('wikis').values({ namespace: 'CATEGORY', title: 'Plant Safety' }).execute();
    const out = await seedDemoOnce(t.db, t.config, t.clock, () => {});
    expect(out.seeded).toBe(true);
    const list = (await t.get('/guides?limit=200')).json();
    expect(list.map((g: { type: string }) => g.type).sort()).toEqual(['repair', 'replacement', 'teardown', 'technique']);
    const byType = Object.fromEntries(list.map((g: { type: string; guideid: number }) => [g.type, g.guideid]));

    const belt = (await t.get(`/guides/${byType.replacement}`)).json();
    expect(belt.steps.length).toBeGreaterThanOrEqual(5);
    expect(belt.prerequisites.map((p: { guideid: number }) => p.guideid)).toEqual([byType.technique]);
    expect(belt.tags).toEqual(['belt', 'conveyor', 'preventive maintenance']);
    expect(belt.parts[0]).toMatchObject({ title: 'Drive Belt B-1200', wikiid: expect.any(Number) });
    expect(belt.tools.map((x: { title: string }) => x.title)).toContain('Torque Wrench');
    expect(belt.introduction_rendered).toContain('<h2>Before you start</h2><ul><li>Order the belt');
    const lines = belt.steps.flatMap((s: { lines: Array<{ level: number; bullet: string; text_rendered: string }> }) => s.lines);
    expect(lines.some((l: { level: number }) => l.level === 1)).toBe(true);
    expect(lines.some((l: { bullet: string }) => l.bullet.startsWith('icon_'))).toBe(true);
    expect(lines.some((l: { text_rendered: string }) => l.text_rendered.includes('<strong>'))).toBe(true);
    expect(belt.steps[0].lines[0].text_rendered).toContain(`class="guide-link" data-guideid="${byType.technique}"`);
    expect(belt.flags).toEqual(['GUIDE_STARRED']);
    expect((await t.get('/guides/featured')).json().map((g: { guideid: number }) => g.guideid)).toEqual([byType.replacement]);
    const releases = (await t.get(`/guides/${byType.replacement}/releases`)).json().releases;
    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatchObject({ type: 'major', version: '1.0', status: 'released', revisionid: belt.revisionid });
    const teardown = (await t.get(`/guides/${byType.teardown}`)).json();
    expect(teardown.introduction_rendered).toContain('<blockquote>');
    const page = await t.app.inject({ method: 'GET', url: new URL(belt.url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Conveyor C-200 Drive Belt Replacement');
    // the demo users' guides and badges
    const author = await t.db.selectFrom('users').select('userid').where('email', '=', 'author@example.com').executeTakeFirstOrThrow();
    expect((await t.get(`/users/${author.userid}/guides`)).json()).toHaveLength(2);
    expect((await t.get(`/users/${author.userid}/badges`)).json().map((b: { badgeid: string }) => b.badgeid)).toContain('first_guide');
  });

  it('uses the media seeder\'s demo images as step images when it made some', async () => {
    const t2 = await buildTestApp();
    try {
      const ctx: DemoContext = { db: t2.db, config: t2.config, clock: t2.clock, password: 'demo password 1', users: {}, teams: {}, ids: {}, log: () => {} };
      await seedUsersDemo(ctx);
      await seedTeamsDemo(ctx);
      ctx.ids.demoImage1 = await makeImage(t2);
      ctx.ids.demoImage2 = await makeImage(t2);
      await seedGuidesDemo(ctx);
      const g = (await t2.get(`/guides/${ctx.ids.guideReplacement}`)).json();
      const used = g.steps.flatMap((s: { media: { data: Array<{ id: number }> } }) => s.media.data.map((i) => i.id));
      expect(new Set(used)).toEqual(new Set([ctx.ids.demoImage1, ctx.ids.demoImage2]));
      expect(g.image.id).toBe(used[0]);
    } finally {
      await t2.close();
    }
  });
});
