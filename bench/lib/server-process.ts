// The real server as a child process (node --import tsx src/server.ts), on a database of
// the caller's choosing, listening on 127.0.0.1 at a free port: for the soak run
// (bench/soak.ts) and the crash-safety and multi-process tests, where the process itself
// must die or be several.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from '../../src/server-flags.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER_PASSWORD = 'server test password';


export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  port: number;
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGKILL: no graceful shutdown, no flush. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

export { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from '../../src/server-flags.js';

/** The variables a child process needs from the system (finding programs, temp files, locale). */
const SYSTEM_VARIABLES = ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT', 'SystemRoot'];

function systemEnvironment(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of SYSTEM_VARIABLES) if (process.env[k] !== undefined) out[k] = process.env[k]!;
  return out;
}

/**
 * Starts the server on `databaseUrl` (with SERVER_NODE_FLAGS). `built`: run the compiled build (`node dist/server.js`,
 * what production runs; `npm run build` first) instead of the TypeScript sources; `nodeArgs`
 * go to node before the script (`--cpu-prof`). `launcher`: start it as `npm start` does,
 * through start.ts, which adds the flags and the malloc setting itself (`proc` is then the
 * launcher, the server its child).
 */
export async function startServer(options: { databaseUrl: string; port?: number; env?: Record<string, string>; dataDir?: string; readyTimeoutMs?: number; built?: boolean; nodeArgs?: string[]; launcher?: boolean }): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  // The child's environment is set here, not inherited: a caller's ADMIN_EMAIL,
  // ADMIN_PASSWORD, DATABASE_URL, PORT or any other setting must not reach it. Only what
  // the system needs to run programs passes.
  const env: Record<string, string> = {
    ...systemEnvironment(),
    ...(options.launcher ? {} : SERVER_MALLOC_ENV),
    NODE_ENV: 'production',
    DATABASE_URL: options.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: SERVER_PASSWORD,
    PASSWORD_HASH_COST: '4',
    LOGIN_RATE_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    JOB_POLL_MS: '100',
    // A stop (SIGTERM) closes at once unless a test asks for a drain (test/reliability/drain.test.ts).
    SHUTDOWN_DRAIN_MS: '0',
    ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}),
    ...options.env,
  };
  const script = options.launcher ? 'start' : 'server';
  const args = [...(options.launcher ? [] : SERVER_NODE_FLAGS), ...(options.nodeArgs ?? []), ...(options.built ? [`dist/${script}.js`] : ['--import', 'tsx', `src/${script}.ts`])];
  const proc = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  proc.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let done = false;
  void exited.then(() => { done = true; });
  while (true) {
    if (done) throw new Error(`server exited before it was ready:\n${out}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server not ready after ${options.readyTimeoutMs ?? 60_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    proc,
    output: () => out,
    exited,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Logs in as a demo account of a server started by startServer. */
export async function login(url: string, email = 'admin@example.com', password = SERVER_PASSWORD): Promise<string> {
  const res = await fetch(`${url}/api/2.0/user/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (res.status !== 201) throw new Error(`login as ${email} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { authToken: string }).authToken;
}

/** `requestId`: the answer's X-Request-Id (the audit log's `request_id`; its first 24 characters name the process). */
export interface Answer { status: number; body: any; text: string; requestId: string | null }

/** A JSON request to a running server; network errors come back as status 0. */
export async function call(url: string, method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  try {
    const res = await fetch(`${url}/api/2.0${path}`, {
      method,
      headers: { ...(token ? { authorization: `api ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, body: parsed, text, requestId: res.headers.get('x-request-id') };
  } catch (err) {
    return { status: 0, body: null, text: String(err), requestId: null };
  }
}
