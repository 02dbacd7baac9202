// Who may do what with skills: the area's one policy module (src/http/policy.ts).
//   weights: read by Admins and team leads, changed by Admins;
//   ratings, breakdowns, the matrix, supervisor ratings: Admins for anyone, team leads for
//     the members of the teams they lead (a lead asking about anyone else: 403);
//   a team's courses: Admins and that team's leads;
//   course and guide assignees: Admins (everyone), team leads (the members of their teams).
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { leadsAnyTeam, overseesUser, usersLedBy } from '../quizzes/quizzes.access.js';
import type { Db } from './skills.queries.js';

export async function readsSkills(db: Db, user: AuthUser): Promise<boolean> {
  return isAdmin(user) || leadsAnyTeam(db, user);
}

/** The users among `userids` the caller may not rate or see the ratings of. */
export async function notOverseen(db: Db, user: AuthUser, userids: number[]): Promise<number[]> {
  if (isAdmin(user) || !userids.length) return [];
  const led = new Set((await usersLedBy(db, user.userid).where('userid', 'in', userids).execute()).map((r) => r.userid));
  return userids.filter((id) => !led.has(id));
}

export { overseesUser, usersLedBy };

export async function leadsTeam(db: Db, user: AuthUser, teamid: number): Promise<boolean> {
  if (isAdmin(user)) return true;
  const t = await db.selectFrom('teams').select('owner').where('teamid', '=', teamid).executeTakeFirst();
  if (t?.owner === user.userid) return true;
  const m = await db.selectFrom('team_members').select('is_lead').where('teamid', '=', teamid).where('userid', '=', user.userid).executeTakeFirst();
  return m?.is_lead === 1;
}
