// Who may do what with sign-offs: the area's one policy module (src/http/policy.ts).
//   request, cancel, acknowledge: the trainee, on a sign-off stage of a course assigned to
//     them (Admins may cancel any request);
//   respond: a member of the assessment's signer team other than the trainee; or, over the
//     shoulder, the trainee's device holding the single-use token that the trainer's login
//     and password made for that request (the response is in the trainer's name);
//   a signer's pending requests, a trainee's unacknowledged responses: that user and whoever
//     oversees them (shared/oversight.ts);
//   the signers of an assessment: any logged-in user.
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { readsRecordsOf } from '../shared/oversight.js';
import type { Db, RequestRow } from './signoffs.queries.js';

/** A member of the signer team. */
export async function isSigner(db: Db, userid: number, teamid: number | null): Promise<boolean> {
  if (teamid === null) return false;
  const row = await db.selectFrom('team_members').select('userid').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst();
  return row !== undefined;
}

/** Whether `userid` may answer the request: a signer, not the trainee, and the trainer asked when one was. */
export async function mayRespond(db: Db, userid: number, r: RequestRow): Promise<boolean> {
  if (userid === r.userid_requestor) return false;
  if (r.userid_requestee !== null && r.userid_requestee !== userid) return false;
  return isSigner(db, userid, r.teamid_signer);
}

/** A user's pending requests and responses: the user and whoever oversees them (shared/oversight.ts). */
export const readsListsOf = readsRecordsOf;

export const mayCancel = (user: AuthUser, r: RequestRow) => r.userid_requestor === user.userid || isAdmin(user);
