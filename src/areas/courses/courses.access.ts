// Who may do what with courses (the area's policy module, see http/policy.ts):
// Authors and Admins create, edit and delete courses; Admins manage every assignment and
// every user's progress; team leads (and owners) those of their teams and the members they
// oversee (shared/oversight.ts: never their own account); a learner starts and completes
// their own stages and reads their own progress.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { hasPrivilege, isAdmin, type AuthUser } from '../../http/auth.js';
import { ledTeamIds, leadsTeam, overseenBy, oversees, readsRecordsOf } from '../shared/oversight.js';

type Db = Kysely<Database>;

/** Authors and Admins create, edit and delete courses and read every course. */
export const managesCourses = (user: AuthUser | null | undefined) => hasPrivilege(user, 'Author');

/** Admins see and manage every assignment and every learner's progress. */
export const managesAllTraining = (user: AuthUser | null | undefined) => isAdmin(user);

/** Whether `user` leads (or owns) team `teamid`, or is an Admin. */
export const managesTeam = leadsTeam;

/** Whether `user` manages `userid`'s training: whoever oversees them (shared/oversight.ts; never a lead's own account). */
export const managesUser = oversees;

/** Whether `user` reads `userid`'s progress: themself, or whoever oversees them. */
export const readsUser = readsRecordsOf;

/**
 * SQL over a userid column: the users whose progress `user` reads (all for Admins;
 * themself and the users they oversee otherwise).
 */
export function visibleUser(db: Db, user: AuthUser, column: string): Expression<SqlBool> {
  if (managesAllTraining(user)) return sql<SqlBool>`1 = 1`;
  const col = sql.ref<number>(column);
  return sql<SqlBool>`(${col} = ${user.userid} or ${overseenBy(db, user, column)})`;
}

/** SQL over a teamid column: the teams whose progress `user` reads (all for Admins; those they lead or belong to). */
export function visibleTeam(db: Db, user: AuthUser, column: string): Expression<SqlBool> {
  if (managesAllTraining(user)) return sql<SqlBool>`1 = 1`;
  const col = sql.ref<number>(column);
  return sql<SqlBool>`${col} in (${ledTeamIds(db, user.userid)})`;
}

/** Whether `user` reads an assignment: its user, a lead of its team or of a team its user is in, Authors and Admins. */
export async function readsAssignment(db: Db, user: AuthUser, a: { assignee_userid: number | null; assignee_teamid: number | null }): Promise<boolean> {
  if (managesCourses(user)) return true;
  if (a.assignee_userid != null) return readsUser(db, user, a.assignee_userid);
  if (a.assignee_teamid != null) {
    if (await managesTeam(db, user, a.assignee_teamid)) return true;
    const member = await db.selectFrom('team_members').select('userid').where('teamid', '=', a.assignee_teamid).where('userid', '=', user.userid).executeTakeFirst();
    return !!member;
  }
  return false;
}

/** Whether `user` may make or cancel an assignment to this user or team. */
export async function managesAssignee(db: Db, user: AuthUser, a: { assignee_userid: number | null; assignee_teamid: number | null }): Promise<boolean> {
  if (a.assignee_userid != null) return managesUser(db, user, a.assignee_userid);
  if (a.assignee_teamid != null) return managesTeam(db, user, a.assignee_teamid);
  return false;
}
