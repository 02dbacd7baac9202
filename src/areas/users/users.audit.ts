// What the audit log records of an account's change (docs/audit.md): one entry per kind
// of controlled change a PATCH makes (privileges, enabled, banned, e-mail, the SSO and employee ids, password), each
// naming its fields; profile texts (name, about, location, avatar) are not controlled.
// Never a password or its hash: a password change is named, without values.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { audit, changesOf } from '../../audit/audit.js';
import type { AuditAction } from '../../audit/actions.js';
import type { UserRow } from './users.queries.js';

type Kind = { action: (row: UserRow, set: Record<string, unknown>) => AuditAction; fields: readonly string[] };

const KINDS: readonly Kind[] = [
  { action: () => 'user.privileges_changed', fields: ['privileges', 'permissions'] },
  { action: (_row, set) => (set.enabled ? 'user.enabled' : 'user.disabled'), fields: ['enabled'] },
  { action: (_row, set) => (Number(set.banned) > 0 ? 'user.banned' : 'user.unbanned'), fields: ['banned'] },
  { action: () => 'user.email_changed', fields: ['email'] },
  { action: () => 'user.identifiers_changed', fields: ['sso_userid', 'employee_id'] },
];

/** Records the controlled changes of `set` (the columns a PATCH writes) to `row`, in the PATCH's transaction. */
export async function auditUserChanges(trx: Kysely<Database>, actor: AuthUser, now: number, row: UserRow, set: Record<string, unknown>, passwordChanged: boolean): Promise<void> {
  const before = row as unknown as Record<string, unknown>;
  for (const kind of KINDS) {
    const after = Object.fromEntries(kind.fields.filter((f) => set[f] !== undefined).map((f) => [f, set[f]]));
    const changes = changesOf(before, after);
    if (changes) await audit(trx, { action: kind.action(row, set), actor, time: now, resource_type: 'user', resource_id: row.userid, changes });
  }
  if (passwordChanged) await audit(trx, { action: 'user.password_changed', actor, time: now, resource_type: 'user', resource_id: row.userid, changes: { password: {} } });
}
