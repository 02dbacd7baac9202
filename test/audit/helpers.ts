// Reading the audit log in tests: the entries in order, as the table holds them.
import type { TestApp } from '../helpers/app.js';

export async function auditEntries(t: TestApp, filter: { action?: string; resource_type?: string; resource_id?: string | number } = {}) {
  let q = t.db.selectFrom('audit_log').selectAll().orderBy('auditid');
  if (filter.action) q = q.where('action', '=', filter.action);
  if (filter.resource_type) q = q.where('resource_type', '=', filter.resource_type);
  if (filter.resource_id !== undefined) q = q.where('resource_id', '=', String(filter.resource_id));
  return q.execute();
}

export async function auditCount(t: TestApp): Promise<number> {
  const row = await t.db.selectFrom('audit_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
