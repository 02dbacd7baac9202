// Frozen in time: never edit a migration that has landed; add a new one.
// The audit log (docs/audit.md): one hash-chained entry per controlled change, appended at
// the change's commit (db/audit-append.ts). The server never updates or deletes an entry:
// triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL), so that only someone who
// drops them first can, and the chain's hashes then tell. Indexes serve the reads' filters
// newest first (each ends in auditid, the order of the pages).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const REFUSAL = 'audit_log entries are never changed or deleted';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('audit_log')
    // SQLite: the rowid itself (an INTEGER PRIMARY KEY), no index of its own.
    .addColumn('auditid', isPostgres(db) ? 'bigint' : 'integer', (c) => c.primaryKey())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('db_time', 'bigint', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('impersonator_userid', 'integer')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('langid', 'text')
    .addColumn('revisionid_before', 'integer')
    .addColumn('revisionid_after', 'integer')
    .addColumn('meaning', 'text')
    .addColumn('reason', 'text')
    .addColumn('changes', 'text')
    .addColumn('request_id', 'text')
    .addColumn('client_ip', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_resource').on('audit_log').columns(['resource_type', 'resource_id', 'auditid']).execute();
  await db.schema.createIndex('audit_log_user').on('audit_log').columns(['userid', 'auditid']).execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'auditid']).execute();
  await db.schema.createIndex('audit_log_time').on('audit_log').columns(['time', 'auditid']).execute();
  if (isPostgres(db)) {
    await sql.raw(`create function audit_log_refuse() returns trigger language plpgsql as $fn$
begin
  raise exception '${REFUSAL}';
end
$fn$`).execute(db);
    await sql.raw('create trigger audit_log_no_update before update or delete on audit_log for each row execute function audit_log_refuse()').execute(db);
    await sql.raw('create trigger audit_log_no_truncate before truncate on audit_log for each statement execute function audit_log_refuse()').execute(db);
  } else {
    await sql.raw(`create trigger audit_log_no_update before update on audit_log begin select raise(abort, '${REFUSAL}'); end`).execute(db);
    await sql.raw(`create trigger audit_log_no_delete before delete on audit_log begin select raise(abort, '${REFUSAL}'); end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  if (isPostgres(db)) await sql.raw('drop function audit_log_refuse()').execute(db);
}
