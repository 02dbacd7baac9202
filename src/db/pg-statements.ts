// Kysely's queries on PostgreSQL as named statements: parsed once per connection and,
// after PostgreSQL's first five runs of one, answered from its cached plan instead of
// planned again (plan_cache_mode auto keeps a custom plan where the generic one would
// cost more). Planning a short lookup costs the server more than running it: on 100 000
// guides, 16 writers editing guides made 15 % more edits a second with this, comments
// 7 % more; forcing custom plans on the same named statements gave nothing, so the gain
// is the planning. asyncpg and JDBC drivers prepare this way by default.
//
// Bounded: a text gets a name only if it is at most MAX_TEXT characters with at least one
// and at most MAX_VALUES parameters (statements without any stay on the simple protocol:
// begin, commit, a migration's several statements), and only the first MAX_NAMES texts
// of the process get one; each connection keeps at most those, so the server's memory
// for them is bounded too.
//
// A named statement whose result changes shape (a column added under `select *` by a
// migration while a server runs) is refused by PostgreSQL with "cached plan must not change
// result type", on that connection, every time. Kysely's text is then never named again in
// this process, and the query that met the refusal runs again unnamed when it was alone
// (the connection idle: nothing was done and nothing is aborted). Inside a transaction the
// refusal stands: the transaction has failed, and only its caller can start it over. A
// prepared lookup meets it once per connection (`queryLookup`).
//
// Described once: pg asks the server to describe a query's result (the Describe message, a
// RowDescription back) at every run, named or not. A named statement's columns are those of
// its first run on the connection until PostgreSQL refuses the statement (the refusal
// above), so each connection keeps them from that first Describe and sends none after
// (`DescribedOnce`): 3 to 21 µs less of this process's CPU per query, and the backend's
// from 6 more to 15 less, on every read and write (five alternated pairs of one
// connection's runs in a row: BENCHMARKS.md, run of 2026-11-28 04:15 and 04:22; through
// the app the gain is within the noise).
//
// Their rows' parsers made once too: from the columns pg's Result makes a parser per
// column and an empty row to copy (`addFields`, through a dictionary-mode object) at every
// run. Each kept columns array gets them once, and each later run's Result is given them:
// pg only calls the parsers and copies the empty row. A guide's head through the pool,
// the process's user CPU per lookup: median 40.7 → 31.3 µs (BENCHMARKS.md, run of
// 2026-11-29 17:15).
import pg from 'pg';

const MAX_NAMES = 1000;
const MAX_TEXT = 15_000;
const MAX_VALUES = 32;

/** Each text's statement name; null: never named (its plan went stale). */
const names = new Map<string, string | null>();

function nameFor(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES || text.length > MAX_TEXT) return null;
    names.set(text, (name = `kysely_${names.size}`));
  }
  return name;
}

const isStalePlan = (err: unknown) => (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));

type QueryFn = (...args: unknown[]) => unknown;

/** What a connection gets from pg's Query (its protocol steps; not in pg's types). */
interface ProtocolConnection { describe(msg: unknown): void }
interface QuerySteps { name?: string; prepare(connection: ProtocolConnection): void; handleRowDescription(msg: { fields: unknown[] }): void }
type QueryCallback = (err: Error | undefined, result: pg.QueryResult) => void;
const PgQuery = pg.Query as unknown as new (text: string, values: unknown[], callback?: QueryCallback) => QuerySteps;

/** Each connection's result columns of its named statements, as their first Describe gave them. */
const columnsOf = new WeakMap<ProtocolConnection, Map<string, unknown[]>>();

/** What pg's Result keeps of a row description (`addFields`; not in pg's types). */
interface ResultState { command?: unknown; fields: unknown[]; _parsers?: unknown[]; _prebuiltEmptyResultObject?: object | null }
/** Of each kept columns array: the parsers and the empty row pg's Result made of it the first time. */
const rowMakingOf = new WeakMap<unknown[], { parsers: unknown[]; empty: object }>();

/**
 * A named statement's run that asks the server for the result's columns only the first
 * time on each connection; after that, the columns kept then (the server answers a run
 * whose columns changed with the refusal above, whatever was described).
 */
class DescribedOnce extends PgQuery {
  #connection?: ProtocolConnection;

