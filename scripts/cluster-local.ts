// `npm run cluster:local`: the topology of docs/deployment.md on one machine, for anyone to
// try: the test S3 server (s3rver, a devDependency) with a bucket, the local PostgreSQL, two
// nodes (`node --import tsx src/server.ts`, each with its own DATA_DIR and port) and the
// round-robin proxy (scripts/round-robin-proxy.ts) in front of them on PORT (3000).
//
// Everything is kept under data/cluster/ (CLUSTER_DIR): the bucket's files (s3/), the nodes'
// data folders (a/, b/) and the node keys (keys.env, generated once, mode 0600), so that a
// restart finds the same site. The database is DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/cluster_local; a database that does not exist is created.
// Other settings of the environment (LOG_LEVEL, ADMIN_PASSWORD...) reach both nodes; LOG_LEVEL
// is `warn` unless set. Ctrl-C or SIGTERM stops it all: each node drains (SIGTERM,
// SHUTDOWN_DRAIN_MS) while the proxy still runs, then the proxy and the S3 server stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import S3rver from 's3rver';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from '../src/server-flags.js';
import { maskUrl, NODE_KEYS } from '../src/config.rules.js';
import { startProxy, type RunningProxy } from './round-robin-proxy.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(process.env.CLUSTER_DIR || join(REPO_ROOT, 'data', 'cluster'));
const PORT = Number(process.env.PORT || 3000);
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/cluster_local';
const BUCKET = 'cluster-local';
// The pair s3rver accepts.
const AWS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
const NODES = ['a', 'b'] as const;

const say = (line: string) => process.stdout.write(`cluster: ${line}\n`);

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}
/** Creates the database when it does not exist (PostgreSQL's 3D000). */
async function ensureDatabase(url: string): Promise<'created' | 'exists'> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`DATABASE_URL must be a PostgreSQL URL (the nodes share it), got "${maskUrl(url)}"`);
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return 'exists';
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await client.end().catch(() => {});
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
  return 'created';
}

/** The node keys: read from keys.env, or generated into it the first time. */
function nodeKeys(): { keys: Record<string, string>; file: string; generated: boolean } {
  const file = join(ROOT, 'keys.env');
  if (existsSync(file)) {
    const keys: Record<string, string> = {};
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m) keys[m[1]] = m[2];
    }
    const missing = NODE_KEYS.filter((k) => !keys[k]);
    if (missing.length) throw new Error(`${file} lacks ${missing.join(', ')}; remove the file to generate new keys (only with a new database and bucket)`);
    return { keys, file, generated: false };
  }
  const keys = Object.fromEntries(NODE_KEYS.map((k) => [k, randomBytes(32).toString('base64url')]));
  writeFileSync(file, `# The node keys of npm run cluster:local: every node has the same (docs/deployment.md).\n${Object.entries(keys).map(([k, v]) => `${k}=${v}`).join('\n')}\n`, { mode: 0o600 });
  return { keys, file, generated: true };
}

interface Node { name: string; url: string; proc: ChildProcess; exited: Promise<number | null> }

