// The import-cycle check that `npm run lint` runs (scripts/check-cycles.mjs).
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { findCycles } from '../../scripts/check-cycles.mjs';

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
