// The full-text index's segments are merged by the worker thread, not by the commits that
// write it (db/checkpointer.ts, migration 2026_11_25_0700_search_background_merge): new and
// existing databases have FTS5's automatic merging off; merge steps, driven here one at a
// time (no waiting for the worker's schedule), bring the segments that writes piled up
// back down without losing or resurrecting a document; and a step never makes a write
// wait: while a write transaction is open it gives way at once. On PostgreSQL there is
// no FTS5 index and nothing to merge.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { Migrator, sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { replaySearchLog, searchDocs } from '../../src/db/search.js';
import { prepared } from '../../src/db/prepared.js';
import { appForFile } from '../helpers/app.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-search-merges-'));
const handles: DatabaseHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A migrated SQLite file whose worker merges only when a test asks. */
async function site(name: string): Promise<{ handle: DatabaseHandle; db: Kysely<any> }> {
  const handle = openDatabase(`sqlite:${join(dir, name)}`, { backgroundCheckpoints: true, scheduledMerges: false });
  handles.push(handle);
  await migrateToLatest(handle.db);
  return { handle, db: handle.db as never as Kysely<any> };
}

/** FTS5's persistent settings of search_fts: automerge, usermerge... (undefined: FTS5's default). */
const setting = async (db: Kysely<any>, name: string) =>
  (await sql<{ v: number }>`select v from search_fts_config where k = ${name}`.execute(db)).rows[0]?.v;
const automerge = (db: Kysely<any>) => setting(db, 'automerge');
/** Segments of the index: each has its first leaf (at least) in search_fts_idx. */
const segments = async (db: Kysely<any>) =>
  Number((await sql<{ n: number }>`select count(distinct segid) as n from search_fts_idx`.execute(db)).rows[0].n);
/** The rowids the index finds for `word`, after what its log holds is replayed (as a search does). */
const matching = async (db: Kysely<any>, word: string) => {
  await replaySearchLog(db);
  return (await sql<{ rowid: number }>`select rowid from search_fts where search_fts match ${word} order by rowid`.execute(db)).rows.map((r) => Number(r.rowid));
};
/** Rows of the index's log not replayed yet. */
const logged = async (db: Kysely<any>) => Number((await sql<{ n: number }>`select count(*) as n from search_fts_log`.execute(db)).rows[0].n);

/** Merge steps until one finds nothing left to merge. */
async function mergeAll(handle: DatabaseHandle): Promise<number> {
  for (let steps = 0; steps < 10_000; steps++) {
    const result = await handle.mergeSearchIndex!();
    expect(result.error).toBeUndefined();
    if (!result.merged) return steps;
  }
  throw new Error('merging never ended');
}

/**
 * One row of search_docs per transaction, each replayed from the log into the index at
 * once (as a search between writes would): each replay adds a segment.
 */
async function index(db: Kysely<any>, docids: number[], text: (docid: number) => string): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const docid of docids) {
    await db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('search_docs').values({ kind: 'note', docid, langid: 'en', title: text(docid), body: `body of ${text(docid)}` })
        .returning('id').executeTakeFirstOrThrow();
      ids.set(docid, Number(row.id));
    });
    await replaySearchLog(db);
  }
  return ids;
}

