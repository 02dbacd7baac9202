import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Kysely migrations and dynamic records use `any` at the edges on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // Every regular expression that may run over user text must be linear: no backtracking
  // that grows with the input (everywhere), and no pattern whose scan restarts at every
  // position (src/). Tests and benchmarks are left out of the second: their patterns run
  // over the project's own fixtures, OpenAPI paths and rendered HTML, never over text a
  // user sends to the server, and a quadratic test helper cannot stall a request.
  {
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-backtracking': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'regexp/no-super-linear-move': 'error' },
  },
);
