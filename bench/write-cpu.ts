// The server's CPU time per write, for weighing what a change to the write path costs (the
// audit log's, first): guide edits (`PATCH /guides/{id}?revisionid=`, each with the
// revision the last answer gave, four guides edited side by side) and comments (`POST
// /comments/guide/{id}`), as the Admin, after a warm-up. CPU time per request from
// /proc/<pid>/stat is far less sensitive to a loaded machine than req/s. `--root` runs the
// build of another checkout (built with `npm run build` there) on a copy of the same kind
// of seeded database, so that two commits are measured alternately in one session:
//
//   npx tsx bench/write-cpu.ts --database sqlite:data/wb-copy.sqlite [--root ../other-checkout] [--requests 2000] [--cpu-prof DIR]
// --cpu-prof: the server's V8 CPU profile into DIR (bench/profile-summary.ts reads it).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, login, REPO_ROOT, SERVER_PASSWORD } from './lib/server-process.js';
import { BENCH_SERVER_ENV } from './seed.js';

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    root: { type: 'string', default: REPO_ROOT },
    requests: { type: 'string', default: '2000' },
    label: { type: 'string', default: '' },
    'cpu-prof': { type: 'string' },
  },
});
if (!values.database) {
  console.error('npx tsx bench/write-cpu.ts --database URL [--root DIR] [--requests N] [--label NAME] [--cpu-prof DIR]');
  process.exit(2);
}
const requests = Number(values.requests);
const root = resolve(values.root!);

/** User and system CPU ticks (1/100 s) of a process so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function send(url: string, token: string, method: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/api/2.0${path}`, { method, headers: { authorization: `api ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function main() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BENCH_SERVER_ENV,
    NODE_ENV: 'production', DATABASE_URL: values.database!, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url,
    ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: SERVER_PASSWORD, LOGIN_RATE_LIMIT: '1000000', LOG_LEVEL: 'warn',
  };
  const profile = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'])] : [];
  const proc = spawn(process.execPath, [...profile, 'dist/server.js'], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('the server was not ready after 60 s');
      if ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const token = await login(url);
    const guides = [11, 12, 13, 14];
    const revisions = new Map<number, number>();
    for (const g of guides) revisions.set(g, (await fetch(`${url}/api/2.0/guides/${g}`, { headers: { authorization: `api ${token}` } }).then((r) => r.json()) as { revisionid: number }).revisionid);
    let n = 0;
    const edit = async (g: number) => {
      const r = await send(url, token, 'PATCH', `/guides/${g}?revisionid=${revisions.get(g)}`, { introduction: `Edited ${n++} times: check the torque of each bolt.` });
      if (r.status !== 200) throw new Error(`PATCH /guides/${g} answered ${r.status}: ${JSON.stringify(r.json)}`);
      revisions.set(g, r.json.revisionid);
    };
    const comment = async (g: number) => {
      const r = await send(url, token, 'POST', `/comments/guide/${g}`, { text: `Comment ${n++}: the gasket was worn.` });
      if (r.status !== 201) throw new Error(`POST /comments/guide/${g} answered ${r.status}`);
    };
    const run = async (write: (g: number) => Promise<void>, count: number) => {
      await Promise.all(guides.map(async (g) => { for (let i = 0; i < count / guides.length; i++) await write(g); }));
    };
    const results: Record<string, number> = {};
    for (const [name, write] of [['patch', edit], ['comment', comment]] as const) {
      await run(write, Math.min(400, requests / 5));
      const before = cpuTicks(proc.pid!);
      await run(write, requests);
      results[name] = ((cpuTicks(proc.pid!) - before) * 10_000) / requests;
    }
    console.log(`${values.label || root}: PATCH /guides/{id} ${results.patch.toFixed(0)} µs, POST /comments ${results.comment.toFixed(0)} µs of the server's CPU per request (${requests} each)`);
  } finally {
    // Waited for: the next run may copy another database over this one's file.
    const exited = new Promise((r) => proc.once('exit', r));
    // SIGINT closes the server at once and lets V8 write the profile; SIGKILL would not.
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(profile.length ? 'SIGINT' : 'SIGKILL');
    await exited;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
