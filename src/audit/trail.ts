// A resource's audit entries as documents print them (the work log and approval request
// PDFs): the first `limit` in order, and how many more there are. Served by the index on
// (resource_type, resource_id, auditid).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AuditLogTable } from './audit.tables.js';

export type TrailEntry = Pick<AuditLogTable, 'auditid' | 'time' | 'userid' | 'action' | 'meaning' | 'hash'>;

/** The entries of a resource (under any of `types`, the names it is recorded under), oldest first: the first `limit`, and the count of the rest. */
export async function resourceTrail(db: Kysely<Database>, types: readonly string[], resource_id: number | string, limit: number): Promise<{ entries: TrailEntry[]; more: number }> {
  const of = db.selectFrom('audit_log').where('resource_type', 'in', [...types]).where('resource_id', '=', String(resource_id));
  const entries = (await of.select(['auditid', 'time', 'userid', 'action', 'meaning', 'hash']).orderBy('auditid').limit(limit).execute())
    .map((e) => ({ ...e, auditid: Number(e.auditid), time: Number(e.time) }));
  if (entries.length < limit) return { entries, more: 0 };
  const total = await of.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { entries, more: Number(total.n) - entries.length };
}