/** Starts one node and waits for its /readyz (its output goes to ours, each line prefixed). */
async function startNode(name: string, env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // A process group of its own: a terminal's Ctrl-C reaches this script only, which drains the node with SIGTERM.
  const proc = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'src/server.ts'], {
    cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PORT: String(port), DATA_DIR: join(ROOT, name) },
  });
  for (const stream of [proc.stdout!, proc.stderr!]) createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));
  let gone = false;
  void exited.then(() => { gone = true; });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (gone) throw new Error(`node ${name} exited before it was ready (its output is above)`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`node ${name} not ready after 180 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name, url, proc, exited };
}

const nodes: Node[] = [];
let proxy: RunningProxy | null = null;
let s3: S3rver | null = null;
let stopping: Promise<void> | null = null;

/** Drains the nodes (SIGTERM), then stops the proxy and the S3 server; exits 0 when every node did. */
function stop(): Promise<void> {
  return (stopping ??= (async () => {
    say('stopping: the nodes drain (SIGTERM), the proxy serves until they are out');
    let clean = true;
    await Promise.all(nodes.map(async (n) => {
      if (n.proc.exitCode === null && n.proc.signalCode === null) n.proc.kill('SIGTERM');
      const timer = setTimeout(() => { say(`node ${n.name} did not stop; killing it`); killGroup(n, 'SIGKILL'); }, 60_000);
      const code = await n.exited;
      clearTimeout(timer);
      if (code !== 0) clean = false;
      say(`node ${n.name} stopped (${code})`);
    }));
    await closeParts();
    say('stopped');
    process.exit(clean ? 0 : 1);
  })());
}

/** The proxy and the S3 server, once the nodes are gone. */
async function closeParts() {
  await proxy?.close();
  await s3?.close();
}

function killGroup(n: Node, signal: NodeJS.Signals) {
  try {
    process.kill(-n.proc.pid!, signal);
  } catch {}
}

// Whatever ends this process (an error while starting), the nodes do not outlive it.
process.on('exit', () => { for (const n of nodes) if (n.proc.exitCode === null && n.proc.signalCode === null) killGroup(n, 'SIGKILL'); });
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

async function main() {
  mkdirSync(ROOT, { recursive: true });
  say(`folder ${ROOT}`);
  say(`database ${maskUrl(DATABASE_URL)}: ${await ensureDatabase(DATABASE_URL)}`);
  const { keys, file, generated } = nodeKeys();
  say(`node keys ${generated ? 'generated into' : 'read from'} ${file}`);

  mkdirSync(join(ROOT, 's3'), { recursive: true });
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(ROOT, 's3') });
  const { port: s3Port } = await s3.run();
  const endpoint = `http://127.0.0.1:${s3Port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: AWS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS.AWS_SECRET_ACCESS_KEY } });
  try {
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  } catch (err) {
    if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes((err as Error).name)) throw err;
  } finally {
    client.destroy();
  }
  say(`S3 server at ${endpoint}, bucket ${BUCKET} (files in ${join(ROOT, 's3')})`);

  const publicUrl = `http://127.0.0.1:${PORT}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...SERVER_MALLOC_ENV,
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    ...keys,
    ...AWS,
    DATABASE_URL,
    HOST: '127.0.0.1',
    // Records' links name the proxy: media URLs go through it too.
    PUBLIC_URL: publicUrl,
    // The proxy on loopback names each client in X-Forwarded-For: limits count clients, not the proxy.
    TRUST_PROXY: 'loopback',
    MEDIA_STORAGE: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true', S3_PREFIX: '',
  };
  // One after the other: the first migrates and loads the demo site, the second finds both done.
  for (const name of NODES) {
    if (stopping) return;
    say(`starting node ${name}...`);
    const node = await startNode(name, { ...env, ...(name === 'a' ? {} : { SEED_DEMO: 'false' }) });
    nodes.push(node);
    say(`node ${name} ready at ${node.url} (data folder ${join(ROOT, name)})`);
    void node.exited.then((code) => { if (!stopping) say(`node ${name} exited (${code}); the proxy takes it out`); });
  }

  if (stopping) return;
  proxy = await startProxy({ port: PORT, host: '127.0.0.1', backends: nodes.map((n) => ({ name: n.name, url: n.url })), log: (line) => say(`proxy: ${line}`) });
  const password = join(ROOT, 'a', 'admin-password');
  const admin = process.env.ADMIN_EMAIL || 'admin@example.com';
  let login: string;
  if (process.env.ADMIN_PASSWORD) login = `${admin} with the ADMIN_PASSWORD you set`;
  else if (existsSync(password)) login = process.stdout.isTTY ? `${admin} / ${readFileSync(password, 'utf8').trim()} (kept in ${password})` : `${admin} with the password in ${password}`;
  else login = `${admin} with the password of the site's first start (this database was seeded before)`;
  say([
    `ready: ${proxy.url}/api/2.0 (round robin over ${nodes.map((n) => `${n.name} ${n.url}`).join(', ')}; each answer names its node in X-Served-By)`,
    `  reference: ${proxy.url}/api/2.0/docs`,
    `  log in as ${login}: curl -X POST ${proxy.url}/api/2.0/user/token -d '{"email": "${admin}", "password": "..."}'`,
    '  Ctrl-C stops everything (the nodes drain first).',
  ].join('\n'));
}

try {
  await main();
} catch (err) {
  say(`failed: ${(err as Error).message}`);
  if (!stopping) {
    for (const n of nodes) killGroup(n, 'SIGTERM');
    await Promise.all(nodes.map((n) => n.exited));
    await closeParts();
  }
  process.exit(1);
}
