// Who may do what with comments and discussion posts: the comments area's one policy
// module (see src/http/policy.ts).
//   read a comment: as what it is on (a guide or step comment as the guide in the
//     comment's language, comments.contexts.ts);
//   comment: any logged-in user who reads what the comment is on;
//   edit or delete a comment or post: its author, a Moderator or an Admin.
import { hasPrivilege, type AuthUser } from '../../http/auth.js';

export const NOT_AUTHOR = 'Only the author, a Moderator or an Admin may do this.';

/** Edit or delete a comment or a discussion post written by `authorid`. */
export function canEditWriting(user: AuthUser, authorid: number | null): boolean {
  return user.userid === authorid || hasPrivilege(user, 'Moderator');
}
