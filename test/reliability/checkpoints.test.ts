// The server's SQLite connection never checkpoints inside a commit (db/checkpointer.ts):
// the WAL grows past SQLite's automatic threshold (1000 pages) without being copied back,
// until the worker thread's checkpoint, which copies all of it; every write stays readable
// throughout, from this connection and from another one (another server process).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-checkpoints-'));
const file = join(dir, 'site.sqlite');
const handles: DatabaseHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const walPages = () => statSync(`${file}-wal`).size / 4096;

describe('background checkpoints (SQLite)', () => {
  it('commits leave the WAL to the worker thread, which copies all of it without losing a write', async () => {
    const handle = openDatabase(`sqlite:${file}`, { backgroundCheckpoints: true });
    handles.push(handle);
    const db = handle.db as never as import('kysely').Kysely<any>;
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
    // About 1 500 pages of WAL, one transaction per row as requests write them.
    const body = 'x'.repeat(6000);
    for (let i = 0; i < 750; i++) await db.transaction().execute((trx) => trx.insertInto('notes').values({ body }).execute());
    // SQLite alone would have checkpointed (and restarted the log) at 1000 pages.
    expect(walPages()).toBeGreaterThan(1200);

    const result = await handle.checkpoint!();
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThan(1200);
    expect(result.checkpointed).toBe(result.log);

    // Every row is there, through this connection and through a connection of its own.
    expect(Number((await sql<{ n: number }>`select count(*) as n from notes`.execute(db)).rows[0].n)).toBe(750);
    const other = new SQLite(file, { readonly: true });
    try {
      expect((other.prepare('select count(*) as n from notes').get() as { n: number }).n).toBe(750);
    } finally {
      other.close();
    }

    // After a complete checkpoint the next write starts the log again instead of growing it.
    await db.insertInto('notes').values({ body }).execute();
    expect((await handle.checkpoint!()).log).toBeLessThan(20);
  });

  it('the worker\'s own commits (the full-text log\'s replays) do not checkpoint: the database file is written only by its checkpoints', async () => {
    // Checkpoints an hour apart, merges only when asked: nothing writes the file unless a commit checkpoints.
    const siteFile = join(dir, 'replays.sqlite');
    const handle = openDatabase(`sqlite:${siteFile}`, { backgroundCheckpoints: true, scheduledMerges: false, checkpointIntervalMs: 3_600_000 });
    handles.push(handle);
    await migrateToLatest(handle.db);
    await handle.checkpoint!();
    const fileState = () => { const st = statSync(siteFile); return { size: st.size, mtimeMs: st.mtimeMs }; };
    const before = fileState();
    // About 1 500 pages of WAL: documents the index's log holds until the worker replays them.
    const db = handle.db as never as import('kysely').Kysely<any>;
    const body = 'word '.repeat(600);
    for (let i = 1; i <= 600; i++) {
      await db.insertInto('search_docs').values({ kind: 'probe', docid: i, langid: 'en', title: `Probe ${i}`, body }).execute();
    }
    expect(statSync(`${siteFile}-wal`).size / 4096).toBeGreaterThan(1000);
    // Three replays of 256, 256 and 88 documents, each committed by the worker past 1000 pages of WAL.
    for (let i = 0; i < 3; i++) expect((await handle.mergeSearchIndex!()).merged).toBe(true);
    expect(Number((await sql<{ n: number }>`select count(*) as n from search_fts_log`.execute(db)).rows[0].n)).toBe(0);
    expect(fileState()).toEqual(before);
    // Its checkpoint copies all of it.
    const result = await handle.checkpoint!();
    expect(result.checkpointed).toBe(result.log);
    expect(fileState()).not.toEqual(before);
    expect(Number((await sql<{ n: number }>`select count(*) as n from search_fts where search_fts match 'probe'`.execute(db)).rows[0].n)).toBe(600);
  });

  it('is off unless asked for (tools and tests keep SQLite\'s own checkpoints)', async () => {
    const handle = openDatabase(`sqlite:${join(dir, 'tool.sqlite')}`);
    handles.push(handle);
    expect(handle.checkpoint).toBeUndefined();
  });
});
