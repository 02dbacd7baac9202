// Reads a V8 .cpuprofile (npm run bench -- --cpu-prof DIR) and prints where the time went:
// self time by function, and total (inclusive) time by function, top N each.
//
//   npx tsx bench/profile-summary.ts DIR/CPU....cpuprofile [--top 30] [--from-ms 0] [--to-ms END]
// --from-ms, --to-ms: only the samples from (and before) that many ms after the profile's start (leaves out a
// server's start-up, or picks one scenario's window); idle time is left out of the percentages.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, 'from-ms': { type: 'string', default: '0' }, 'to-ms': { type: 'string' } } });
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const top = Number(values.top);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const total = new Map<string, number>();
const fromUs = Number(values['from-ms']) * 1000;
const toUs = values['to-ms'] === undefined ? Infinity : Number(values['to-ms']) * 1000;
let all = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  const n = byId.get(id)!;
  if (at < fromUs || at >= toUs || n.callFrame.functionName === '(idle)') return;
  all += dt;
  self.set(name(n), (self.get(name(n)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = name(byId.get(cur)!);
    if (seen.has(k)) continue;
    seen.add(k);
    total.set(k, (total.get(k) ?? 0) + dt);
  }
});
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (of ${(all / 1000).toFixed(0)} ms)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((v / all) * 100).toFixed(1).padStart(5)} %  ${k}`);
};
print('self time', self);
print('total time', total);
