// One Kysely instance, its dialect chosen by DATABASE_URL. Areas never look at the
// dialect: the differences live in this folder (see helpers.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, PostgresDriver, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type LogEvent, type PostgresDialectConfig, type SqliteDatabase, type SqliteDialectConfig } from 'kysely';
import type { Database } from './schema.js';
import type { Config } from '../config.js';
import { queryEvent, registerDirectExecutor } from './prepared.js';
import { nameStatements, queryLookup } from './pg-statements.js';
import { walHeaderReader } from './wal-header.js';
import { appendQueuedAudit, dropAuditQueue, type AuditChainKeyHolder } from './audit-append.js';
import { startCheckpointer, type CheckpointResult, type MergeResult, type WriteGate } from './checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** For SQLite, the file (or `:memory:`); for PostgreSQL, the URL. */
  location: string;
  destroy(): Promise<void>;
  /** Receives every query's timing (metrics); one listener at a time. */
  setQueryListener?(fn: ((event: LogEvent) => void) | null): void;
  /** SQLite with background checkpoints: one now (checkpointer.ts). */
  checkpoint?(): Promise<CheckpointResult>;
  /** SQLite with background checkpoints: one merge step of the full-text index now (checkpointer.ts). */
  mergeSearchIndex?(): Promise<MergeResult>;
  /**
   * The database for work outside requests (migrations at start, the demo seed, jobs,
   * the stamps' upkeep): on PostgreSQL with a statement timeout, a pool of its own whose
   * statements have none; otherwise `db` itself.
   */
  longWorkDb: Kysely<Database>;
  /** PostgreSQL: the request pool's clients (all, idle) and the callers waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** The key the audit log's appends are hashed with (audit-append.ts), set by the app (audit/key.ts). */
  setAuditChainKey(key: Buffer): void;
}

export interface DatabaseOptions {
  /** Called with every query's duration, for metrics. */
  onQuery?: (event: LogEvent) => void;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * PostgreSQL: longest a caller waits for a client of the pool, in ms (pg-pool's
   * `connectionTimeoutMillis`; it also bounds connecting a new client); then the caller
   * gets `isDatabaseBusy`'s error (db/helpers.ts). 0 or absent: no limit (tools).
   */
  acquireTimeoutMs?: number;
  /**
   * PostgreSQL: each statement of `db` is cancelled by the server after this many ms
   * (`statement_timeout`, sent when each client connects); `longWorkDb` then gets a pool of
   * its own without it. 0 or absent: no limit (tools). SQLite cannot interrupt a statement
   * (better-sqlite3 is synchronous): ignored there.
   */
  statementTimeoutMs?: number;
  /** SQLite: how long a statement waits for another process's lock (busy_timeout), in ms; default 10 000. */
  busyTimeoutMs?: number;
  /** PostgreSQL: queries as named statements (pg-statements.ts, and prepared.ts's lookups); default true. */
  namedStatements?: boolean;
  /** SQLite file: WAL checkpoints in a worker thread instead of inside commits (the server). */
  backgroundCheckpoints?: boolean;
  /** With background checkpoints: the worker also merges the full-text index on its own schedule (default); off, only `mergeSearchIndex()` does (tests). */
  scheduledMerges?: boolean;
  /** With background checkpoints: milliseconds between the worker's checkpoints (default 1000; tests that watch the file set it longer). */
  checkpointIntervalMs?: number;
}

/** The bounds of the requests' database from the settings (DB_ACQUIRE_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS). */
export function requestBounds(config: Pick<Config, 'dbAcquireTimeoutMs' | 'dbStatementTimeoutMs'>): Pick<DatabaseOptions, 'acquireTimeoutMs' | 'statementTimeoutMs'> {
  return { acquireTimeoutMs: config.dbAcquireTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs };
}

// PostgreSQL sends bigint (20) and numeric (1700) as strings; our ids, counts and
// timestamps all fit in a double, so read them as numbers.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

export function sqlitePath(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '') || ':memory:';
}

/** Statements that write (or may: a `with` may end in one): they take SQLite's write lock. */
const WRITES = /^\s*(insert|update|delete|replace|with|create|drop|alter)\b/i;

