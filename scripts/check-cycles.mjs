#!/usr/bin/env node
/* global process, console */
// Fails when modules under src/ import each other in a loop: two files, or two areas
// (`src/areas/<name>/`, all its files as one) each using the other's exports, directly or
// through others. Areas depend downward only. `import type` lines are exempt: they
// vanish at build time. Run by `npm run lint`; `findCycles(dir)` is tested in test/lint/cycles.test.ts.
// (eslint-plugin-import-x's no-cycle needs unrs-resolver, whose builds for other
// platforms the registry this project installs from does not serve, so `npm ci` could
// not install it from a consistent lockfile.)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';


function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The value imports of one file, as absolute paths of .ts files: the specifier of every
 * `import ... from '...'`, `import '...'` and `export ... from '...'` statement (the first
 * quoted string of the statement, which may span lines), not `import type` / `export type`.
 */
function importsOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const start = lines[i].trimStart();
    const isImport = start.startsWith('import ') || start.startsWith("import'");
    const isReexport = start.startsWith('export {') || start.startsWith('export *');
    if (!isImport && !isReexport) continue;
    const typeOnly = start.startsWith('import type ') || start.startsWith('export type ');
    for (let j = i; j < lines.length; j++) {
      const q = lines[j].indexOf("'");
      if (q >= 0) {
        const end = lines[j].indexOf("'", q + 1);
        const spec = lines[j].slice(q + 1, end);
        if (!typeOnly && spec.startsWith('.')) found.push(resolve(dirname(file), spec.endsWith('.js') ? spec.slice(0, -3) + '.ts' : spec));
        i = j;
        break;
      }
      if (lines[j].includes(';')) { i = j; break; }
    }
  }
  return found;
}

/** The unit a file belongs to: its area (`areas/<name>`) or, outside the areas, the file itself. */
function areaOf(dir, file) {
  const parts = relative(dir, file).split(/[\\/]/);
  return parts[0] === 'areas' && parts.length > 2 ? join(dir, parts[0], parts[1]) : file;
}

/**
 * Every strongly connected group of more than one node (Tarjan), each as paths relative to
 * dir. By files; with `byArea`, the files of one area are one node, so two areas that
 * import each other (through any of their files) are a cycle.
 */
export function findCycles(dir, { byArea = false } = {}) {
  const files = sourceFiles(dir);
  const known = new Set(files);
  const unit = (f) => (byArea ? areaOf(dir, f) : f);
  const edges = new Map();
  for (const f of files) {
    const from = unit(f);
    if (!edges.has(from)) edges.set(from, []);
    for (const t of importsOf(f)) if (known.has(t) && unit(t) !== from) edges.get(from).push(unit(t));
  }
  const nodes = [...edges.keys()];
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of nodes) {
    if (indexOf.has(start)) continue;
    const work = [[start, 0]];
    indexOf.set(start, index); low.set(start, index); index++; stack.push(start); onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const next = edges.get(node)[i];
      if (next !== undefined) {
        frame[1]++;
        if (!indexOf.has(next)) {
          indexOf.set(next, index); low.set(next, index); index++; stack.push(next); onStack.add(next);
          work.push([next, 0]);
        } else if (onStack.has(next)) {
          low.set(node, Math.min(low.get(node), indexOf.get(next)));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indexOf.get(node)) {
        const group = [];
        let member;
        do { member = stack.pop(); onStack.delete(member); group.push(member); } while (member !== node);
        if (group.length > 1 || edges.get(node).includes(node)) groups.push(group.map((g) => relative(dir, g)).sort());
      }
    }
  }
  return groups;
}

/**
 * The lines to print when `dir` has import loops: between files, and between areas (all
 * files of `areas/<name>/` as one). Empty when there are none. Both kinds fail lint.
 */
export function cycleReport(dir) {
  const lines = [];
  const files = findCycles(dir);
  if (files.length) {
    lines.push(`Import cycles between files (${files.length}); break each by moving the shared piece to a lower module:`);
    for (const c of files) lines.push('  ' + c.join(' <-> '));
  }
  const areas = findCycles(dir, { byArea: true });
  if (areas.length) {
    lines.push(`Areas importing each other (${areas.length}); areas depend downward: move the piece both need to src/areas/shared, src/areas/content or src/http, or give the lower area a slot in Area (src/areas/area.ts) that app.ts fills:`);
    for (const c of areas) lines.push('  ' + c.join(' <-> '));
  }
  return lines;
}

// `node scripts/check-cycles.mjs [dir]`: checks src/ (or dir); exit 1 on any loop.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ? resolve(process.argv[2]) : resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const report = cycleReport(root);
  if (report.length) {
    for (const line of report) console.error(line);
    process.exit(1);
  }
  console.log('no import cycles between files or areas of src/');
}
