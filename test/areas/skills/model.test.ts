// The skills model with worked examples, the arithmetic written out.
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS, practiceValue, rateSkill } from '../../../src/areas/skills/skills.model.js';

describe('rateSkill: rating = Σ_g W_g · Σ_i w_gi · v_i', () => {
  it('everything applies: default weights', () => {
    // user  = 0.5·1 (training) + 0.3·0.8 (quiz) + 0.2·0.4 (practice: 2 entries, 2/5) = 0.5 + 0.24 + 0.08 = 0.82
    // mgmt  = 0.5·1 (signoff) + 0.5·0.75 (supervisor) = 0.5 + 0.375 = 0.875
    // total = 0.5·0.82 + 0.5·0.875 = 0.41 + 0.4375 = 0.8475
    const r = rateSkill({ training: 1, quiz: 0.8, practice: practiceValue(2), signoff: 1, supervisor: 0.75 }, DEFAULT_WEIGHTS);
    expect(r.rating).toBe(0.8475);
    expect(r.groups.map((g) => [g.group, g.value, g.applied_weight, g.contribution])).toEqual([['user', 0.82, 0.5, 0.41], ['management', 0.875, 0.5, 0.4375]]);
    expect(r.groups[0].components.map((c) => [c.component, c.applied_weight, c.value, c.contribution])).toEqual([['training', 0.5, 1, 0.5], ['quiz', 0.3, 0.8, 0.24], ['practice', 0.2, 0.4, 0.08]]);
  });

  it('no quiz attached: training and practice rescaled to 0.5/0.7 and 0.2/0.7', () => {
    // user = (0.5/0.7)·1 + (0.2/0.7)·1 = 1; no sign-off assessment: mgmt = supervisor alone = 0.5
    // total = 0.5·1 + 0.5·0.5 = 0.75
    const r = rateSkill({ training: 1, quiz: null, practice: 1, signoff: null, supervisor: 0.5 }, DEFAULT_WEIGHTS);
    expect(r.rating).toBe(0.75);
    expect(r.groups[0].components.map((c) => c.applied_weight)).toEqual([0.714286, 0, 0.285714]);
    expect(r.groups[1].components.map((c) => c.applied_weight)).toEqual([0, 1]);
  });

  it('nothing applies in management (no sign-off, no supervisor rating): the user group carries the whole weight', () => {
    // user = 0.5·0 + 0.3·0.6 + 0.2·0.2 = 0.18 + 0.04 = 0.22; management left out: W_user = 1
    const r = rateSkill({ training: 0, quiz: 0.6, practice: practiceValue(1), signoff: null, supervisor: null }, DEFAULT_WEIGHTS);
    expect(r.rating).toBe(0.22);
    expect(r.groups[1]).toMatchObject({ value: null, applied_weight: 0, contribution: 0 });
    expect(r.groups[0].applied_weight).toBe(1);
  });

  it('other weights: top 0.8/0.2, user 1/0/0', () => {
    // user = 1·1 = 1 (quiz and practice weigh 0); mgmt = 0.5·0 + 0.5·1 = 0.5; total = 0.8·1 + 0.2·0.5 = 0.9
    const w = { top: { user: 0.8, management: 0.2 }, user: { training: 1, quiz: 0, practice: 0 }, management: { signoff: 0.5, supervisor: 0.5 } };
    expect(rateSkill({ training: 1, quiz: 0, practice: 0, signoff: 0, supervisor: 1 }, w).rating).toBe(0.9);
  });

  it('practice = min(1, n / 5)', () => {
    expect([0, 1, 5, 9].map(practiceValue)).toEqual([0, 0.2, 1, 1]);
  });
});