/**
 * Transactions on SQLite start with BEGIN IMMEDIATE: they take the write lock up front,
 * waiting (busy_timeout) while another process holds it. A deferred BEGIN would read
 * first and then fail at its first write with SQLITE_BUSY(_SNAPSHOT), without waiting,
 * when another process wrote in between: a 500 for a client under concurrent writes.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #gate: WriteGate | undefined;
  readonly #inTransaction: () => boolean;
  readonly #audit: AuditChainKeyHolder;
  /** A write transaction is open and counted at the gate (there is one connection). */
  #writing = false;
  constructor(config: SqliteDialectConfig, gate: WriteGate | undefined, inTransaction: () => boolean, audit: AuditChainKeyHolder) {
    super(config);
    this.#gate = gate;
    this.#inTransaction = inTransaction;
    this.#audit = audit;
  }
  #gated: DatabaseConnection | undefined;
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!this.#gate) return connection;
    return (this.#gated ??= this.#gatedConnection(connection));
  }
  /**
   * The one connection, with a write outside a transaction (a view's insert, a job's claim)
   * passing the gate too: alone, it would wait for the worker's merge step in SQLite's
   * busy handler, with the event loop blocked for as long as the step runs.
   */
  #gatedConnection(connection: DatabaseConnection): DatabaseConnection {
    const gate = this.#gate!;
    return {
      executeQuery: async (query) => {
        if (this.#writing || !WRITES.test(query.sql)) return connection.executeQuery(query);
        await gate.beginWrite();
        try {
          return await connection.executeQuery(query);
        } finally {
          gate.endWrite();
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // With background merges (checkpointer.ts), after the worker's merge step under way.
    if (this.#gate) {
      await this.#gate.beginWrite();
      this.#writing = true;
    }
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (err) {
      this.#endWrite();
      throw err;
    }
  }
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // The audit entries the transaction queued, as its last step (the write lock is held).
    // A failed append or COMMIT is followed by Kysely's ROLLBACK, which ends the write.
    await appendQueuedAudit(connection, 'sqlite', this.#audit);
    await super.commitTransaction(connection);
    this.#endWrite();
  }
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    dropAuditQueue(connection);
    try {
      // SQLite may have rolled the transaction back itself (SQLITE_FULL, a disk full at a
      // commit): a ROLLBACK would fail, and its error would hide the one that tells why.
      if (this.#inTransaction()) await super.rollbackTransaction(connection);
    } finally {
      this.#endWrite();
    }
  }
  #endWrite(): void {
    if (!this.#writing) return;
    this.#writing = false;
    this.#gate!.endWrite();
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #gate: WriteGate | undefined;
  readonly #inTransaction: () => boolean;
  readonly #audit: AuditChainKeyHolder;
  constructor(config: SqliteDialectConfig, gate: WriteGate | undefined, inTransaction: () => boolean, audit: AuditChainKeyHolder) {
    super(config);
    this.#config = config;
    this.#gate = gate;
    this.#inTransaction = inTransaction;
    this.#audit = audit;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#gate, this.#inTransaction, this.#audit);
  }
}

/** PostgreSQL, with the audit entries a transaction queued appended before its COMMIT (audit-append.ts). */
class AuditedPostgresDriver extends PostgresDriver {
  readonly #audit: AuditChainKeyHolder;
  constructor(config: PostgresDialectConfig, audit: AuditChainKeyHolder) {
    super(config);
    this.#audit = audit;
  }
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await appendQueuedAudit(connection, 'postgres', this.#audit);
    await super.commitTransaction(connection);
  }
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    dropAuditQueue(connection);
    await super.rollbackTransaction(connection);
  }
}

class AuditedPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  readonly #audit: AuditChainKeyHolder;
  constructor(config: PostgresDialectConfig, audit: AuditChainKeyHolder) {
    super(config);
    this.#config = config;
    this.#audit = audit;
  }
  override createDriver(): Driver {
    return new AuditedPostgresDriver(this.#config, this.#audit);
  }
}

/** PostgreSQL: clients of the pool for work outside requests (`longWorkDb`), when it has its own. */
const LONG_WORK_POOL_SIZE = 4;

/** SQLite's page cache per connection, in KB (its memory counts in the server's: docs/ARCHITECTURE.md, "Memory"). */
export const SQLITE_CACHE_KB = 8 * 1024;

/**
 * better-sqlite3 with its prepared statements kept (an LRU of 500 by SQL text): Kysely
 * prepares every query anew, and preparing cost more than running the small queries of
 * a read. A statement still iterating (a streamed query) is never handed out twice.
 */
function withStatementCache(sqlite: SQLite.Database, onWrite: () => void, max = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  // Every statement is prepared here right before it runs (Kysely's driver and the direct
  // executor both), so a statement that may write is counted as it runs.
  const counted = (stmt: SQLite.Statement) => {
    if (!stmt.readonly) onWrite();
    return stmt;
  };
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const hit = cache.get(text);
      if (hit && !hit.busy) {
        cache.delete(text);
        cache.set(text, hit);
        return counted(hit);
      }
      const stmt = sqlite.prepare(text);
      if (!hit) {
        cache.set(text, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value!);
      }
      return counted(stmt);
    },
  };
}

