// The hot lookups (a guide's row on every read of it, a cache stamp, the approvals switch)
// as prepared statements: built and compiled by Kysely once per database, then run with
// new arguments. Building and compiling a query cost more than running these lookups, and
// on PostgreSQL a named statement is parsed and planned once per connection, not per call.
//
//   const guideHead = prepared('guide_head', (db, arg) =>
//     db.selectFrom('guides').select(['revisionid']).where('guideid', '=', arg('guideid')));
//   const rows = await guideHead(app.db, { guideid: 12 });
//
// Given the database itself, it runs on the direct executor (below). Given a transaction,
// the same compiled text runs through Kysely's executor, inside that transaction: it is
// compiled once per dialect, not once per transaction (a write's statements are the same
// every time, and building and compiling one cost 30 to 110 µs of an edit's 2 ms).
import { CompiledQuery, sql, type Compilable, type Kysely, type LogEvent, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** Runs compiled SQL outside Kysely's executor (database.ts registers one per database). */
export interface DirectExecutor {
  /**
   * The rows of `text` with `values`, or undefined when the statement cannot run directly
   * now (SQLite inside a transaction that another request holds open: Kysely waits for it).
   */
  run(name: string, text: string, values: readonly unknown[]): Promise<unknown[]> | unknown[] | undefined;
  /**
   * SQLite: a value that changes whenever anything may have changed what a read would see
   * (this connection wrote, or another one committed), read without touching a table; or
   * undefined when it cannot tell now (a transaction is open on the connection). Absent on
   * PostgreSQL.
   */
  version?(): string | undefined;
}

const executors = new WeakMap<object, DirectExecutor>();

export function registerDirectExecutor(db: Kysely<Database>, executor: DirectExecutor) {
  executors.set(db, executor);
}

/** The database's change version (DirectExecutor.version), or undefined when it has none or cannot tell now. */
export function changeVersion(db: Kysely<Database>): string | undefined {
  return executors.get(db)?.version?.();
}

const ARG = Symbol('prepared argument');
interface ArgMarker { [ARG]: string }
const isMarker = (v: unknown): v is ArgMarker => typeof v === 'object' && v !== null && ARG in v;

interface Compiled { text: string; slots: Array<{ arg: string } | { value: unknown }>; query: CompiledQuery }

export type Prepared<A, R> = (db: Kysely<Database>, args: A) => Promise<R[]>;

/**
 * A query compiled once per database. `build` receives `arg(name)`, a placeholder for an
 * argument given at each call; everything else in it is fixed. Arguments are single values
 * (an `in` list of varying length is not a prepared statement).
 */
export function prepared<A extends Record<string, unknown>, R>(
  name: string,
  build: (db: Kysely<Database>, arg: <K extends keyof A & string>(key: K) => A[K]) => Compilable<R>,
): Prepared<A, R> {
  // By the dialect's adapter, which a database and each of its transactions share: the
  // text depends only on the dialect (no plugin is used), so a transaction reuses it.
  const compiled = new WeakMap<object, Compiled>();
  const compile = (db: Kysely<Database>): Compiled => {
    const query = build(db, (key) => ({ [ARG]: key }) as never).compile();
    const slots = query.parameters.map((p) => (isMarker(p) ? { arg: p[ARG] } : { value: p }));
    return { text: query.sql, slots, query };
  };
  return async (db, args) => {
    const key = dialectKey(db);
    let c = compiled.get(key);
    if (!c) compiled.set(key, (c = compile(db)));
    const values = c.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    const direct = executors.get(db)?.run(name, c.text, values);
    if (direct !== undefined) return (await direct) as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(c.text, values))).rows;
  };
}

/**
 * PostgreSQL: an array argument of a prepared statement as the planner cannot see it (an
 * InitPlan's value), for `= any(...)`. PostgreSQL plans a named statement anew on each run
 * while the plan made for the run's values costs less than its generic plan, and a custom
 * plan sees the array's length where the generic one guesses ten: a key lookup of a few
 * keys stayed custom forever, planned on every run (0.08 ms of the database's CPU for four
 * guides' heads, against 0.03 ms to run it; `pg_prepared_statements` counts both kinds).
 * Hidden, both plans cost the same, and after five runs the generic plan serves, planned no
 * more.
 */
export function plannedAsAnyArray(value: unknown, type: 'int' | 'text'): RawBuilder<unknown[]> {
  return sql<unknown[]>`((select ${value}::${sql.raw(type)}[]))::${sql.raw(type)}[]`;
}

/** What compiled text is kept by: the adapter of the database's dialect, shared by its transactions (Kysely's executor carries it). */
function dialectKey(db: Kysely<Database>): object {
  return db.getExecutor().adapter;
}

/** A query event for the metrics listener, for statements run outside Kysely. */
export function queryEvent(text: string, values: readonly unknown[], startedAt: number): LogEvent {
  return { level: 'query', query: CompiledQuery.raw(text, [...values]), queryDurationMillis: performance.now() - startedAt };
}
