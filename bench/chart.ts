// The scale curve: reads bench results (JSON of bench.ts) taken at several data sizes and
// draws the read scenarios' throughput and the server's peak RSS against the number of
// guides, as an SVG (no dependencies); prints the change from the smallest to the
// largest size per scenario as a markdown table, with the target of the performance issue
// (read throughput falls by less than 25 % from the smallest size to the largest). Only
// the one-process rows count: the `×N processes` rows of bench.ts are left out.
//
//   npx tsx bench/chart.ts bench/results/scale-sqlite-10k.json bench/results/scale-sqlite-100k.json \
//     bench/results/scale-sqlite-300k.json --out bench/results/scale-sqlite.svg
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './bench.js';

const COLORS = ['#1f6feb', '#d62d20', '#2da44e', '#8250df', '#f18f00', '#6e7781', '#0a7d8c', '#bf3989'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Series { name: string; points: Array<[number, number]> }

/** A number of guides as written in the table and on the axis: 300, 10k, 1.5M. */
const size = (n: number) => (n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1000 ? `${+(n / 1000).toFixed(n % 1000 ? 1 : 0)}k` : String(n));

/** One panel: x = data size (log scale), y = value, one line per series. */
function panel(x0: number, title: string, unit: string, sizes: number[], series: Series[], width = 420, height = 300): string {
  const left = x0 + 60, top = 40, w = width - 80, h = height - 90;
  const ymax = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p[1]))) * 1.1;
  const lx = (n: number) => Math.log10(n);
  const [xa, xb] = [lx(Math.min(...sizes)), lx(Math.max(...sizes))];
  const X = (n: number) => left + (xb === xa ? w / 2 : ((lx(n) - xa) / (xb - xa)) * w);
  const Y = (v: number) => top + h - (v / ymax) * h;
  const out: string[] = [];
  out.push(`<text x="${x0 + width / 2}" y="22" text-anchor="middle" font-weight="bold">${esc(title)}</text>`);
  out.push(`<line x1="${left}" y1="${top + h}" x2="${left + w}" y2="${top + h}" stroke="#444"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + h}" stroke="#444"/>`);
  for (let i = 0; i <= 4; i++) {
    const v = (ymax / 4) * i;
    out.push(`<line x1="${left}" y1="${Y(v)}" x2="${left + w}" y2="${Y(v)}" stroke="#ddd"/><text x="${left - 6}" y="${Y(v) + 4}" text-anchor="end" font-size="11">${Math.round(v)}</text>`);
  }
  for (const n of sizes) out.push(`<text x="${X(n)}" y="${top + h + 16}" text-anchor="middle" font-size="11">${size(n)}</text>`);
  out.push(`<text x="${left + w / 2}" y="${top + h + 34}" text-anchor="middle" font-size="11">guides (log scale)</text>`);
  out.push(`<text x="${x0 + 14}" y="${top + h / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 ${x0 + 14} ${top + h / 2})">${esc(unit)}</text>`);
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const pts = s.points.map(([n, v]) => `${X(n).toFixed(1)},${Y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${c}" stroke-width="2"/>`);
    for (const [n, v] of s.points) out.push(`<circle cx="${X(n).toFixed(1)}" cy="${Y(v).toFixed(1)}" r="3" fill="${c}"/>`);
  });
  return out.join('\n');
}

/** A report with its one-process rows only (results before `processes` existed are all one-process). */
const oneProcess = (r: BenchReport): BenchReport => ({ ...r, scenarios: r.scenarios.filter((s) => (s.processes ?? 1) === 1) });

/** The largest fall of req/s from the smallest size to the largest that still meets the target. */
export const MAX_FALL = 0.25;

export function scaleChart(reports: BenchReport[]): { svg: string; table: string } {
  const sorted = reports.map(oneProcess).sort((a, b) => a.data.guides - b.data.guides);
  const sizes = sorted.map((r) => r.data.guides);
  const names = [...new Set(sorted.flatMap((r) => r.scenarios.filter((s) => s.kind === 'read').map((s) => s.name)))];
  const request = new Map(sorted.flatMap((r) => r.scenarios.map((s) => [s.name, s.request] as const)));
  const rps: Series[] = names.map((name) => ({ name, points: sorted.flatMap((r) => r.scenarios.filter((s) => s.name === name).map((s) => [r.data.guides, s.rps] as [number, number])) }));
  const rss: Series[] = [{ name: 'peak RSS', points: sorted.map((r) => [r.data.guides, readPeak(r)] as [number, number]) }];
  const width = 900, height = 300 + 20 * Math.ceil(names.length / 2);
  const legend = names.map((n, i) => {
    const x = 40 + (i % 2) * 420, y = 300 + 20 * Math.floor(i / 2);
    return `<rect x="${x}" y="${y - 9}" width="12" height="4" fill="${COLORS[i % COLORS.length]}"/><text x="${x + 18}" y="${y - 4}" font-size="11">${esc(`${name(n, request)}`)}</text>`;
  }).join('\n');
  const db = `${sorted[0]?.database.kind ?? ''}`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
${panel(0, `Reads: requests per second (${db})`, 'req/s', sizes, rps, 460)}
${panel(460, 'Server peak RSS during the reads', 'MB', sizes, rss, 440)}
${legend}
</svg>
`;
  const lines = ['| Scenario | ' + sizes.map((n) => `${size(n)}: req/s (of baseline)`).join(' | ') + ` | change of req/s | falls < ${MAX_FALL * 100} % |`, '|---|' + sizes.map(() => '---:|').join('') + '---:|---|'];
  // req/s, and in brackets the ratio to the baseline of the same minute (the machine is shared).
  const ratio = (n: string, r: BenchReport) => r.scenarios.find((x) => x.name === n)?.ratio;
  for (const s of rps) {
    const first = s.points[0]?.[1], last = s.points[s.points.length - 1]?.[1];
    const change = first && s.points.length > 1 ? Math.round(((last - first) / first) * 100) : NaN;
    const cells = sorted.map((r) => {
      const sc = r.scenarios.find((x) => x.name === s.name);
      const q = ratio(s.name, r);
      return sc ? `${sc.rps}${q !== undefined ? ` (${Math.round(q * 100)} %)` : ''}` : '–';
    });
    const met = Number.isNaN(change) ? '–' : change > -MAX_FALL * 100 ? 'yes' : '**no**';
    lines.push(`| \`${name(s.name, request)}\` | ${cells.join(' | ')} | ${Number.isNaN(change) ? '–' : `${change > 0 ? '+' : ''}${change} %`} | ${met} |`);
  }
  lines.push(`| peak RSS through the reads (MB) | ${sorted.map((r) => Math.round(readPeak(r))).join(' | ')} | | |`);
  return { svg, table: lines.join('\n') + '\n' };
}

function name(n: string, request: Map<string, string>) {
  return (request.get(n) ?? n).replace(/\(random of \d+\)/, n === 'guide' || n === 'guide-304' ? '(hot set)' : '(any guide)').replace(/offset=\d+/, 'offset=N');
}

/** The server's peak RSS through the read scenarios only. */
const readPeak = (r: BenchReport) => Math.max(0, ...r.scenarios.filter((s) => s.kind === 'read').map((s) => s.peakRssMb ?? 0));

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string', default: 'bench/results/scale.svg' } } });
  const reports = positionals.map((f) => JSON.parse(readFileSync(f, 'utf8')) as BenchReport);
  const { svg, table } = scaleChart(reports);
  writeFileSync(values.out!, svg);
  console.log(table);
  console.log(`written: ${values.out}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