  // pg's Query copies a config object through its property descriptors (about 2 µs a query
  // in a profile of PostgreSQL's hot guide read); text and values as arguments are not copied.
  constructor({ name, text, values }: { name: string; text: string; values: unknown[] }, callback?: QueryCallback) {
    super(text, values, callback);
    this.name = name;
  }

  override prepare(connection: ProtocolConnection): void {
    this.#connection = connection;
    const fields = this.name === undefined ? undefined : columnsOf.get(connection)?.get(this.name);
    if (!fields) return super.prepare(connection);
    this.#describedAs(fields);
    // pg's own steps (parse when new, bind, execute, sync) without the Describe between them.
    connection.describe = skipDescribe;
    try {
      super.prepare(connection);
    } finally {
      delete (connection as Partial<ProtocolConnection>).describe;
    }
  }

  /**
   * pg's handleRowDescription with the Result's parsers and empty row made once per kept
   * columns (see the header). Where pg's Result does not keep them as it did when this was
   * written (another version of pg), pg's own step every time.
   */
  #describedAs(fields: unknown[]): void {
    const self = this as unknown as { _result?: ResultState; _accumulateRows?: unknown; callback?: unknown; listeners(event: string): unknown[] };
    const made = rowMakingOf.get(fields);
    const result = self._result;
    if (made && result && !result.command && '_parsers' in result && '_prebuiltEmptyResultObject' in result) {
      result.fields = fields;
      result._parsers = made.parsers;
      result._prebuiltEmptyResultObject = made.empty;
      self._accumulateRows = self.callback || !self.listeners('row').length;
      return;
    }
    super.handleRowDescription({ fields });
    this.#keepRowMaking(fields);
  }

  /** What pg's Result made of kept columns, for the runs after (when it is what this expects). */
  #keepRowMaking(fields: unknown[]): void {
    const result = (this as unknown as { _result?: ResultState })._result;
    const parsers = result?._parsers;
    const empty = result?._prebuiltEmptyResultObject;
    if (Array.isArray(parsers) && parsers.length === fields.length && empty && typeof empty === 'object') rowMakingOf.set(fields, { parsers, empty });
  }

  override handleRowDescription(msg: { fields: unknown[] }): void {
    if (this.#connection && this.name !== undefined) {
      let kept = columnsOf.get(this.#connection);
      if (!kept) columnsOf.set(this.#connection, (kept = new Map()));
      kept.set(this.name, msg.fields);
      super.handleRowDescription(msg);
      this.#keepRowMaking(msg.fields);
      return;
    }
    super.handleRowDescription(msg);
  }
}
const skipDescribe = () => {};

/** Runs `config` (a named statement) through `query` (a client's) as DescribedOnce. */
const runNamed = (query: QueryFn, config: { name: string; text: string; values: unknown[] }) => new Promise<pg.QueryResult>((resolve, reject) => {
  query(new DescribedOnce(config, (err, res) => (err ? reject(err) : resolve(res))));
});

/**
 * Makes every client of `pool` run Kysely's parameterized queries (`client.query(text,
 * values)`, as its PostgreSQL driver calls it) as named statements. Other calls (a
 * config object, a callback: pg-pool's own `pool.query`) pass through unchanged.
 */
export function nameStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || values.length > MAX_VALUES) return query(...args);
      const name = nameFor(text);
      if (name === null) return query(text, values);
      return runNamed(query, { name, text, values }).catch((err: unknown) => {
        if (!isStalePlan(err)) throw err;
        names.set(text, null);
        if (client.getTransactionStatus() === 'I') return query(text, values);
        throw err;
      });
    };
  });
}

/**
 * A prepared lookup (prepared.ts) as the named statement `name`, outside any transaction
 * (pool.query). When its plan went stale it runs again unnamed: pool.query ends a client
 * whose query failed, so the refusing connection is gone, and a new one prepares the
 * lookup as it now is.
 */
export async function queryLookup(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
  try {
    return await pool.query(new DescribedOnce({ name, text, values }) as unknown as pg.QueryConfig);
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    return pool.query({ text, values });
  }
}

/** The statement name of `text` in this process, if it has one (tests). */
export function statementName(text: string): string | null | undefined {
  return names.get(text);
}
