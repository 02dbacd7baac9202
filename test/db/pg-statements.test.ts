// On PostgreSQL, Kysely's queries run as named statements (src/db/pg-statements.ts): the
// server keeps each one parsed on the connection and may answer it from a cached plan.
// Checked on the server itself (pg_prepared_statements), through a handle of one
// connection so that every query meets the same session.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { statementName } from '../../src/db/pg-statements.js';
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

  const prepared = async () => (await sql<{ name: string; statement: string; runs: number }>`
    select name, statement, generic_plans + custom_plans as runs from pg_prepared_statements`.execute(db)).rows;

  it('runs a parameterized query as one named statement, parsed once and run again and again', async () => {
    const lookup = (id: number) => db.selectFrom('guides').select('guideid').where('guideid', '=', id);
    for (let id = 1; id <= 8; id++) await lookup(id).execute();
    const text = lookup(1).compile().sql;
    const name = statementName(text);
    expect(name).toMatch(/^kysely_\d+$/);
    const rows = (await prepared()).filter((r) => r.statement === text);
    expect(rows).toEqual([{ name, statement: text, runs: 8 }]);
  });

  it('leaves statements without parameters unnamed (begin, commit, a migration\'s DDL)', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('cache_stamps').select('stamp').execute();
    });
    const texts = (await prepared()).map((r) => r.statement);
    expect(texts.some((s) => /cache_stamps|^begin|^commit/i.test(s))).toBe(false);
    expect(statementName('begin')).toBeUndefined();
  });

  it('stops naming a statement whose result changed shape under it, and runs it unnamed from then on', async () => {
    await sql`create table named_probe (id integer primary key, a text)`.execute(db);
    await sql`insert into named_probe values (1, 'one')`.execute(db);
    const read = () => sql<{ id: number }>`select * from named_probe where id = ${1}`.execute(db);
    expect((await read()).rows).toEqual([{ id: 1, a: 'one' }]);
    const text = sql`select * from named_probe where id = ${1}`.compile(db).sql;
    expect(statementName(text)).toMatch(/^kysely_/);

    await sql`alter table named_probe add column b text`.execute(db);
    // The connection's statement was planned for two columns: PostgreSQL refuses it once.
    await expect(read()).rejects.toThrow(/cached plan must not change result type/);
    expect(statementName(text)).toBeNull();
    expect((await read()).rows).toEqual([{ id: 1, a: 'one', b: null }]);
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
