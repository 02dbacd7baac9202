// What the audit log records of a guide's changes (docs/audit.md): one entry per change of
// a guide in a language, named after the revision's action, with the revisions before and
// after, the row's changed columns (values only for short scalars: audit/audit.ts) and the
// parts named by the change (a step, the prerequisites). Content itself is referenced by
// its revisionid.
import type { Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import type { AuditAction } from '../../audit/actions.js';
import { audit, changesOf, type AuditChanges } from '../../audit/audit.js';
import type { GuideTable } from './guides.tables.js';
import type { GuideRow } from './guides.queries.js';

/** The actions of a guide's revisions that change it (guides.changes.ts), with their audit names. */
const AUDIT_ACTION_OF = {
  edit: 'guide.edited',
  publish: 'guide.published',
  unpublish: 'guide.unpublished',
  delete: 'guide.deleted',
  restore: 'guide.restored',
  tag: 'guide.tagged',
  untag: 'guide.untagged',
  flag: 'guide.flagged',
  unflag: 'guide.unflagged',
  step_add: 'guide.step_added',
  step_edit: 'guide.step_edited',
  step_delete: 'guide.step_deleted',
  steporder: 'guide.steps_reordered',
} as const satisfies Record<string, AuditAction>;

export type GuideChangeAction = keyof typeof AUDIT_ACTION_OF;

/** Records a change of the guide `locked` (as the change locked it), committed as `revisionid_after`, in the change's transaction. */
export async function auditGuideChange(
  trx: Kysely<Database>, actor: AuthUser | null, now: number, opts: { action: GuideChangeAction; audited?: AuditChanges },
  locked: GuideRow, set: Updateable<GuideTable> | undefined, revisionid_after: number,
): Promise<void> {
  const columns = set ? changesOf(locked as unknown as Record<string, unknown>, set as Record<string, unknown>) : null;
  const changes = columns || opts.audited ? { ...columns, ...opts.audited } : null;
  await audit(trx, {
    action: AUDIT_ACTION_OF[opts.action], actor, time: now, resource_type: 'guide', resource_id: locked.guideid, langid: locked.langid,
    revisionid_before: locked.revisionid, revisionid_after, changes,
  });
}

/** Records a guide (or a translation) created at revision `revisionid`. */
export async function auditGuideCreated(trx: Kysely<Database>, actor: AuthUser, now: number, guide: { guideid: number; langid: string; revisionid: number; title?: string | null }): Promise<void> {
  await audit(trx, {
    action: 'guide.created', actor, time: now, resource_type: 'guide', resource_id: guide.guideid, langid: guide.langid,
    revisionid_after: guide.revisionid, changes: changesOf(null, { title: guide.title ?? null }),
  });
}