describe('full-text index merges (SQLite)', () => {
  it('a new database merges nothing inside commits: automatic merging is off, merge steps take levels of 8 segments', async () => {
    const { db } = await site('new.sqlite');
    expect(await automerge(db)).toBe(0);
    expect(await setting(db, 'usermerge')).toBe(8);
  });

  it('an existing database gets automatic merging turned off by the migration', async () => {
    const handle = openDatabase(`sqlite:${join(dir, 'existing.sqlite')}`);
    handles.push(handle);
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
    const before = await migrator.migrateTo('2026_11_25_0600_wiki_records');
    expect(before.error).toBeUndefined();
    const db = handle.db as never as Kysely<any>;
    expect(await automerge(db)).toBeUndefined(); // FTS5's default (4): no row
    await migrateToLatest(handle.db);
    expect(await automerge(db)).toBe(0);
    expect(await setting(db, 'usermerge')).toBe(8);
  });

  it('merge steps bring the segments that writes piled up down, and every document is found exactly as written', async () => {
    const { handle, db } = await site('merges.sqlite');
    const base = await segments(db);
    const docids = Array.from({ length: 300 }, (_, i) => i + 1);
    const ids = await index(db, docids, (d) => `mergeword${d} common`);
    // Changed and removed in transactions of their own too.
    for (const d of docids.filter((d) => d % 10 === 0)) {
      await db.transaction().execute((trx) => trx.updateTable('search_docs').set({ title: `renamed${d} common`, body: '' }).where('kind', '=', 'note').where('docid', '=', d).execute());
      await replaySearchLog(db);
    }
    for (const d of docids.filter((d) => d % 7 === 0)) {
      await db.transaction().execute((trx) => trx.deleteFrom('search_docs').where('kind', '=', 'note').where('docid', '=', d).execute());
      await replaySearchLog(db);
    }
    // A few more commits until some level holds `usermerge` (8) segments: level 0 alone
    // reaches it within 16 (at crisismerge, 16, the commit merges it).
    let piledUp = await segments(db);
    for (let extra = 0; !(await handle.mergeSearchIndex!()).merged; extra++) {
      expect(extra).toBeLessThan(16);
      await index(db, [10_000 + extra], (d) => `extra${d}`);
      piledUp = await segments(db);
    }
    expect(piledUp).toBeGreaterThan(base + 8);

    await mergeAll(handle);
    const merged = await segments(db);
    expect(merged).toBeLessThan(piledUp);

    // Exactly what was written last: renamed ones under their new word only, deleted ones nowhere.
    const kept = docids.filter((d) => d % 7 !== 0);
    for (const d of docids) {
      const expected = d % 7 === 0 ? [] : [ids.get(d)!];
      expect(await matching(db, `mergeword${d}`)).toEqual(d % 10 === 0 ? [] : expected);
      if (d % 10 === 0) expect(await matching(db, `renamed${d}`)).toEqual(expected);
    }
    expect(await matching(db, 'common')).toEqual(kept.map((d) => ids.get(d)!).sort((a, b) => a - b));
    expect(await matching(db, 'merge*')).toHaveLength(kept.filter((d) => d % 10 !== 0).length);
    // FTS5's own check of the index against search_docs (rank 1: the external content too).
    await sql`insert into search_fts(search_fts, rank) values ('integrity-check', 1)`.execute(db);

    // With nothing new written, a step finds nothing to do.
    expect(await handle.mergeSearchIndex!()).toEqual({ merged: false, busy: 0 });
  });

  it('a merge step gives way to the server\'s write transaction instead of making it wait', async () => {
    const { handle, db } = await site('gate.sqlite');
    await index(db, Array.from({ length: 40 }, (_, i) => i + 1), (d) => `gateword${d}`);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('search_docs').values({ kind: 'note', docid: 1000, langid: 'en', title: 'inside', body: '' }).execute();
      // The transaction is open (and holds SQLite's write lock): the step does not start.
      expect(await handle.mergeSearchIndex!()).toEqual({ merged: false, busy: 1, writing: true });
      await trx.insertInto('search_docs').values({ kind: 'note', docid: 1001, langid: 'en', title: 'inside again', body: '' }).execute();
    });
    // Once it has committed, the step goes on (merging, or finding nothing due).
    const after = await handle.mergeSearchIndex!();
    expect([after.busy, after.error]).toEqual([0, undefined]);
    expect(await matching(db, 'inside')).toHaveLength(2);
  });

  it('a write outside a transaction passes the gate too, and leaves it open when done or failed', async () => {
    const { handle, db } = await site('single.sqlite');
    await index(db, Array.from({ length: 40 }, (_, i) => i + 1), (d) => `singleword${d}`);
    // Alone (no transaction): a view's insert, a job's claim. It went past the gate before,
    // and waited for a merge step in SQLite's busy handler with the event loop blocked.
    await db.insertInto('search_docs').values({ kind: 'note', docid: 2000, langid: 'en', title: 'single', body: '' }).execute();
    await expect(db.insertInto('search_docs').values({ kind: 'note', docid: 2000, langid: 'en', title: 'duplicate', body: '' }).execute()).rejects.toThrow(/UNIQUE/);
    // A prepared write (a comment's insert is one) takes the same way through the gate,
    // not the direct one of prepared reads.
    const insertNote = prepared<{ docid: number; title: string }, { id: number }>('test_note_insert', (pdb, arg) =>
      pdb.insertInto('search_docs').values({ kind: 'note', docid: arg('docid'), langid: 'en', namespace: '', title: arg('title'), body: '', visible: 1 }).returning('id'));
    expect(await insertNote(db, { docid: 2001, title: 'single prepared' })).toHaveLength(1);
    await expect(insertNote(db, { docid: 2001, title: 'duplicate' })).rejects.toThrow(/UNIQUE/);
    // None of them left the gate closed to the worker.
    const after = await handle.mergeSearchIndex!();
    expect([after.busy, after.error, after.writing]).toEqual([0, undefined, undefined]);
    expect(await matching(db, 'single')).toHaveLength(2);
  });

  it('when another process holds the write lock, a merge step fails busy at once and a later one goes on', async () => {
    const { handle, db } = await site('other.sqlite');
    await index(db, Array.from({ length: 40 }, (_, i) => i + 1), (d) => `otherword${d}`);
    const other = new SQLite(join(dir, 'other.sqlite'));
    try {
      other.exec('begin immediate');
      expect(await handle.mergeSearchIndex!()).toEqual({ merged: false, busy: 1 });
      other.exec('commit');
    } finally {
      other.close();
    }
    const after = await handle.mergeSearchIndex!();
    expect([after.busy, after.error]).toEqual([0, undefined]);
    expect(await matching(db, 'otherword7')).toHaveLength(1);
  });
});

