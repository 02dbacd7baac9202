// The audit log's appender (docs/audit.md, docs/ARCHITECTURE.md "The audit log"). Change
// functions queue their entries in their transaction (`queueAuditEntry`, through
// audit/audit.ts `audit()`); the queue is appended as the transaction's last step, in the
// driver's commit (database.ts), under a lock held until the commit: PostgreSQL's
// pg_advisory_xact_lock, SQLite's single writer (BEGIN IMMEDIATE). There each entry gets
// its auditid (the head's + 1: gapless, in commit order), prev_hash and hash. A rollback
// drops the queue; a savepoint rolled back drops what was queued since (group-commit.ts).
import { CompiledQuery, type DatabaseConnection, type Kysely } from 'kysely';
import { entryHash, GENESIS_HASH, CHAINED_COLUMNS, type ChainedEntry } from '../audit/chain.js';
import type { Dialect } from './database.js';

/** An entry as a change queues it: everything but what the append assigns. */
export type QueuedAuditEntry = Omit<ChainedEntry, 'auditid' | 'db_time' | 'prev_hash'>;

/** The key of the advisory lock that orders the appends of every process (PostgreSQL). */
const CHAIN_LOCK = 0x61756469; // "audi"

const queues = new WeakMap<DatabaseConnection, QueuedAuditEntry[]>();

/** The chain's key, set once the server knows it (app.ts); appending without one fails. */
export interface AuditChainKeyHolder { key?: Buffer }

/** The connection a transaction runs on (its executor provides only that one). */
function connectionOf(trx: Kysely<any>): Promise<DatabaseConnection> {
  return trx.getExecutor().provideConnection(async (connection) => connection);
}

/** Queues `entry` in the transaction `trx`; appended at its commit. */
export async function queueAuditEntry(trx: Kysely<any>, entry: QueuedAuditEntry): Promise<void> {
  if (!trx.isTransaction) throw new Error('an audit entry is written in the transaction of its change: call audit() with the transaction');
  const connection = await connectionOf(trx);
  const queue = queues.get(connection);
  if (queue) queue.push(entry);
  else queues.set(connection, [entry]);
}

/** The queue's length now: what a savepoint rolled back to must return to. */
export async function auditQueueMark(trx: Kysely<any>): Promise<number> {
  return queues.get(await connectionOf(trx))?.length ?? 0;
}

/** Drops what was queued since `mark` (a savepoint rolled back). */
export async function rollbackAuditQueue(trx: Kysely<any>, mark: number): Promise<void> {
  const queue = queues.get(await connectionOf(trx));
  if (queue) queue.length = Math.min(queue.length, mark);
}

/** The transaction on `connection` ended without a commit: its entries go. */
export function dropAuditQueue(connection: DatabaseConnection): void {
  queues.delete(connection);
}

const INSERT_COLUMNS = [...CHAINED_COLUMNS, 'hash'] as const;

/**
 * Appends the entries queued on `connection`, as the transaction's last statements before
 * its COMMIT. Throws (and the caller's rollback follows) when it cannot.
 */
export async function appendQueuedAudit(connection: DatabaseConnection, dialect: Dialect, holder: AuditChainKeyHolder): Promise<void> {
  const queue = queues.get(connection);
  if (!queue) return;
  queues.delete(connection);
  if (queue.length === 0) return;
  const key = holder.key;
  if (!key) throw new Error('audit entries queued, but the audit chain key is not set (DatabaseHandle.setAuditChainKey)');
  const postgres = dialect === 'postgres';
  // Held until the commit: the head read next stays the head until this transaction's
  // entries are committed after it. (SQLite: the transaction holds the write lock already.)
  if (postgres) await connection.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${CHAIN_LOCK})`));
  const now = postgres ? 'floor(extract(epoch from clock_timestamp()))::bigint' : "cast(strftime('%s', 'now') as integer)";
  const head = await connection.executeQuery<{ db_time: number; auditid: number | null; hash: string | null }>(CompiledQuery.raw(
    `select ${now} as db_time, h.auditid, h.hash from (select 1 as one) x left join (select auditid, hash from audit_log order by auditid desc limit 1) h on true`));
  const { db_time } = head.rows[0];
  let auditid = Number(head.rows[0].auditid ?? 0);
  let prev_hash = head.rows[0].hash ?? GENESIS_HASH;
  const values: unknown[] = [];
  const tuples: string[] = [];
  for (const queued of queue) {
    auditid++;
    const entry: ChainedEntry = { ...queued, auditid, db_time: Number(db_time), prev_hash };
    const hash = entryHash(key, entry);
    const row = { ...entry, hash };
    const marks = INSERT_COLUMNS.map((c) => {
      values.push(row[c] ?? null);
      return postgres ? `$${values.length}` : '?';
    });
    tuples.push(`(${marks.join(', ')})`);
    prev_hash = hash;
  }
  await connection.executeQuery(CompiledQuery.raw(`insert into audit_log (${INSERT_COLUMNS.join(', ')}) values ${tuples.join(', ')}`, values));
}
