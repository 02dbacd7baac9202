// Empty databases for tests that start server processes of their own: a SQLite file in a
// temporary folder, or on PostgreSQL (TEST_DATABASE_URL) a database of its own, all
// removed after the test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { adminQuery, dropDatabase, withDatabase } from './pg.js';

export interface ScratchDatabases {
  /** The temporary folder (SQLite files, and the servers' data folder). */
  dir: string;
  /** A new, empty database's URL. */
  newDatabase(name: string): Promise<string>;
}

export function scratchDatabases(prefix: string): ScratchDatabases {
  const pg = process.env.TEST_DATABASE_URL;
  const dir = mkdtempSync(join(tmpdir(), `cp-${prefix}-`));
  const made: string[] = [];
  afterAll(async () => {
    for (const db of made) await dropDatabase(db).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    async newDatabase(name) {
      if (!pg) return `sqlite:${join(dir, `${name}.sqlite`)}`;
      const db = `cp_${name}_${process.pid}_${randomBytes(3).toString('hex')}`;
      await adminQuery(`CREATE DATABASE ${db}`);
      made.push(db);
      return withDatabase(pg, db);
    },
  };
}
