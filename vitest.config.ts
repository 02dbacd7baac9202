import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Vitest runs cores - 1 files at a time: one on a two-core machine, where a third of the
    // CPU then sat idle while files waited on PostgreSQL, the servers they start and the
    // clock. Three at a time took the PostgreSQL suite from 796 to 460 s and the SQLite
    // suite to 262 s on such a machine (2026-11-26), every test still passing.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Reports each file's result as it finishes, and the closing "Tests N passed" line.
    reporters: ['default'],
  },
});
