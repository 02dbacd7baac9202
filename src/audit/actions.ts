// The audit log's actions: a fixed vocabulary, one place (the OpenAPI document lists it).
// `<resource type>.<what happened>`; an area adds its names here and calls `audit()`.
export const AUDIT_ACTIONS = [
  // Accounts
  'user.created',
  'user.privileges_changed',
  'user.enabled',
  'user.disabled',
  'user.banned',
  'user.unbanned',
  'user.password_changed',
  'user.password_reset',
  'user.email_changed',
  'user.identifiers_changed',
  'user.login',
  'user.login_failed',
  'user.impersonated',
  // Guides, their steps and releases
  'guide.created',
  'guide.edited',
  'guide.published',
  'guide.unpublished',
  'guide.deleted',
  'guide.restored',
  'guide.tagged',
  'guide.untagged',
  'guide.flagged',
  'guide.unflagged',
  'guide.step_added',
  'guide.step_edited',
  'guide.step_deleted',
  'guide.steps_reordered',
  'guide.released',
  'guide.release_edited',
  'guide.release_removed',
  // Wikis
  'wiki.created',
  'wiki.edited',
  'wiki.translated',
  'wiki.reverted',
  'wiki.tagged',
  'wiki.untagged',
  'wiki.deleted',
  'wiki.released',
  'wiki.release_removed',
  // Webhook subscriptions
  'webhook.created',
  'webhook.edited',
  'webhook.secret_changed',
  'webhook.deleted',
  // Approval processes and requests (resource approval_process / approval_request)
  'approval_process.created',
  'approval_process.edited',
  'approval_process.attached',
  'approval_process.detached',
  'approval.requested',
  'approval.signed',
  'approval.cancelled',
  'approval.released',
  // Sign-off requests (resource signoff_request)
  'signoff.requested',
  'signoff.cancelled',
  'signoff.responded',
  'signoff.acknowledged',
  // Skills: the rating weights (resource skills_weights, the group) and supervisor ratings (on the rated user)
  'skills.weights_changed',
  'skills.supervisor_rated',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export const isAuditAction = (name: string): name is AuditAction => KNOWN.has(name);

/** The resource types the entries name (resource_type). */
export const AUDIT_RESOURCE_TYPES = ['user', 'guide', 'wiki', 'webhook', 'approval_process', 'approval_request', 'signoff_request', 'skills_weights'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];
