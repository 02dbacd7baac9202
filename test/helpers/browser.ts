// Debian's Chromium driven by playwright-core, for the tests that need a real browser:
// an app listening on 127.0.0.1 and a headless browser, started before a file's tests and
// stopped after. Where Chromium is absent (a bare machine) the file's tests are skipped
// and say so; .ci/run installs it.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { buildTestApp, type TestApp } from './app.js';
import { freePort } from '../../bench/lib/server-process.js';
import type { Config } from '../../src/config.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** Whether Chromium is here (use with describe.skipIf); warns once when it is not. */
export const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent) console.warn(`[browser] SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, as .ci/run does, or set CHROMIUM_PATH)`);

export interface BrowserSetup {
  t: TestApp;
  browser: Browser;
  /** The listening app's origin, e.g. http://127.0.0.1:40123 (also its PUBLIC_URL). */
  base: string;
}

/** Call inside a describe: the app and the browser, for that describe's tests (`config`: settings besides PUBLIC_URL). */
export function withBrowser(config: Partial<Config> = {}): BrowserSetup {
  const setup = {} as BrowserSetup;
  beforeAll(async () => {
    const port = await freePort();
    setup.base = `http://127.0.0.1:${port}`;
    setup.t = await buildTestApp({ config: { ...config, publicUrl: setup.base } });
    await setup.t.app.listen({ host: '127.0.0.1', port });
    setup.browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  }, 60_000);
  afterAll(async () => {
    await setup.browser?.close();
    await setup.t?.close();
  });
  return setup;
}
