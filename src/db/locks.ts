// Locks that serialize whole transactions, the same on both databases.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * Serializes the transactions that take the same key, until each ends (a PostgreSQL
 * advisory transaction lock). SQLite needs none: it has one writer at a time. Call it
 * inside a transaction, before the reads that the decision depends on.
 */
export async function lockForTransaction(db: Kysely<any>, key: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(db);
}
