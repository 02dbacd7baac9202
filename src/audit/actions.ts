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
  // Courses (resource course: the course and its stages, revisions of course_wiki_revisions),
  // assignments (course_assignment) and each user's stage progress (course_stage_completion)
  'course.created',
  'course.edited',
  'course.deleted',
  'course.stage_added',
  'course.stage_edited',
  'course.stage_removed',
  'course.assigned',
  'course.assignment_cancelled',
  'course.stage_started',
  'course.stage_completed',
  'course.completion_overridden',
  'course.completion_invalidated',
  'course.completion_expired',
  // Quizzes (resource quiz: imports with the quiz revisions, attachments to a document,
  // deletions) and quiz sessions (quiz_session: submissions with the score, never the answers)
  'quiz.imported',
  'quiz.attached',
  'quiz.deleted',
  'quiz.submitted',
  'quiz.session_cancelled',
  'quiz.session_invalidated',
  // External training modules (resource training_module; revisions: the imports, by importid)
  'training_module.import_created',
  'training_module.import_started',
  'training_module.import_cancelled',
  'training_module.imported',
  'training_module.promoted',
  'training_module.draft_set',
  // Teams and their membership (resource team; the member's userid in changes)
  'team.created',
  'team.edited',
  'team.deleted',
  'team.member_added',
  'team.member_removed',
  'team.member_invited',
  'team.invitation_accepted',
  'team.invitation_declined',
  'team.invitation_withdrawn',
  'team.lead_set',
  'team.lead_unset',
  // Work log entries (resource work_log_entry)
  'work_log.started',
  'work_log.paused',
  'work_log.resumed',
  'work_log.suspended',
  'work_log.finished',
  'work_log.cancelled',
  'work_log.assumed',
  'work_log.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export const isAuditAction = (name: string): name is AuditAction => KNOWN.has(name);

/** The resource types the entries name (resource_type). */
export const AUDIT_RESOURCE_TYPES = ['user', 'guide', 'wiki', 'webhook', 'approval_process', 'approval_request', 'signoff_request', 'skills_weights',
  'course', 'course_assignment', 'course_stage_completion', 'work_log_entry', 'quiz', 'quiz_session', 'training_module', 'team'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];
