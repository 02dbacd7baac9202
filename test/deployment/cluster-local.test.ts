// `npm run cluster:local` (scripts/cluster-local.ts) as a child process: on a PostgreSQL
// database that does not exist yet (the script creates it), a folder of its own and a free
// port, with only the environment given here. Once the proxy answers, requests through it
// land on both nodes (X-Served-By, and the nodes' own X-Request-Id prefixes); a login and an
// image upload go through it and the image's URL (the proxy's) serves it; SIGTERM stops it
// all, the nodes drained, exit 0.
// PostgreSQL only: the script runs the nodes on PostgreSQL (the SQLite run skips it).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../../bench/lib/server-process.js';
import { dropDatabase, withDatabase } from '../helpers/pg.js';
import { childrenOf } from '../helpers/processes.js';
import { solid } from '../helpers/factories/media.js';

const pgUrl = process.env.TEST_DATABASE_URL;
const PASSWORD = 'cluster local test password';

if (!pgUrl) console.warn('SKIPPED (needs PostgreSQL: TEST_DATABASE_URL): npm run cluster:local (test/deployment/cluster-local.test.ts)');

describe.skipIf(!pgUrl)('npm run cluster:local', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cp-cluster-local-'));
  const dbName = `cp_cluster_${process.pid}_${randomBytes(3).toString('hex')}`;
  afterAll(async () => {
    await dropDatabase(dbName).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts two nodes, the S3 server and the proxy; requests land on both nodes; SIGTERM stops it all', async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster-local.ts'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
        DATABASE_URL: withDatabase(pgUrl!, dbName), PORT: String(port), CLUSTER_DIR: dir,
        ADMIN_PASSWORD: PASSWORD, PASSWORD_HASH_COST: '4', SHUTDOWN_DRAIN_MS: '1000', LOG_LEVEL: 'warn',
      },
    });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    let code: number | null | undefined;
    void exited.then((c) => { code = c; });
    const base = `http://127.0.0.1:${port}`;
    try {
      // Ready when the script says so (the proxy listens only once both nodes are ready).
      const deadline = Date.now() + 240_000;
      while (!out.includes('cluster: ready:')) {
        if (code !== undefined) throw new Error(`cluster:local exited (${code}) before it was ready:\n${out}`);
        if (Date.now() > deadline) throw new Error(`cluster:local not ready after 240 s:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(out).toContain('database ');
      expect(out).toMatch(/database .*: created/);
      expect(out).toContain(`log in as admin@example.com with the ADMIN_PASSWORD you set`);
      // The keys, generated once, readable by the owner only.
      const keys = readFileSync(join(dir, 'keys.env'), 'utf8');
      expect(keys).toMatch(/^MEDIA_URL_SECRET=[\w-]{43}$/m);
      expect(keys).toMatch(/^WEBHOOK_SECRETS_KEY=[\w-]{43}$/m);
      expect(keys).toMatch(/^AUDIT_CHAIN_KEY=[\w-]{43}$/m);
      expect(statSync(join(dir, 'keys.env')).mode & 0o077).toBe(0);

      const login = await fetch(`${base}/api/2.0/user/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }) });
      expect(login.status).toBe(201);
      const token = ((await login.json()) as { authToken: string }).authToken;
      // Round robin: four reads, two per node; each node's request ids share a prefix of their own.
      const served = new Map<string, Set<string>>();
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${base}/api/2.0/user`, { headers: { authorization: `api ${token}` } });
        expect(res.status).toBe(200);
        const node = res.headers.get('x-served-by')!;
        if (!served.has(node)) served.set(node, new Set());
        served.get(node)!.add(res.headers.get('x-request-id')!.slice(0, 24));
      }
      expect([...served.keys()].sort()).toEqual(['a', 'b']);
      expect(served.get('a')!.size).toBe(1);
      expect(served.get('b')!.size).toBe(1);
      expect([...served.get('a')!][0]).not.toBe([...served.get('b')!][0]);

      // An upload through the proxy lands in the bucket; its URL is the proxy's and serves it.
      const up = await fetch(`${base}/api/2.0/user/media/uploads?file=tile.png`, { method: 'POST', headers: { authorization: `api ${token}`, 'content-type': 'application/octet-stream' }, body: new Uint8Array(await solid(64, 48, { r: 10, g: 200, b: 10 }, 'png')) });
      expect(up.status).toBe(200);
      const original = ((await up.json()) as { image: { image: Record<string, string> } }).image.image.original;
      expect(original.startsWith(`${base}/files/images/`)).toBe(true);
      for (let i = 0; i < 2; i++) {
        const file = await fetch(original);
        expect(file.status).toBe(200);
        expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width).toBe(64);
      }

      // The script's children that are nodes (tsx's esbuild service is another child).
      const nodes = childrenOf(proc.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('src/server.ts'));
      expect(nodes).toHaveLength(2);
      proc.kill('SIGTERM');
      expect(await exited, out).toBe(0);
      expect(out).toContain('cluster: node a stopped (0)');
      expect(out).toContain('cluster: node b stopped (0)');
      expect(out).toContain('cluster: stopped');
      for (const pid of nodes) expect(() => process.kill(pid, 0), `node process ${pid} still runs`).toThrow();
    } finally {
      if (code === undefined) {
        // The nodes run in process groups of their own: they go too.
        for (const pid of childrenOf(proc.pid!)) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {}
        }
        proc.kill('SIGKILL');
        await exited;
      }
    }
  }, 300_000);
});
