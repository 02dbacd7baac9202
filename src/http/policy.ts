// The shape of an area's policy module (`<area>.access.ts`), after Outline's
// server/policies: the area's rules live in that one file as named predicates over
// (caller, thing), and routes ask it instead of re-deriving a rule:
//
//   forbiddenUnless(await canManageTeam(db, user, team), 'Only the team's owner, ...');
//
// A predicate answers a boolean and never throws, so a route (or another area) can also
// use it to decide what to show; the route turns a "no" into the 403 it documents.
// Workflow areas (team leads, signers, assignees, managers) add their predicates the same way.
import { forbidden } from './errors.js';

/** Throws the 403 with `message` (and `code`) unless `allowed`. */
export function forbiddenUnless(allowed: boolean, message: string, code?: string): void {
  if (!allowed) throw forbidden(message, code);
}

/**
 * A signature (an approval, a sign-off response) is the signer's own act: an Admin's
 * impersonation token never gives one in the user's name (403 `impersonated`).
 */
export function refuseImpersonation(user: { impersonatedBy: number | null }, what: string): void {
  if (user.impersonatedBy !== null) throw forbidden(`${what} cannot be given through an impersonation token.`, 'impersonated');
}
