// Who may do what with a team: the teams area's one policy module (see src/http/policy.ts).
//   manage (edit, add or remove members, set leads): the owner, a lead or an Admin; a lead's
//     (or the owner's) addition of another user is an invitation the user accepts or
//     declines (team_invitations; an Admin adds directly);
//   hand over or delete: the owner or an Admin;
//   join: anyone holding the team's join code (a manager adds anyone without it).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { ledTeamIds } from '../shared/oversight.js';
import type { TeamRow } from './teams.queries.js';

type Db = Kysely<Database>;

/** A team's owner or one of the members it marks as leads. */
export async function isTeamLead(db: Db, userid: number, teamid: number): Promise<boolean> {
  return (await db.selectFrom(ledTeamIds(db, userid).as('l')).select('l.teamid').where('l.teamid', '=', teamid).executeTakeFirst()) !== undefined;
}

/** Edit the team, add or remove members, set leads. */
export async function canManageTeam(db: Db, user: AuthUser, team: TeamRow): Promise<boolean> {
  return isAdmin(user) || isTeamLead(db, user.userid, team.teamid);
}

/** Hand the team to another owner, or delete it. */
export function canOwnTeam(user: AuthUser, team: TeamRow): boolean {
  return isAdmin(user) || user.userid === team.owner;
}

/** Join without a manager: with the team's current join code. */
export function holdsJoinCode(team: TeamRow, code: string | undefined): boolean {
  return code === team.join_code;
}
