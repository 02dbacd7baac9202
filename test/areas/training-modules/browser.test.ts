// A real browser (Debian's Chromium, driven by playwright-core, as the reliability suite
// does) opens the player of a SCORM 1.2 module for an assigned learner. The package's page
// finds the runtime through window.parent, calls LMSSetValue('cmi.core.lesson_status',
// 'passed') and LMSFinish(''); the learner's course stage is then complete. Skipped where
// Chromium is absent (CI installs it).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../../helpers/app.js';
import { CHROMIUM, chromiumPresent, withBrowser } from '../../helpers/browser.js';
import { makeAdmin, makeUser } from '../../helpers/factories.js';
import { courseWithModule, makeModule } from '../../helpers/factories/modules.js';
import { stageStatusOf } from '../../../src/areas/shared/course-status.js';

describe.skipIf(!chromiumPresent)(`the SCORM player in a real browser (${CHROMIUM})`, () => {
  const setup = withBrowser();
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(() => ({ t, browser, base } = setup));

  it('a SCORM 1.2 package that reports passed and finishes completes the learner\'s course stage', async () => {
    const [admin, learner] = [await makeAdmin(t), await makeUser(t)];
    const m = await makeModule(t, admin, '1.2', { autoComplete: true });
    const course = await courseWithModule(t, admin, m.external_training_moduleid, learner);
    const res = await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json();

    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.addInitScript(() => {
      (globalThis as any).__csp = [];
      (globalThis as any).addEventListener('securitypolicyviolation', (e: any) => (globalThis as any).__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const passed = page.waitForResponse((r) => r.url().includes('/external_training_modules/commits/') && (r.request().postData() ?? '').includes('passed'), { timeout: 30_000 });
    const opened = await page.goto(data.player_url, { waitUntil: 'load' });
    expect(opened?.status()).toBe(200);
    const commit = await passed;
    expect(commit.status()).toBe(200);
    expect(await commit.json()).toEqual({ result: true, errorCode: 0 });
    const frame = page.frames().find((f) => f.url().includes('/content/index.html'));
    expect(frame, 'the launch file is framed').toBeDefined();
    await frame!.waitForFunction(() => (globalThis as any).document.getElementById('state').textContent === 'Done', undefined, { timeout: 30_000 });

    const status = await stageStatusOf(t.db, learner.userid, course.course_stageid);
    expect(status).toMatchObject({ status: 'completed', completion: { via: 'module', doc_revisionid: m.importid } });
    expect(requests.filter((u) => !u.startsWith(base)), 'nothing from another host').toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).__csp)).toEqual([]);
    expect(problems).toEqual([]);
    // The page holds the commit token, never the learner's API token.
    expect(await page.content()).not.toContain(learner.token);
    await page.close();
  }, 60_000);

  it('a saved attempt is restored into the runtime on the next launch (suspend_data, lesson_location)', async () => {
    const [admin, learner] = [await makeAdmin(t), await makeUser(t)];
    const m = await makeModule(t, admin, '1.2');
    await courseWithModule(t, admin, m.external_training_moduleid, learner);
    const first = (await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token })).json();
    const token = first.commit_url.split('/').pop();
    const saved = await t.post(`/external_training_modules/commits/${token}`, { body: { cmi: { core: { lesson_status: 'incomplete', lesson_location: 'page-3' }, suspend_data: 'viewed=1,2,3' } } });
    expect(saved.json()).toEqual({ result: true, errorCode: 0 });
    const again = (await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token })).json();
    expect(again.attempt).toBe(1);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(again.player_url, { waitUntil: 'load' });
    const frame = page.frames().find((f) => f.url().includes('/content/index.html'));
    await frame!.waitForFunction(() => (globalThis as any).document.getElementById('state').textContent === 'Ready', undefined, { timeout: 30_000 });
    const restored = await frame!.evaluate(() => {
      const api = (globalThis as any).parent.API;
      return { suspend: api.LMSGetValue('cmi.suspend_data'), location: api.LMSGetValue('cmi.core.lesson_location') };
    });
    expect(restored).toEqual({ suspend: 'viewed=1,2,3', location: 'page-3' });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
