// Frozen in time: never edit a migration that has landed; add a new one.
// Rate limits counted in the database, so that every server process and every node on the
// database enforces one limit (http/rate-limits.ts, http/login-attempts.ts):
//   - rate_limit_counts: one row per counted key (a client address, per route or for the
//     login routes): the start of its current window, the attempts in it, and when the
//     window ends (rows whose window ended are pruned).
//   - rate_limit_accounts: one row per account with failed passwords in a row: how many,
//     the last one's time, and until when the attempt let through last holds the next back.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('rate_limit_counts')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_counts_expires').on('rate_limit_counts').column('expires_at').execute();
  await db.schema.createTable('rate_limit_accounts')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failed', 'bigint', (c) => c.notNull())
    .addColumn('held_until_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_accounts_last').on('rate_limit_accounts').column('last_failed').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_accounts').ifExists().execute();
  await db.schema.dropTable('rate_limit_counts').ifExists().execute();
}
