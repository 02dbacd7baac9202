// The work counter of the markup module. Every loop of the parser, the renderer and the
// serializer counts its iterations (and native string operations count the characters
// they touch), so that tests prove the module linear by counting, not by timing:
// `countSteps(() => renderWiki(x))`. A budget makes a super-linear implementation fail
// fast instead of running for minutes. Counting costs one addition and one comparison.

export class StepBudgetExceeded extends Error {
  constructor(budget: number) {
    super(`markup work exceeded its budget of ${budget} steps`);
    this.name = 'StepBudgetExceeded';
  }
}

let count = 0;
let total = 0;
let budget = Number.POSITIVE_INFINITY;

/** Counts `n` units of work (one loop iteration, or the characters a native call touches). */
export function step(n = 1): void {
  count += n;
  total += n;
  if (count > budget) throw new StepBudgetExceeded(budget);
}

/**
 * Runs `fn` and answers how many steps the markup module took for it; with `maxSteps`,
 * throws StepBudgetExceeded as soon as it takes more. Nested calls are independent.
 */
export function countSteps<T>(fn: () => T, maxSteps = Number.POSITIVE_INFINITY): { steps: number; result: T } {
  const saved = { count, budget };
  count = 0;
  budget = maxSteps;
  try {
    const result = fn();
    return { steps: count, result };
  } finally {
    count = saved.count + count;
    budget = saved.budget;
  }
}

/** Every step the module took since the process started (for tests that drive the HTTP API). */
export function stepsTaken(): number {
  return total;
}