/** The rowids FTS5 holds for `word` as it stands, log not replayed. */
const indexed = async (db: Kysely<any>, word: string) =>
  (await sql<{ rowid: number }>`select rowid from search_fts where search_fts match ${word} order by rowid`.execute(db)).rows.map((r) => Number(r.rowid));
const note = (docid: number, title: string, body = '') => ({ kind: 'wiki', docid, langid: 'en', title, body, target_type: 'wiki', target_id: docid, target_langid: 'en' });

describe('the full-text index\'s log (SQLite)', () => {
  it('a write is logged, not indexed, until the worker replays it; a change of neither title nor body is not logged', async () => {
    const { handle, db } = await site('log.sqlite');
    const ids = await db.transaction().execute(async (trx) => {
      const rows = await trx.insertInto('search_docs').values([note(1, 'Logword one'), note(2, 'Logword two'), note(3, 'Logword three', 'gasket')]).returning('id').execute();
      return rows.map((r) => Number(r.id));
    });
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('search_docs').set({ title: 'Renamedword two' }).where('id', '=', ids[1]).execute();
      await trx.updateTable('search_docs').set({ visible: 0 }).where('id', '=', ids[2]).execute();
      await trx.deleteFrom('search_docs').where('id', '=', ids[0]).execute();
    });
    // Three added, one renamed (its old text out, its new text in), one removed; the visibility change is not there.
    expect(await logged(db)).toBe(6);
    expect(await indexed(db, 'logword')).toEqual([]);

    expect(await handle.mergeSearchIndex!()).toEqual({ merged: true, busy: 0 });
    expect(await logged(db)).toBe(0);
    expect(await indexed(db, 'logword')).toEqual([ids[2]]);
    expect(await indexed(db, 'renamedword')).toEqual([ids[1]]);
    expect(await indexed(db, 'gasket')).toEqual([ids[2]]);
    await sql`insert into search_fts(search_fts, rank) values ('integrity-check', 1)`.execute(db);
  });

  it('the worker replays at most 256 rows a step, in the order they were written', async () => {
    const { handle, db } = await site('batches.sqlite');
    const docids = Array.from({ length: 200 }, (_, i) => i + 1);
    await db.transaction().execute((trx) => trx.insertInto('search_docs').values(docids.map((d) => note(d, `batchword${d}`))).execute());
    // Each renamed twice and then removed, in transactions of their own: their rows straddle the batches.
    for (const d of docids.slice(0, 20)) {
      for (const title of [`firstname${d}`, `secondname${d}`]) {
        await db.updateTable('search_docs').set({ title }).where('kind', '=', 'wiki').where('docid', '=', d).execute();
      }
    }
    await db.deleteFrom('search_docs').where('kind', '=', 'wiki').where('docid', '<=', 5).execute();
    expect(await logged(db)).toBe(200 + 20 * 4 + 5);

    expect((await handle.mergeSearchIndex!()).merged).toBe(true);
    expect(await logged(db)).toBe(285 - 256);
    expect((await handle.mergeSearchIndex!()).merged).toBe(true);
    expect(await logged(db)).toBe(0);
    await sql`insert into search_fts(search_fts, rank) values ('integrity-check', 1)`.execute(db);
    expect(await indexed(db, 'firstname7')).toEqual([]);
    expect(await indexed(db, 'secondname7')).toHaveLength(1);
    expect(await indexed(db, 'secondname3')).toEqual([]);
    expect(await indexed(db, 'batchword*')).toHaveLength(200 - 20);
  });

  it('migrating down replays the log and writes the index at once again; up logs again', async () => {
    const { handle, db } = await site('down.sqlite');
    await db.insertInto('search_docs').values(note(1, 'Downword pending')).execute();
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_11_25_0810_search_titles_stamp');
    expect(down.error).toBeUndefined();
    expect(await indexed(db, 'downword')).toHaveLength(1);
    await db.insertInto('search_docs').values(note(2, 'Downword immediate')).execute();
    expect(await indexed(db, 'immediate')).toHaveLength(1);
    await sql`insert into search_fts(search_fts, rank) values ('integrity-check', 1)`.execute(db);
    await migrateToLatest(handle.db);
    await db.insertInto('search_docs').values(note(3, 'Downword logged')).execute();
    expect(await logged(db)).toBe(1);
    expect(await indexed(db, 'logged')).toEqual([]);
  });

  it('a search finds what was written just before it, replaying the log itself', async () => {
    const { db } = await site('search.sqlite');
    await db.insertInto('search_docs').values(note(1, 'Gearbox manual', 'Torquewrench settings')).execute();
    expect(await logged(db)).toBe(1);
    // A body word: the full-text tiers, which read the index.
    const hits = await searchDocs(db, 'torquewrench', { targets: [{ type: 'wiki' }] }, { offset: 0, limit: 10 });
    expect(hits).toEqual([{ type: 'wiki', id: 1, langid: 'en', tier: 2 }]);
    expect(await logged(db)).toBe(0);
  });
});

describe('the test app\'s database', () => {
  const t = appForFile();
  it('has the full-text index merge in the background on SQLite; PostgreSQL has no FTS5 index', async () => {
    const db = t.db as never as Kysely<any>;
    if (t.dialect === 'sqlite') {
      expect(await automerge(db)).toBe(0);
      return;
    }
    const fts = await sql<{ n: number }>`select count(*) as n from information_schema.tables where table_name like 'search_fts%'`.execute(db);
    expect(Number(fts.rows[0].n)).toBe(0);
    expect(t.app.dbHandle.mergeSearchIndex).toBeUndefined();
  });
});
