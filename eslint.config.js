import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

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
  // No import cycles in src/: an area may use another's exports, never the other way round
  // as well (shared pieces live in src/http or src/areas/content). `import type` lines are
  // exempt (they vanish at build time).
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
);
