// The server's CPU time per request for one path, against the baseline's (bench/baseline-
// server.ts sending the same bytes): what a request costs the server's process, read from
// /proc/<pid>/stat around a fixed number of requests. Less noisy than req/s on a shared
// machine (a load on the other core slows the load generator, not the server's CPU time
// per request), and a way to weigh one hook or handler against another. Linux only.
//
//   npm run build
//   npx tsx bench/cpu-per-request.ts --database sqlite:data/bench-1k.sqlite --path /api/2.0/suggest [--requests 100000] [--header 'name: value'] [--cpu-prof DIR]
//   npx tsx bench/cpu-per-request.ts --database postgres://... --method POST --path /api/2.0/comments/guide/1 --body '{"text":"..."}' --header 'Authorization: api TOKEN'
// --cpu-prof: the server's V8 CPU profile into DIR (bench/profile-summary.ts reads it);
// it also holds the server's start-up, a second or so. A write (--method other than GET,
// with --body as JSON) is measured against no baseline (it only answers reads). On
// PostgreSQL the database's processes (all `postgres` processes of this machine) are
// measured too: a round trip less shows on both sides.
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon, { type Options, type Result } from 'autocannon';
import { freePort, startServer, REPO_ROOT } from './lib/server-process.js';
import { BENCH_SERVER_ENV, DEFAULT_DATABASE } from './seed.js';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: DEFAULT_DATABASE },
    path: { type: 'string', default: '/api/2.0/suggest' },
    requests: { type: 'string', default: '100000' },
    header: { type: 'string', multiple: true, default: [] },
    method: { type: 'string', default: 'GET' },
    body: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const requests = Number(values.requests);
const headers: Record<string, string> = Object.fromEntries(values.header!.map((h) => [h.slice(0, h.indexOf(':')).trim(), h.slice(h.indexOf(':') + 1).trim()]));
const method = values.method!.toUpperCase() as 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
if (values.body !== undefined) headers['content-type'] = 'application/json';

/** User and system CPU time of a process so far, in clock ticks (100 per second on Linux). */
function cpuTicks(pid: number): number {
  const [user, system] = cpuTicksSplit(pid);
  return user + system;
}

/** The same, user and system apart: the system part is the kernel's (the socket's reads and writes). */
function cpuTicksSplit(pid: number): [number, number] {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return [Number(fields[11]), Number(fields[12])];
}

/** CPU ticks of every `postgres` process (the server's backends among them); 0 without any. */
function postgresTicks(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuTicks(Number(pid));
    } catch { /* gone meanwhile */ }
  }
  return total;
}

const load = (o: Options) => new Promise<Result>((resolve, reject) => autocannon(o, (err, r) => (err ? reject(err) : resolve(r))));

/** µs of the process's CPU per request, after a warm-up of 5 000. */
async function measure(url: string, pid: number, request: Pick<Options, 'method' | 'body'> = {}) {
  await load({ url, connections: 8, amount: 5000, headers, ...request });
  const [before, pgBefore] = [cpuTicksSplit(pid), postgresTicks()];
  const r = await load({ url, connections: 8, amount: requests, headers, ...request });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} answers not 2xx, ${r.errors} errors`);
  const after = cpuTicksSplit(pid);
  const perRequest = (ticks: number) => (ticks * 10_000) / requests;
  return {
    server: perRequest(after[0] - before[0] + after[1] - before[1]),
    system: perRequest(after[1] - before[1]),
    postgres: perRequest(postgresTicks() - pgBefore),
  };
}

const pgNote = (us: number) => (us ? ` (PostgreSQL ${us.toFixed(1)} µs)` : '');

/** A read, against the baseline sending the same bytes. */
async function compareRead(server: Awaited<ReturnType<typeof startServer>>, dir: string) {
  const body = await (await fetch(server.url + values.path, { headers })).text();
  const ours = await measure(server.url + values.path, server.proc.pid!);
  await server.stop();

  console.log('the baseline, the same bytes...');
  writeFileSync(join(dir, 'samples.json'), JSON.stringify({ s: body }));
  const port = await freePort();
  const baseline = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', String(port), join(dir, 'samples.json')], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => baseline.stdout!.once('data', resolve));
  const base = await measure(`http://127.0.0.1:${port}/b/s/x`, baseline.pid!);
  baseline.kill();
  console.log(`server ${ours.server.toFixed(1)} µs of CPU per request (${ours.system.toFixed(1)} in the kernel)${pgNote(ours.postgres)}, baseline ${base.server.toFixed(1)} µs (${base.system.toFixed(1)} in the kernel): ${Math.round((100 * base.server) / ours.server)} %`);
}

const dir = mkdtempSync(join(tmpdir(), 'cp-cpu-'));
try {
  console.log(`the server on ${values.database}, ${requests} requests of ${method} ${values.path}...`);
  const server = await startServer({ databaseUrl: values.database!, dataDir: dir, built: true, env: { ...BENCH_SERVER_ENV, LOG_LEVEL: 'warn', SEED_DEMO: 'false', JOB_POLL_MS: '1000' }, nodeArgs: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [] });
  if (method === 'GET') await compareRead(server, dir);
  else {
    const ours = await measure(server.url + values.path, server.proc.pid!, { method, body: values.body });
    await server.stop();
    console.log(`server ${ours.server.toFixed(1)} µs of CPU per request${pgNote(ours.postgres)} (a write: no baseline)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
