// A server start that is expected to stop (a configuration error, a node key that differs
// from the database's fingerprint): the real server as a child process with only the
// environment given here, its exit code and everything it printed.
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../../bench/lib/server-process.js';

export function refusedStart(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000);
  return new Promise((resolve) => proc.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, out });
  }));
}

/** The `configuration: ` lines a refused start printed. */
export const configurationLines = (out: string) => out.split('\n').filter((l) => l.startsWith('configuration: '));
