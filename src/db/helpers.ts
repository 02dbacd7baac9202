// Portable pieces of schema and SQL. Every dialect difference an area needs lives here.
import { sql, type CreateTableBuilder, type Kysely, type ColumnDefinitionBuilder } from 'kysely';
import { PostgresAdapter } from 'kysely';

/** True when the Kysely instance (or transaction) talks to PostgreSQL. */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-incrementing integer primary key named `name`. */
export function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>, name: string) {
  return isPostgres(db)
    ? table.addColumn(name, 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Booleans are stored as 0/1 integers on both databases. */
export const boolColumn = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0);

/** The named columns of a row (a table's column list written once, e.g. `GUIDE_FIELD_COLUMNS`). */
export function pickColumns<R extends object, K extends keyof R>(row: R, columns: readonly K[]): Pick<R, K> {
  return Object.fromEntries(columns.map((c) => [c, row[c]])) as Pick<R, K>;
}

export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const fromBool = (v: boolean | undefined | null): number => (v ? 1 : 0);

/** Case-insensitive prefix match served by an ordinary index on a lower-cased column. */
export function prefixRange(prefix: string): [string, string] {
  const p = prefix.toLowerCase();
  return [p, p + '\uffff'];
}

/** Escapes `%`, `_` and `\` for a LIKE pattern (used with ESCAPE '\'). */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (m) => '\\' + m);
}

/** `column LIKE %s%` case-insensitively, with the escape clause both dialects need. */
export function containsInsensitive(column: string, needle: string) {
  const pattern = '%' + likeEscape(needle.toLowerCase()) + '%';
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** Tables in the current database or schema, for checksums and clean-up. */
export async function listTables(db: Kysely<any>): Promise<string[]> {
  if (isPostgres(db)) {
    const r = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`.execute(db);
    return r.rows.map((x) => x.name);
  }
  const r = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1`.execute(db);
  return r.rows.map((x) => x.name);
}

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * True for a value the database cannot hold: a number out of its range, text it cannot
 * encode, a row too large for an index. Schemas should refuse such input first; this
 * is the net under them, so that it is a 422 and never a 500.
 */
export function isDataRangeError(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return ['22003', '22P02', '22021', '22P05', '22001', '54000', 'SQLITE_MISMATCH', 'SQLITE_TOOBIG', 'SQLITE_RANGE'].includes(e?.code ?? '');
}

/** True for a foreign-key violation on either database. */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * True when the database could not serve in time, which a later try may: no client of the
 * pool within its acquire time (pg-pool's two errors of `connectionTimeoutMillis`: waiting
 * for a client, or connecting a new one), a statement cancelled by `statement_timeout`
 * (57014 says "canceling statement due to statement timeout"; the same code for a
 * cancellation by hand, `pg_cancel_backend`, is not this), or SQLite's lock held by
 * another process past busy_timeout. PostgreSQL words its messages in `lc_messages`: under
 * another language a statement timeout is not recognized and stays a 500.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (typeof e.code === 'string') return e.code.startsWith('SQLITE_BUSY') || (e.code === '57014' && /statement timeout/.test(e.message ?? ''));
  return e instanceof Error && (e.message === 'timeout exceeded when trying to connect' || e.message === 'Connection terminated due to connection timeout');
}

/** True when the database cannot write for want of disk space: PostgreSQL's disk_full (53100), SQLite's SQLITE_FULL. */
export function isDatabaseFull(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === '53100' || code === 'SQLITE_FULL';
}
