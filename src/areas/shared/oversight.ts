// Who oversees whom: the one relation every area asks before reading another user's
// records, completing or invalidating their stages, rating them, or cancelling their quiz
// sessions. `oversees(actor, user)` is true for an Admin, and for a lead (or the owner) of a
// team the user belongs to; never for a lead's own account. Membership counts only once the
// user accepted it: team_members holds accepted members only (an invitation waits in
// team_invitations), so "a team the user belongs to" is a row of team_members.
// An Admin may act on their own account; the records such an act writes carry
// `self_override` (selfOverride below).
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';

type Db = Kysely<Database>;

/** The teams `userid` owns or is marked lead of, as a subquery of teamids. */
export function ledTeamIds(db: Db, userid: number) {
  return db.selectFrom('teams as lt_t').select('lt_t.teamid').where('lt_t.owner', '=', userid)
    .union(db.selectFrom('team_members as lt_m').select('lt_m.teamid').where('lt_m.userid', '=', userid).where('lt_m.is_lead', '=', 1));
}

/** The users a (non-Admin) actor oversees, as a subquery of userids: the members of the teams they lead, themself excluded. */
export function overseenUserIds(db: Db, actor: Pick<AuthUser, 'userid'>) {
  return db.selectFrom('team_members as ov_m').select('ov_m.userid')
    .where('ov_m.teamid', 'in', ledTeamIds(db, actor.userid)).where('ov_m.userid', '!=', actor.userid);
}

/** `oversees` as SQL over a userid column, for lists (one bounded query). */
export function overseenBy(db: Db, actor: AuthUser, column: string): Expression<SqlBool> {
  if (isAdmin(actor)) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`${sql.ref<number>(column)} in (${overseenUserIds(db, actor)})`;
}

/** Whether `actor` oversees `userid`: an Admin, or a lead of a team the user accepted membership of (never their own account). */
export async function oversees(db: Db, actor: AuthUser, userid: number): Promise<boolean> {
  if (isAdmin(actor)) return true;
  if (actor.userid === userid) return false;
  const row = await overseenUserIds(db, actor).where('ov_m.userid', '=', userid).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The users among `userids` the actor does not oversee (in the order given, once each). */
export async function notOverseen(db: Db, actor: AuthUser, userids: number[]): Promise<number[]> {
  const unique = [...new Set(userids)];
  if (isAdmin(actor) || !unique.length) return [];
  const seen = new Set((await overseenUserIds(db, actor).where('ov_m.userid', 'in', unique).execute()).map((r) => r.userid));
  return unique.filter((id) => !seen.has(id));
}

/** Whether `actor` reads `userid`'s own records: themself, or whoever oversees them. */
export async function readsRecordsOf(db: Db, actor: AuthUser, userid: number): Promise<boolean> {
  return actor.userid === userid || oversees(db, actor, userid);
}

/** Whether `actor` leads (or owns) any team. */
export async function leadsAnyTeam(db: Db, actor: AuthUser): Promise<boolean> {
  return (await ledTeamIds(db, actor.userid).limit(1).executeTakeFirst()) !== undefined;
}

/** Whether `actor` is an Admin or leads (or owns) team `teamid`. */
export async function leadsTeam(db: Db, actor: AuthUser, teamid: number): Promise<boolean> {
  if (isAdmin(actor)) return true;
  const row = await db.selectFrom(ledTeamIds(db, actor.userid).as('l')).select('l.teamid').where('l.teamid', '=', teamid).executeTakeFirst();
  return row !== undefined;
}

/** The team's members an actor who leads it may act on: all for an Admin, the others for a lead. */
export function overseenMembers(actor: AuthUser, members: number[]): number[] {
  return isAdmin(actor) ? members : members.filter((id) => id !== actor.userid);
}

/** An act of `actor` on `userid`'s record that only oversight allowed: marked when it is the actor's own (an Admin). */
export const selfOverride = (actorid: number | null | undefined, userid: number): 0 | 1 => (actorid === userid ? 1 : 0);
