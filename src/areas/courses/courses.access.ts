// Who may do what with courses (the area's policy module, see http/policy.ts):
// Authors and Admins create, edit and delete courses; Admins manage every assignment and
// every user's progress; team leads (and owners) those of their teams and members; a
// learner starts and completes their own stages and reads their own progress.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { hasPrivilege, isAdmin, type AuthUser } from '../../http/auth.js';

type Db = Kysely<Database>;

/** Authors and Admins create, edit and delete courses and read every course. */
export const managesCourses = (user: AuthUser | null | undefined) => hasPrivilege(user, 'Author');

/** Admins see and manage every assignment and every learner's progress. */
export const managesAllTraining = (user: AuthUser | null | undefined) => isAdmin(user);

/** The teams `userid` leads or owns, as a subquery. */
export function ledTeams(db: Db, userid: number) {
  return db.selectFrom('teams').select('teams.teamid').where('teams.owner', '=', userid)
    .union(db.selectFrom('team_members as lt').select('lt.teamid').where('lt.userid', '=', userid).where('lt.is_lead', '=', 1));
}

/** Whether `user` leads (or owns) team `teamid`, or is an Admin. */
export async function managesTeam(db: Db, user: AuthUser, teamid: number): Promise<boolean> {
  if (managesAllTraining(user)) return true;
  const row = await db.selectFrom('teams').select('teamid').where('teamid', '=', teamid)
    .where((eb) => eb.or([eb('owner', '=', user.userid), eb.exists(eb.selectFrom('team_members').select('userid').where('teamid', '=', teamid).where('userid', '=', user.userid).where('is_lead', '=', 1))]))
    .executeTakeFirst();
  return !!row;
}

/** Whether `user` manages `userid`'s training: an Admin, or a lead of a team `userid` is in. */
export async function managesUser(db: Db, user: AuthUser, userid: number): Promise<boolean> {
  if (managesAllTraining(user)) return true;
  const row = await db.selectFrom('team_members').select('userid').where('userid', '=', userid)
    .where('teamid', 'in', ledTeams(db, user.userid)).executeTakeFirst();
  return !!row;
}

/** Whether `user` reads `userid`'s progress: themself, or whoever manages them. */
export async function readsUser(db: Db, user: AuthUser, userid: number): Promise<boolean> {
  return user.userid === userid || managesUser(db, user, userid);
}

/**
 * SQL over a userid column: the users whose progress `user` reads (all for Admins;
 * themself and the members of teams they lead otherwise).
 */
export function visibleUser(db: Db, user: AuthUser, column: string): Expression<SqlBool> {
  if (managesAllTraining(user)) return sql<SqlBool>`1 = 1`;
  const col = sql.ref<number>(column);
  return sql<SqlBool>`(${col} = ${user.userid} or ${col} in (${db.selectFrom('team_members as vm').select('vm.userid').where('vm.teamid', 'in', ledTeams(db, user.userid))}))`;
}

/** SQL over a teamid column: the teams whose progress `user` reads (all for Admins; those they lead or belong to). */
export function visibleTeam(db: Db, user: AuthUser, column: string): Expression<SqlBool> {
  if (managesAllTraining(user)) return sql<SqlBool>`1 = 1`;
  const col = sql.ref<number>(column);
  return sql<SqlBool>`${col} in (${ledTeams(db, user.userid)})`;
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
