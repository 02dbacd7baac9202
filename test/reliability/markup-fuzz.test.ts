// Adversarial-markup fuzzing: fast-check builds texts shaped to defeat a parser that
// rescans (a prefix repeated k times, a middle, a suffix repeated k times, from atoms of
// every construct: block tags, list markers, delimiters, brackets, escapes) and checks
// that the markup module's work (its step count) grows linearly: steps at 8k <= 10 x
// steps at k, under a budget proportional to the length so a super-linear parser fails
// fast. Short run: fixed seed; `npm run test:fuzz` (LONG=1): more cases, a random seed.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADVERSARIAL, markupSteps } from '../markup/adversarial.js';
import { BASE_SEED, LONG, replayHint } from './lib/settings.js';

const FILE = 'test/reliability/markup-fuzz.test.ts';

const ATOMS = [
  '[quote]', '[quote|A]', '[quote|', '[/quote]', '[code]', '[/code]', '\\[/code]', '[br]', '[br|', '[image|', '[image|1', '[guide|1|',
  '[video|2]', '[link|/a|', '[https://e.test|', '[/x|', '[', ']', '|', '\\', '\\\\', '``', '`', "'", "''", "'''", "'''''", '++', ',,', '^^', '~~',
  '*', '#', '**', '#*', '== ', ' ==', '=', '\n', '\n\n', ' ', 'a', 'new_window=true',
];
const part = fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
const shape = fc.record({ prefix: part, middle: fc.array(fc.constantFrom(...ATOMS), { maxLength: 4 }).map((a) => a.join('')), suffix: fc.oneof(part, fc.constant('')) });
const build = (s: { prefix: string; middle: string; suffix: string }, k: number) => s.prefix.repeat(k) + s.middle + s.suffix.repeat(k);

describe(`adversarial markup (seed ${BASE_SEED}${LONG ? ', long run' : ''})`, () => {
  it('generated shapes: the work at 8k is at most 10 times the work at k', () => {
    fc.assert(fc.property(shape, (s) => {
      const small = markupSteps(build(s, 40));
      const large = markupSteps(build(s, 320));
      expect(large, JSON.stringify(s)).toBeLessThanOrEqual(10 * small);
    }), { numRuns: LONG ? 2000 : 150, seed: BASE_SEED });
  }, 120_000);

  // from 64 on: below, the nesting limits (16 quotes, 10 list levels) are not reached yet
  it('the known shapes of every construct, at a random size', () => {
    fc.assert(fc.property(fc.constantFrom(...Object.keys(ADVERSARIAL)), fc.integer({ min: 64, max: LONG ? 600 : 200 }), (name, n) => {
      const make = ADVERSARIAL[name];
      expect(markupSteps(make(8 * n)), `${name} at ${n}; ${replayHint(FILE)}`).toBeLessThanOrEqual(10 * markupSteps(make(n)));
    }), { numRuns: LONG ? 300 : 40, seed: BASE_SEED });
  }, 120_000);
});
