// Who may do what with skills: the area's one policy module (src/http/policy.ts).
//   weights: read by Admins and team leads, changed by Admins;
//   ratings, breakdowns, the matrix, supervisor ratings: whoever oversees the user
//     (shared/oversight.ts: Admins, and team leads for their other members; 403 otherwise);
//   a team's courses: Admins and that team's leads;
//   course and guide assignees: Admins (everyone), team leads (the members of their teams).
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { leadsAnyTeam } from '../shared/oversight.js';
import type { Db } from './skills.queries.js';

export async function readsSkills(db: Db, user: AuthUser): Promise<boolean> {
  return isAdmin(user) || leadsAnyTeam(db, user);
}

// Whom the caller rates and sees the ratings of, and which teams they lead: the oversight
// relation (shared/oversight.ts), never the caller's own account unless an Admin.
export { leadsTeam, notOverseen, overseenUserIds } from '../shared/oversight.js';
