// On PostgreSQL, Kysely's queries run as named statements (src/db/pg-statements.ts): the
// server keeps each one parsed on the connection and may answer it from a cached plan.
// Checked on the server itself (pg_prepared_statements), through a handle of one
// connection so that every query meets the same session.
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { statementName } from '../../src/db/pg-statements.js';
import { prepared } from '../../src/db/prepared.js';
import { findGuideHead } from '../../src/areas/guides/guides.queries.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/schema.js';

const t = appForFile();
const onPostgres = !!process.env.TEST_DATABASE_URL;

describe.skipIf(!onPostgres)('named statements on PostgreSQL', () => {
  let handle: DatabaseHandle;
  let db: Kysely<Database>;
  beforeAll(() => {
    handle = openDatabase(t.config.databaseUrl, { poolSize: 1 });
    db = handle.db;
  });
  afterAll(async () => handle.destroy());

  const prepared_statements = async () => (await sql<{ name: string; statement: string; runs: number }>`
    select name, statement, generic_plans + custom_plans as runs from pg_prepared_statements`.execute(db)).rows;

  it('runs a parameterized query as one named statement, parsed once and run again and again', async () => {
    const lookup = (id: number) => db.selectFrom('guides').select('guideid').where('guideid', '=', id);
    for (let id = 1; id <= 8; id++) await lookup(id).execute();
    const text = lookup(1).compile().sql;
    const name = statementName(text);
    expect(name).toMatch(/^kysely_\d+$/);
    const rows = (await prepared_statements()).filter((r) => r.statement === text);
    expect(rows).toEqual([{ name, statement: text, runs: 8 }]);
  });

  it('asks PostgreSQL to describe a named statement\'s result once per connection, and reads every later result with those columns and their parsers', async () => {
    await sql`create table described_probe (id integer primary key, a text, n bigint, at double precision)`.execute(db);
    await sql`insert into described_probe values (1, 'one', 10, 1.5), (2, null, null, null)`.execute(db);
    const read = (id: number) => sql<Record<string, unknown>>`select * from described_probe where id = ${id}`.execute(db);
    // pg's Describe message, as the connection sends it (DescribedOnce skips it by shadowing it for a run).
    const describes = vi.spyOn((pg as unknown as { Connection: { prototype: { describe(): void } } }).Connection.prototype, 'describe');
    // pg's Result making its row parsers from a description: once per described columns too.
    const rowMakings = vi.spyOn((pg as unknown as { Result: { prototype: { addFields(fields: unknown[]): void } } }).Result.prototype, 'addFields');
    try {
      expect((await read(1)).rows).toEqual([{ id: 1, a: 'one', n: 10, at: 1.5 }]);
      expect(describes).toHaveBeenCalledTimes(1);
      expect(rowMakings).toHaveBeenCalledTimes(1);
      // Then no Describe: the same columns, their parsers included (bigint as a number, nulls, no row).
      expect((await read(2)).rows).toEqual([{ id: 2, a: null, n: null, at: null }]);
      expect((await read(3)).rows).toEqual([]);
      const first = (await read(1)).rows[0];
      expect(first).toEqual({ id: 1, a: 'one', n: 10, at: 1.5 });
      // Each run's rows are its own, though made from the same empty row.
      first.a = 'changed';
      expect((await read(1)).rows).toEqual([{ id: 1, a: 'one', n: 10, at: 1.5 }]);
      expect(describes).toHaveBeenCalledTimes(1);
      expect(rowMakings).toHaveBeenCalledTimes(1);
      // A prepared lookup (pool.query) the same way.
      const lookup = prepared<{ id: number }, Record<string, unknown>>('described_probe_lookup', (q, arg) =>
        (q as unknown as Kysely<any>).selectFrom('described_probe').select(['id', 'a']).where('id', '=', arg('id')));
      expect(await lookup(db, { id: 1 })).toEqual([{ id: 1, a: 'one' }]);
      expect(await lookup(db, { id: 2 })).toEqual([{ id: 2, a: null }]);
      expect(await lookup(db, { id: 9 })).toEqual([]);
      expect(describes).toHaveBeenCalledTimes(2);
      // A write: its RETURNING row and its count, the second run with the first's columns.
      const updated = await sql<{ id: number }>`update described_probe set a = ${'uno'} where id = ${1} returning id, a`.execute(db);
      expect(updated.rows).toEqual([{ id: 1, a: 'uno' }]);
      const again = await sql<{ id: number }>`update described_probe set a = ${'one'} where id = ${1} returning id, a`.execute(db);
      expect(again.rows).toEqual([{ id: 1, a: 'one' }]);
      expect(Number(again.numAffectedRows)).toBe(1);
      expect(describes).toHaveBeenCalledTimes(3);
      expect(rowMakings).toHaveBeenCalledTimes(3);
    } finally {
      describes.mockRestore();
      rowMakings.mockRestore();
    }
  });

  it('leaves statements without parameters unnamed (begin, commit, a migration\'s DDL)', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('cache_stamps').select('stamp').execute();
    });
    const texts = (await prepared_statements()).map((r) => r.statement);
    expect(texts.some((s) => /cache_stamps|^begin|^commit/i.test(s))).toBe(false);
    expect(statementName('begin')).toBeUndefined();
  });

  it('a query alone whose result changed shape under its named statement runs again unnamed, and is never named again', async () => {
    await sql`create table named_probe (id integer primary key, a text)`.execute(db);
    await sql`insert into named_probe values (1, 'one')`.execute(db);
    const read = () => sql<{ id: number }>`select * from named_probe where id = ${1}`.execute(db);
    expect((await read()).rows).toEqual([{ id: 1, a: 'one' }]);
    const text = sql`select * from named_probe where id = ${1}`.compile(db).sql;
    expect(statementName(text)).toMatch(/^kysely_/);

    // The connection's statement was planned for two columns: PostgreSQL refuses it; the
    // query was alone, so it runs again unnamed and the caller sees the new shape.
    await sql`alter table named_probe add column b text`.execute(db);
    expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: null }]);
    expect(statementName(text)).toBeNull();
    expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: null }]);
  });

  it('inside a transaction the refusal stands: the transaction has failed and wrote nothing', async () => {
    await sql`create table named_probe_tx (id integer primary key, a text)`.execute(db);
    await sql`insert into named_probe_tx values (1, 'one')`.execute(db);
    const read = (q: Kysely<Database>) => sql<{ id: number }>`select * from named_probe_tx where id = ${1}`.execute(q);
    await read(db);
    await sql`alter table named_probe_tx add column b text`.execute(db);
    await expect(db.transaction().execute(async (trx) => {
      await sql`insert into named_probe_tx (id, a) values (${2}, ${'two'})`.execute(trx);
      return read(trx);
    })).rejects.toThrow(/cached plan must not change result type/);
    expect((await sql<{ n: number }>`select count(*)::int as n from named_probe_tx`.execute(db)).rows).toEqual([{ n: 1 }]);
    // The text is unnamed from then on: the same transaction again succeeds.
    const rows = await db.transaction().execute(async (trx) => {
      await sql`insert into named_probe_tx (id, a) values (${2}, ${'two'})`.execute(trx);
      return (await read(trx)).rows;
    });
    expect(rows).toEqual([{ id: 1, a: 'one', b: null }]);
  });

  it('a prepared lookup whose result changed shape runs again unnamed, on a new connection that names it afresh', async () => {
    await sql`create table named_probe_lookup (id integer primary key, a text)`.execute(db);
    await sql`insert into named_probe_lookup values (1, 'one')`.execute(db);
    const lookup = prepared<{ id: number }, Record<string, unknown>>('named_probe_lookup', (q, arg) =>
      (q as unknown as Kysely<any>).selectFrom('named_probe_lookup').selectAll().where('id', '=', arg('id')));
    expect(await lookup(db, { id: 1 })).toEqual([{ id: 1, a: 'one' }]);
    await sql`alter table named_probe_lookup add column b text`.execute(db);
    expect(await lookup(db, { id: 1 })).toEqual([{ id: 1, a: 'one', b: null }]);
    expect(await lookup(db, { id: 1 })).toEqual([{ id: 1, a: 'one', b: null }]);
    // The refusing connection was ended; the one after it prepared the lookup as it now is.
    const held = (await prepared_statements()).filter((r) => r.name === 'named_probe_lookup');
    expect(held.map((r) => r.runs)).toEqual([1]);
  });

  it('PG_PREPARED_STATEMENTS=false (a pooler in transaction mode): nothing is named, the prepared lookups included', async () => {
    expect(loadConfig({ PG_PREPARED_STATEMENTS: 'false' }).pgPreparedStatements).toBe(false);
    expect(loadConfig({}).pgPreparedStatements).toBe(true);
    const plain = openDatabase(t.config.databaseUrl, { poolSize: 1, namedStatements: false });
    try {
      for (let id = 1; id <= 3; id++) {
        await plain.db.selectFrom('guides').select('guideid').where('guideid', '=', id).execute();
        await findGuideHead(plain.db, t.config, id, 'en');
      }
      const names = (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(plain.db)).rows;
      expect(names).toEqual([]);
    } finally {
      await plain.destroy();
    }
  });
});
