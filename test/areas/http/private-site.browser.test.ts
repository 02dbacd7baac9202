// A private site in a real browser (Debian's Chromium, driven by playwright-core): a person
// opens a guide's page, gets the login page, logs in through its form (no script), is sent
// back to the guide, then opens a training module's player, whose runtime commits to the
// server. Skipped where Chromium is absent (CI installs it).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../../helpers/app.js';
import { CHROMIUM, chromiumPresent, withBrowser } from '../../helpers/browser.js';
import { makeAdmin, makeUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { courseWithModule, makeModule } from '../../helpers/factories/modules.js';

describe.skipIf(!chromiumPresent)(`a private site in a real browser (${CHROMIUM})`, () => {
  const setup = withBrowser({ privateSite: true });
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(() => ({ t, browser, base } = setup));

  it('logs in through the login page, then opens a guide page and a module\'s player', async () => {
    const [admin, learner] = [await makeAdmin(t), await makeUser(t)];
    const guide = await makePublishedGuide(t, admin, 1, { title: 'Replace the belt' });
    const m = await makeModule(t, admin, '1.2', { autoComplete: true });
    await courseWithModule(t, admin, m.external_training_moduleid, learner);
    const guidePath = new URL(guide.url).pathname;

    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    const first = await page.goto(base + guidePath, { waitUntil: 'load' });
    expect(first?.status()).toBe(401);
    expect(await page.title()).toBe('Log in');
    expect(await page.content()).not.toContain('Replace the belt');

    await page.fill('#login', learner.email);
    await page.fill('#password', 'wrong password');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    expect(await page.locator('.error').textContent()).toContain('incorrect');

    await page.fill('#login', learner.email);
    await page.fill('#password', learner.password);
    const [back] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    expect(back?.status()).toBe(200);
    expect(page.url()).toBe(base + guidePath);
    expect(await page.locator('h1').textContent()).toBe('Replace the belt');
    const cookies = await context.cookies(base);
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([{ name: 'session_cp', httpOnly: true, sameSite: 'Lax' }]);
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');

    // The module: its player data read with the browser's session (its cookie jar), then the player itself.
    const data = await context.request.get(`${base}/api/2.0/external_training_modules/${m.external_training_moduleid}/player`, { headers: { accept: 'application/json' } });
    expect(data.status()).toBe(200);
    const player = (await data.json()) as { player_url: string };
    const passed = page.waitForResponse((r) => r.url().includes('/external_training_modules/commits/') && (r.request().postData() ?? '').includes('passed'), { timeout: 30_000 });
    const opened = await page.goto(player.player_url, { waitUntil: 'load' });
    expect(opened?.status()).toBe(200);
    const commit = await passed;
    expect(commit.status()).toBe(200);
    expect(await commit.json()).toEqual({ result: true, errorCode: 0 });
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
