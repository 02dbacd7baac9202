// The import-cycle check that `npm run lint` runs (scripts/check-cycles.mjs).
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { findCycles } from '../../scripts/check-cycles.mjs';

const SCRIPT = fileURLToPath(new URL('../../scripts/check-cycles.mjs', import.meta.url));
/** The check as `npm run lint` runs it, on `dir`. */
const runCheck = (dir?: string) => spawnSync(process.execPath, dir ? [SCRIPT, dir] : [SCRIPT], { encoding: 'utf8' });

const root = mkdtempSync(join(tmpdir(), 'cycles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('findCycles', () => {
  it('finds two files importing each other, across lines and through export ... from', () => {
    const dir = tree('files', {
      'areas/a/a.ts': "import {\n  b,\n} from '../b/b.js';\nexport const a = b;\n",
      'areas/b/b.ts': "export { a } from '../a/a.js';\nexport const b = 1;\n",
    });
    expect(findCycles(dir)).toEqual([['areas/a/a.ts', 'areas/b/b.ts']]);
  });

  it('ignores import type lines, which vanish at build time', () => {
    const dir = tree('types', {
      'x.ts': "import type { Y } from './y.js';\nexport type X = Y;\nexport const x = 1;\n",
      'y.ts': "import { x } from './x.js';\nexport type Y = number;\nexport const y = x;\n",
    });
    expect(findCycles(dir)).toEqual([]);
  });

  it('by area: two areas whose different files import each other are a loop', () => {
    const dir = tree('areas', {
      'areas/guides/guides.queries.ts': "import { c } from '../comments/comments.queries.js';\nexport const g = c;\n",
      'areas/comments/comments.contexts.ts': "import { g } from '../guides/guides.queries.js';\nexport const k = g;\n",
      'areas/comments/comments.queries.ts': 'export const c = 1;\n',
    });
    expect(findCycles(dir)).toEqual([]);
    expect(findCycles(dir, { byArea: true })).toEqual([['areas/comments', 'areas/guides']]);
  });
});

describe('scripts/check-cycles.mjs (run by npm run lint)', () => {
  it('passes on the project\'s src/: no loops between files or between areas', () => {
    const run = runCheck();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('fails (exit 1) on a new loop between two areas, naming them', () => {
    const dir = tree('new-area-loop', {
      'areas/guides/guides.records.ts': "import { w } from '../wikis/wikis.queries.js';\nexport const g = w;\n",
      'areas/wikis/wikis.queries.ts': 'export const w = 1;\n',
      'areas/wikis/wikis.records.ts': "import { g } from '../guides/guides.records.js';\nexport const r = g;\n",
      'http/errors.ts': 'export const e = 1;\n',
    });
    const run = runCheck(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('areas/guides <-> areas/wikis');
  });

  it('fails (exit 1) on a loop between two files', () => {
    const dir = tree('new-file-loop', {
      'http/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'http/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
    });
    const run = runCheck(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('http/a.ts <-> http/b.ts');
  });

  it('passes when areas depend downward only (a shared piece below both)', () => {
    const dir = tree('downward', {
      'areas/shared/rule.ts': 'export const rule = 1;\n',
      'areas/guides/guides.records.ts': "import { rule } from '../shared/rule.js';\nimport { w } from '../wikis/wikis.queries.js';\nexport const g = rule + w;\n",
      'areas/wikis/wikis.queries.ts': "import { rule } from '../shared/rule.js';\nexport const w = rule;\n",
    });
    const run = runCheck(dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
