// The event catalog: every event a webhook subscription may ask for, grouped as the
// original's catalog is (`[{id, name, events: [{id, key, displayName, description}]}]`).
// Ids are fixed: clients may keep them.

export const WEBHOOK_EVENT_GROUPS = [
  {
    id: 1,
    name: 'Approvals',
    events: [
      { id: 1, key: 'Approvals.RequestSubmitted', displayName: 'Approval Request Submitted', description: 'A guide release was submitted for approval; data: the approval request (GET /approvals/request/{id}).' },
      { id: 2, key: 'Approvals.StageCompleted', displayName: 'Approval Stage Completed', description: 'Every signature a stage needs was given; data: the approval request (GET /approvals/request/{id}).' },
      { id: 3, key: 'Approvals.RequestApproved', displayName: 'Approval Request Approved', description: 'The last stage approved and the release went live; data: the approval request (GET /approvals/request/{id}).' },
      { id: 4, key: 'Approvals.RequestRejected', displayName: 'Approval Request Rejected', description: 'A signer rejected the request; data: the approval request (GET /approvals/request/{id}).' },
    ],
  },
  {
    id: 2,
    name: 'Guides',
    events: [
      { id: 5, key: 'Guides.Published', displayName: 'Guide Published', description: 'A guide release became released; data: the release (GET /guides/releases/{releaseid}).' },
    ],
  },
  {
    id: 3,
    name: 'Work Log',
    events: [
      { id: 6, key: 'WorkLog.StatusChanged', displayName: 'Work Log Status Changed', description: 'A work log entry changed status (started, paused, resumed, finished...); data: the entry (GET /work_log/{entryid}).' },
    ],
  },
  {
    id: 4,
    name: 'Courses',
    events: [
      { id: 7, key: 'Courses.StageCompleted', displayName: 'Course Stage Completed', description: 'A user completed a document of a course stage; data: {course_stageid, docid, doctype, title, userid, doc_completion: {course_assignment_stage_completionid, init_date, end_date}}.' },
    ],
  },
] as const;

export type WebhookEventKey = (typeof WEBHOOK_EVENT_GROUPS)[number]['events'][number]['key'];

export const WEBHOOK_EVENT_KEYS: readonly WebhookEventKey[] = WEBHOOK_EVENT_GROUPS.flatMap((g) => g.events.map((e) => e.key));

export function isWebhookEventKey(key: string): key is WebhookEventKey {
  return (WEBHOOK_EVENT_KEYS as readonly string[]).includes(key);
}
