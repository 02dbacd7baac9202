// A node with another key refuses to start (src/node-keys.ts, server.ts): real server
// processes on one database (a SQLite file, or a PostgreSQL database of their own). Node A
// starts and records the keys' fingerprints; node B, with a data folder of its own and a
// MEDIA_URL_SECRET of its own, exits 78 naming the setting and nothing else; given A's keys,
// it starts. MEDIA_STORAGE=s3 without the keys exits 78 before the database is touched. A
// node whose keys were generated moves to s3 with the lines `npm run keys:export` prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, login, REPO_ROOT, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { refusedStart } from '../helpers/refused-start.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { testBucket } from '../helpers/s3.js';
import { minimalPdf } from '../helpers/factories/media.js';

const { dir, newDatabase } = scratchDatabases('node-keys');
const KEYS = { MEDIA_URL_SECRET: 'm'.repeat(40), WEBHOOK_SECRETS_KEY: 'w'.repeat(40), AUDIT_CHAIN_KEY: 'a'.repeat(40) };

describe('node keys at a start', () => {
  it('a node with another key refuses to start, naming the setting; with the same keys it starts', async () => {
    const databaseUrl = await newDatabase('keys');
    const servers: ServerProcess[] = [];
    try {
      servers.push(await startServer({ databaseUrl, dataDir: join(dir, 'a'), env: KEYS }));
      const other = await refusedStart({ DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(dir, 'b-')), ...KEYS, MEDIA_URL_SECRET: 'x'.repeat(40) });
      expect(other.code, other.out).toBe(78);
      const lines = other.out.split('\n').filter((l) => l.startsWith('configuration: '));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^configuration: MEDIA_URL_SECRET differs from the key this database has seen/);
      // No key set at all: the keys generated into B's own data folder differ, all three named.
      const generated = await refusedStart({ DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(dir, 'c-')) });
      expect(generated.code, generated.out).toBe(78);
      expect(generated.out.split('\n').filter((l) => l.startsWith('configuration: ')).map((l) => l.split(' ')[1]))
        .toEqual(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']);
      // The same keys, another data folder: a node like A.
      servers.push(await startServer({ databaseUrl, dataDir: mkdtempSync(join(dir, 'd-')), env: { ...KEYS, SEED_DEMO: 'false' } }));
      expect((await fetch(`${servers[1].url}/readyz`)).status).toBe(200);
    } finally {
      await Promise.all(servers.map((s) => s.kill()));
    }
  }, 240_000);

  it('MEDIA_STORAGE=s3 without the node keys: exit 78 naming each, before the database is touched', async () => {
    const res = await refusedStart({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: mkdtempSync(join(dir, 's3-')), MEDIA_STORAGE: 's3', WEBHOOK_SECRETS_KEY: 'short' });
    expect(res.code, res.out).toBe(78);
    const named = res.out.split('\n').filter((l) => l.startsWith('configuration: ')).map((l) => l.split(' ')[1]);
    expect(named).toEqual(expect.arrayContaining(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']));
    expect(res.out).not.toContain('short');
  }, 120_000);
});

describe('a node with generated keys moves to s3 with npm run keys:export', () => {
  it('the exported lines are its keys: the node on s3 starts on the same database and the audit chain verifies', async () => {
    const databaseUrl = await newDatabase('exported');
    const bucket = await testBucket();
    const servers: ServerProcess[] = [];
    try {
      // A single node, no key set: generated into its data folder (the demo site's seeding writes audit entries).
      const dataDir = mkdtempSync(join(dir, 'single-'));
      const single = await startServer({ databaseUrl, dataDir });
      servers.push(single);
      const token = await login(single.url);
      const before = await call(single.url, 'GET', '/audit/verify', token);
      expect(before.body, before.text).toMatchObject({ ok: true });
      expect(before.body.entries).toBeGreaterThan(0);
      await single.stop();

      const exported = spawnSync(process.execPath, ['--import', 'tsx', 'src/keys-export-cli.ts'], {
        cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000,
      });
      expect(exported.status, exported.stderr).toBe(0);
      expect(exported.stderr).toMatch(/secrets/);
      const lines = exported.stdout.trim().split('\n');
      expect(lines.map((l) => l.split('=')[0])).toEqual(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']);
      const keys = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      for (const value of Object.values(keys)) expect(value).toMatch(/^base64url:[\w-]{43}$/);

      // The node on s3, with a data folder of its own: the keys' fingerprints agree, so it starts.
      const s3 = bucket.storage;
      const moved = await startServer({
        databaseUrl, dataDir: mkdtempSync(join(dir, 'moved-')),
        env: { ...keys, MEDIA_STORAGE: 's3', S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
      });
      servers.push(moved);
      const admin = await login(moved.url);
      const after = await call(moved.url, 'GET', '/audit/verify', admin);
      expect(after.body, after.text).toMatchObject({ ok: true });
      expect(after.body.entries).toBeGreaterThanOrEqual(before.body.entries);
      // Its files go to the bucket and come back through a URL it signed.
      const put = await fetch(`${moved.url}/api/2.0/user/media/uploads?file=a.pdf`, { method: 'POST', headers: { authorization: `api ${admin}`, 'content-type': 'application/octet-stream' }, body: minimalPdf() });
      expect(put.status).toBe(200);
      const served = await fetch(((await put.json()) as { document: { url: string } }).document.url);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(minimalPdf())).toBe(true);
      // The AWS SDK's notice about Node 20 (src/storage/s3-store.ts) is not in its output.
      await moved.stop();
      expect(moved.output()).not.toContain('NodeVersionSupportWarning');
    } finally {
      await Promise.all(servers.map((s) => s.kill()));
      await bucket.release();
    }
  }, 240_000);
});
