// The report's case through HTTP: one step line of nested quotes around unclosed code
// blocks (cubic before) is answered at once. Asserted by the steps the markup module
// counts for the request, not by time.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeUser, type TestUser } from '../helpers/factories.js';
import { line } from '../helpers/factories/guides.js';
import { stepsTaken } from '../../src/markup/index.js';

let user: TestUser;
const t = appForFile({}, async () => {
  user = await makeUser(t);
});

async function previewSteps(text: string) {
  const before = stepsTaken();
  const res = await t.post('/guides/steps/lines/preview', { token: user.token, body: { lines: [line(text)] } });
  return { res, steps: stepsTaken() - before };
}

describe('POST /guides/steps/lines/preview with adversarial markup', () => {
  it('600 quotes around 600 unclosed code blocks: answered, with work linear in the text', async () => {
    const text = '[quote]\n'.repeat(600) + '[code]\n'.repeat(600) + '[/quote]';
    const { res, steps } = await previewSteps(text);
    expect(res.statusCode).toBe(200);
    // no quote is closed (the close pairs with the innermost, beyond the nesting limit): text
    expect(res.json()[0].text_rendered).toMatch(/^\[quote\]<br>.*\[quote\]<br>\[code\]<br>\[code\]<br>/);
    expect(steps).toBeLessThan(50 * text.length);
    const small = await previewSteps('[quote]\n'.repeat(75) + '[code]\n'.repeat(75) + '[/quote]');
    expect(steps).toBeLessThanOrEqual(10 * small.steps);
  });
});