export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  let listener = options.onQuery ?? null;
  const log = (event: LogEvent) => listener?.(event);
  const setQueryListener = (fn: ((event: LogEvent) => void) | null) => { listener = fn; };
  const audit: AuditChainKeyHolder = {};
  const setAuditChainKey = (key: Buffer) => { audit.key = key; };
  if (dialectOf(url) === 'postgres') {
    const named = options.namedStatements ?? true;
    const postgres = (config: pg.PoolConfig) => {
      const pool = new pg.Pool({ connectionString: url, ...config });
      // An idle client's error (the server restarting) must not crash the process.
      pool.on('error', () => {});
      if (named) nameStatements(pool);
      const db = new Kysely<Database>({ dialect: new AuditedPostgresDialect({ pool }, audit), log });
      // Prepared lookups (prepared.ts) as named statements: parsed and planned once per connection.
      registerDirectExecutor(db, {
        run: async (name, text, values) => {
          const started = performance.now();
          const result = named ? await queryLookup(pool, name, text, values as unknown[]) : await pool.query({ text, values: values as unknown[] });
          if (listener) log(queryEvent(text, values, started));
          return result.rows;
        },
      });
      return { pool, db };
    };
    // The requests' pool: a caller waits at most acquireTimeoutMs for a client, and the
    // server cancels any statement past statementTimeoutMs (a per-connection default,
    // sent at connect: nothing is sent per query).
    const requests = postgres({
      max: options.poolSize ?? 10,
      ...(options.acquireTimeoutMs ? { connectionTimeoutMillis: options.acquireTimeoutMs } : {}),
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    });
    // Work outside requests waits and runs as long as it must: a few clients (jobs run a
    // few at a time: JOB_*_CONCURRENCY), connected when first used.
    const longWork = options.statementTimeoutMs ? postgres({ max: LONG_WORK_POOL_SIZE }) : requests;
    const destroy = async () => {
      await requests.db.destroy();
      if (longWork !== requests) await longWork.db.destroy();
    };
    const { pool } = requests;
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db: requests.db, longWorkDb: longWork.db, dialect: 'postgres', location: url, destroy, setQueryListener, poolStats, setAuditChainKey };
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // An 8 MB page cache (SQLite's default is 2 MB): the pages of the guides read often stay
  // in memory instead of being read from the file on every lookup. 8 MB hold the guide
  // rows of a hot set of 2 000 guides (whose heads are kept in JS besides: guides.queries.ts);
  // 32 MB (until 2026-11-24) and 16 MB (until 2026-11-28) only added to the server's peak
  // memory, the cold reads filling them (the file's pages stay in the system's cache anyway).
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KB}`);
  // Several server processes (or a benchmark seeding beside a server) may share a file.
  // Past the wait, SQLITE_BUSY: a request answers 503 (http/errors.ts). The wait blocks the
  // event loop (better-sqlite3 is synchronous).
  sqlite.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 10_000)}`);
  const checkpointer = options.backgroundCheckpoints && file !== ':memory:' ? startCheckpointer(file, { mergeInBackground: options.scheduledMerges ?? true, intervalMs: options.checkpointIntervalMs }) : undefined;
  if (checkpointer) sqlite.pragma('wal_autocheckpoint = 0');
  // The change version (DirectExecutor.version): the statements this connection ran that
  // may write (counted as they run, whether they changed a row or were rolled back) and
  // the WAL index's header, which every commit of any connection rewrites (the worker,
  // another server process, a tool): read from the -shm file without a statement
  // (wal-header.ts). Where it cannot be read, `data_version`, which moves when another
  // connection commits: it reads no table, but begins a read transaction.
  let writes = 0;
  const statements = withStatementCache(sqlite, () => { writes++; });
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const walHeader = file === ':memory:' ? undefined : walHeaderReader(file);
  const otherCommits = (): string | undefined => {
    const header = walHeader ? walHeader.read() : null;
    return header === null ? `v${dataVersion.get() as number}` : header;
  };
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: statements }, checkpointer, () => sqlite.inTransaction, audit), log });
  // Prepared lookups (prepared.ts) run synchronously on the one connection, unless a
  // transaction is open on it (a request awaiting between its statements): then they
  // wait for it through Kysely, so that no read ever sees a write not yet committed.
  // A prepared write (a comment's insert) with the worker beside it goes through Kysely's
  // connection too, which takes its turn at the gate: run here, it would wait for the
  // worker's step in SQLite's busy handler, with the event loop blocked.
  registerDirectExecutor(db, {
    run: (_name, text, values) => {
      if (sqlite.inTransaction || (checkpointer && WRITES.test(text))) return undefined;
      const started = performance.now();
      const rows = (statements.prepare(text) as SQLite.Statement).all(...values);
      if (listener) log(queryEvent(text, values, started));
      return rows;
    },
    version: () => {
      if (sqlite.inTransaction) return undefined;
      const commits = otherCommits();
      return commits === undefined ? undefined : `${writes}:${commits}`;
    },
  });
  const destroy = async () => {
    await checkpointer?.stop();
    await db.destroy();
    walHeader?.close();
  };
  return { db, longWorkDb: db, dialect: 'sqlite', location: file, destroy, setQueryListener, checkpoint: checkpointer?.now, mergeSearchIndex: checkpointer?.mergeStep, setAuditChainKey };
}
