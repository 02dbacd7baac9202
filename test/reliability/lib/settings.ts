// Short runs in `npm test` (fixed seed, few cases per route), long runs with LONG=1
// (`npm run test:long`, `npm run test:fuzz`). FUZZ_SEED and FUZZ_RUNS override both.
import { createHash } from 'node:crypto';

export const LONG = ['1', 'true', 'yes'].includes(String(process.env.LONG ?? '').toLowerCase());

/** The short run's seed is fixed so CI is repeatable; long runs pick one and print it. */
export const BASE_SEED = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== ''
  ? Number(process.env.FUZZ_SEED)
  : LONG ? Math.floor(Math.random() * 2 ** 31) : 20261122;

/**
 * Cases per route. The short run spends a fixed budget spread over the routes (between 5
 * and 14 each), so that the suite's time stays flat as areas add routes.
 */
export function fuzzRuns(routes: number): number {
  if (process.env.FUZZ_RUNS) return Number(process.env.FUZZ_RUNS);
  if (LONG) return 400;
  return Math.max(5, Math.min(14, Math.floor(1000 / Math.max(1, routes))));
}

/** A seed per name (route), so one route's cases do not depend on which routes exist. */
export function seedFor(name: string): number {
  const h = createHash('sha256').update(`${BASE_SEED}:${name}`).digest();
  return h.readInt32LE(0);
}

export const replayHint = (file: string, name?: string) =>
  `replay: FUZZ_SEED=${BASE_SEED}${LONG ? ' LONG=1' : ''}${process.env.FUZZ_RUNS ? ` FUZZ_RUNS=${process.env.FUZZ_RUNS}` : ''} npx vitest run ${file}${name ? ` -t "${name}"` : ''}`;
