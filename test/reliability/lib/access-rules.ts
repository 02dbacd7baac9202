// What the authorization matrix expects beyond the declared access (x-access), for the
// two cells that depend on the resource: a plain User acting on another user's resource,
// and a team lead acting on their team. The defaults: a write on someone else's resource
// is refused (403, or 404 where the resource is hidden), and a lead does on their team
// what an Admin does. Routes below are where the resource-level rule is different.

/**
 * Writes that a User may do on a resource someone else owns, because the write is about
 * the caller (completing a guide, a favorite, a comment on it, a quiz session, a work-log
 * entry, signing a request addressed to them). From the specification's endpoint list.
 */
export const SELF_SERVICE = new Set<string>([
  'PUT /guides/{guideid}/completed',
  'DELETE /guides/{guideid}/completed',
  'PUT /user/favorites/guides/{guideid}',
  'DELETE /user/favorites/guides/{guideid}',
  'POST /comments/{context}/{contextid}',
  'POST /approvals/request/sign/{approval_requestid}',
  'POST /approvals/request/sign/{approval_requestid}/token',
  'PATCH /course_assignments/start/{doctype}/{docid}',
  'PATCH /course_assignments/complete/{doctype}/{docid}',
  'POST /courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword',
  'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/acknowledge',
  'POST /guides/steps/lines/preview',
  'POST /work_log/{entryid}/assume',
]);

export interface ResourceRule {
  /** Statuses a team lead gets on their own team (default: what an Admin gets). */
  lead?: number[];
  /** Statuses a User gets on another user's resource (default: 403 or 404 for writes). */
  other?: number[];
  /** Statuses an Admin may get besides 2xx (default: anything but 401 and 403). */
  admin?: number[];
}

export const RULES: Record<string, ResourceRule> = {
  // Only a member of the signer team answers; only the trainee acknowledges and starts an over-the-shoulder sign-off.
  'PATCH /courses/stage-sign-offs/responses': { admin: [403] },
  'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/acknowledge': { admin: [403] },
  'POST /courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword': { admin: [403] },
  // The leads of a team the user is in invalidate the user's sessions (the fixture's `other` leads a team the Admin is in).
  'PATCH /quizzes/sessions/userInvalidateAll/{userid}': { other: [200, 403, 404] },
  // Only the owner or an Admin deletes a team; its leads manage it otherwise.
  'DELETE /teams/{teamid}': { lead: [403] },
  // Only the invited user (or an Admin) accepts an invitation: a lead never accepts for them.
  'PUT /teams/{teamid}/users/{userid}/accept': { lead: [403, 404] },
  // A signature is personal: an Admin who is not a signer of the current stage is refused like anyone else.
  'POST /approvals/request/sign/{approval_requestid}': { admin: [403] },
  'POST /approvals/request/sign/{approval_requestid}/token': { admin: [403] },
  // Player data is for a learner assigned to a course containing the module: an Admin who is
  // not assigned is refused like anyone else (a manager previews an import instead).
  'GET /external_training_modules/{id}/player': { admin: [403] },
};
