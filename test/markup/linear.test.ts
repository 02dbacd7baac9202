// The markup module is linear in its input for every construct: the work it counts
// (src/markup/steps.ts) for an adversarial text of size 8n is at most 10 times the work
// for size n. Each run has a step budget proportional to the text's length, so a
// super-linear parser fails here at once instead of running for minutes.
import { describe, expect, it } from 'vitest';
import { countSteps, renderWiki, StepBudgetExceeded } from '../../src/markup/index.js';
import { ADVERSARIAL, markupSteps } from './adversarial.js';

describe('markup work is linear in the input', () => {
  it.each(Object.keys(ADVERSARIAL))('%s: steps(8n) <= 10 * steps(n)', (name) => {
    const make = ADVERSARIAL[name];
    const small = markupSteps(make(250));
    const large = markupSteps(make(2000));
    expect(large).toBeLessThanOrEqual(10 * small);
  });

  it('the case of the report, 600 of each, stays within a linear budget', () => {
    const text = '[quote]\n'.repeat(600) + '[code]\n'.repeat(600) + '[/quote]';
    expect(markupSteps(text, 100 * text.length)).toBeGreaterThan(text.length);
  });

  it('a budget stops the work as soon as it is exceeded', () => {
    expect(() => countSteps(() => renderWiki('a'.repeat(10_000)), 1000)).toThrow(StepBudgetExceeded);
    expect(countSteps(() => renderWiki('a')).steps).toBeGreaterThan(0);
  });
});
