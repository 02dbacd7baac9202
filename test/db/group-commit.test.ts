// On SQLite, writes of concurrent requests made through `groupCommitted` commit together:
// one transaction for the batch, each write in a savepoint, a failing one undone alone
// (db/group-commit.ts). A write given a transaction runs in it at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { groupCommitted } from '../../src/db/group-commit.js';
import type { Database } from '../../src/db/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-group-commit-'));
let handle: DatabaseHandle;
let db: Kysely<Database>;
const begins: string[] = [];

// The server's setting: a worker thread beside the connection, writes taking turns at its gate.
beforeAll(async () => {
  handle = openDatabase(`sqlite:${join(dir, 'site.sqlite')}`, { backgroundCheckpoints: true, scheduledMerges: false });
  db = handle.db;
  await sql`create table notes (id integer primary key, body text not null check (length(body) > 0))`.execute(db);
  handle.setQueryListener!((e) => { if (/^begin/i.test(e.query.sql)) begins.push(e.query.sql); });
});
afterAll(async () => {
  await handle.destroy();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => { begins.length = 0; });

const addNote = groupCommitted(async (d: Kysely<Database>, body: string) =>
  (await sql<{ id: number; body: string }>`insert into notes (body) values (${body}) returning id, body`.execute(d)).rows[0]);
const stored = async (bodies: string[]) => (await sql<{ body: string }>`select body from notes where body in (${sql.join(bodies)}) order by id`.execute(db)).rows.map((r) => r.body);

describe('writes committed together (SQLite)', () => {
  it('answers every caller with its own row, all stored, in one transaction', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => `note ${i}`);
    const rows = await Promise.all(bodies.map((b) => addNote(db, b)));
    expect(rows.map((r) => r.body)).toEqual(bodies);
    expect(new Set(rows.map((r) => r.id)).size).toBe(12);
    expect(await stored(bodies)).toEqual(bodies);
    expect(begins).toHaveLength(1);
  });

  it('a write that fails is undone alone: its caller gets the error, the others commit', async () => {
    const bodies = ['first', '', 'third'];
    const outcomes = await Promise.allSettled(bodies.map((b) => addNote(db, b)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint failed/);
    expect(await stored(bodies)).toEqual(['first', 'third']);
    expect(begins).toHaveLength(1);
  });

  it('a write alone commits alone, and one given a transaction runs in it', async () => {
    expect((await addNote(db, 'alone')).body).toBe('alone');
    expect(begins).toHaveLength(0);
    await db.transaction().execute(async (trx) => {
      await addNote(trx, 'inside');
      throw new Error('roll back');
    }).catch((err: Error) => { if (err.message !== 'roll back') throw err; });
    expect(await stored(['alone', 'inside'])).toEqual(['alone']);
  });

  it('writes asked while a batch commits go in the next batch', async () => {
    const first = Array.from({ length: 5 }, (_, i) => addNote(db, `early ${i}`));
    await Promise.resolve();
    const later = new Promise<Array<{ body: string }>>((resolve) => setImmediate(() => resolve(Promise.all(Array.from({ length: 5 }, (_, i) => addNote(db, `late ${i}`))))));
    const rows = [...await Promise.all(first), ...await later];
    expect(rows.map((r) => r.body)).toEqual([...Array.from({ length: 5 }, (_, i) => `early ${i}`), ...Array.from({ length: 5 }, (_, i) => `late ${i}`)]);
    expect(begins).toHaveLength(2);
  });
});
