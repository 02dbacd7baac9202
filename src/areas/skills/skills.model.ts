// The skills model (ours; the original's is not public), one pure function:
//   rating = Σ_g W_g · Σ_i w_gi · v_i
// Top-level weights W: user, management. Group user: training (1 when a course stage on the
// document is completed, not expired or invalidated), quiz (the best score, 0 to 1, of a
// passed quiz on the document's current revision), practice (finished work log entries of
// a guide, min(1, n / 5)). Group management: signoff (1 for a passed, acknowledged sign-off),
// supervisor (the supervisor's rating, 0 to 1). A component that does not apply (value
// null: no quiz attached, no sign-off assessment, no supervisor rating yet, no work log for
// a wiki) is left out and the remaining weights of its group are rescaled to sum to 1; a
// group with nothing that applies is left out the same way at the top level.

export const GROUPS = {
  top: ['user', 'management'],
  user: ['training', 'quiz', 'practice'],
  management: ['signoff', 'supervisor'],
} as const;
export type GroupName = keyof typeof GROUPS;
export type Weights = { [G in GroupName]: Record<(typeof GROUPS)[G][number], number> };
export const DEFAULT_WEIGHTS: Weights = {
  top: { user: 0.5, management: 0.5 },
  user: { training: 0.5, quiz: 0.3, practice: 0.2 },
  management: { signoff: 0.5, supervisor: 0.5 },
};

/** Each component's value from 0 to 1, or null when it does not apply to the document. */
export interface SkillInputs {
  training: number | null;
  quiz: number | null;
  practice: number | null;
  signoff: number | null;
  supervisor: number | null;
}

export interface ComponentBreakdown {
  component: string;
  /** The weight as configured. */
  weight: number;
  /** The weight used: rescaled among the group's components that apply; 0 when it does not apply. */
  applied_weight: number;
  /** The assigned value, 0 to 1; null when the component does not apply. */
  value: number | null;
  /** applied_weight · value. */
  contribution: number;
}
export interface GroupBreakdown {
  group: 'user' | 'management';
  weight: number;
  applied_weight: number;
  /** Σ of the group's contributions, 0 to 1; null when nothing in it applies. */
  value: number | null;
  contribution: number;
  components: ComponentBreakdown[];
}
export interface SkillRating {
  /** The calculated total, 0 to 1. */
  rating: number;
  groups: GroupBreakdown[];
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** Weights rescaled over the entries that apply (value not null); all 0 when none applies or they sum to 0. */
function rescale(entries: Array<{ weight: number; applies: boolean }>): number[] {
  const sum = entries.reduce((s, e) => s + (e.applies ? e.weight : 0), 0);
  return entries.map((e) => (e.applies && sum > 0 ? e.weight / sum : 0));
}

export function rateSkill(inputs: SkillInputs, weights: Weights): SkillRating {
  const groups = (['user', 'management'] as const).map((group) => {
    const names = GROUPS[group] as readonly (keyof SkillInputs)[];
    const w = weights[group] as Record<string, number>;
    const applied = rescale(names.map((n) => ({ weight: w[n], applies: inputs[n] !== null })));
    const components: ComponentBreakdown[] = names.map((n, i) => ({
      component: n, weight: w[n], applied_weight: round(applied[i]), value: inputs[n], contribution: round(applied[i] * (inputs[n] ?? 0)),
    }));
    const applies = applied.some((a) => a > 0);
    const value = applies ? round(names.reduce((s, n, i) => s + applied[i] * (inputs[n] ?? 0), 0)) : null;
    return { group, weight: weights.top[group], applied_weight: 0, value, contribution: 0, components };
  });
  const top = rescale(groups.map((g) => ({ weight: g.weight, applies: g.value !== null })));
  groups.forEach((g, i) => {
    g.applied_weight = round(top[i]);
    g.contribution = round(top[i] * (g.value ?? 0));
  });
  return { rating: round(groups.reduce((s, g, i) => s + top[i] * (g.value ?? 0), 0)), groups };
}

/** practice: finished work log entries, min(1, n / 5). */
export const practiceValue = (finished: number) => Math.min(1, finished / 5);
