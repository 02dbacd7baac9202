// A node with another key refuses to start (src/node-keys.ts, server.ts): real server
// processes on one database (a SQLite file, or a PostgreSQL database of their own). Node A
// starts and records the keys' fingerprints; node B, with a data folder of its own and a
// MEDIA_URL_SECRET of its own, exits 78 naming the setting and nothing else; given A's keys,
// it starts. MEDIA_STORAGE=s3 without the keys exits 78 before the database is touched.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { refusedStart } from '../helpers/refused-start.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';

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
