import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { toBool } from '../../db/helpers.js';
import { loadImageObjects } from '../media/image-object.js';
import { toUserSummaries } from '../users/users.queries.js';
import type { TeamTable } from './teams.tables.js';

export type TeamRow = Selectable<TeamTable>;

export function findTeam(db: Kysely<Database>, teamid: number) {
  return db.selectFrom('teams').selectAll().where('teamid', '=', teamid).executeTakeFirst();
}

/** One page of teams ordered by teamid. */
export function listTeams(db: Kysely<Database>, page: { offset: number; limit: number; order?: string }) {
  return db.selectFrom('teams').selectAll().orderBy('teamid', page.order === 'DESC' ? 'desc' : 'asc').limit(page.limit).offset(page.offset).execute();
}

/** Whether a user with this id exists (a team's owner or new member must). */
export async function userExists(db: Kysely<Database>, userid: number): Promise<boolean> {
  return !!(await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst());
}

/** Team summaries for a page of teams: member counts and images in two batched queries. */
export async function toTeamSummaries(db: Kysely<Database>, config: Config, rows: TeamRow[]) {
  const ids = rows.map((r) => r.teamid);
  const [counts, images] = await Promise.all([
    ids.length
      ? db.selectFrom('team_members').select((eb) => ['teamid', eb.fn.countAll<number>().as('n'), eb.fn.max('join_date').as('newest')]).where('teamid', 'in', ids).groupBy('teamid').execute()
      : Promise.resolve([]),
    loadImageObjects(db, config, rows.map((r) => r.imageid)),
  ]);
  const byTeam = new Map(counts.map((c) => [c.teamid, c]));
  return rows.map((r) => ({
    teamid: r.teamid,
    image: r.imageid ? images.get(r.imageid) ?? null : null,
    name: r.name,
    description: r.description,
    owner: r.owner,
    location: r.location,
    latitude: r.latitude,
    longitude: r.longitude,
    reputation: r.reputation,
    member_count: Number(byTeam.get(r.teamid)?.n ?? 0),
    new_member_since: byTeam.get(r.teamid)?.newest == null ? null : Number(byTeam.get(r.teamid)!.newest),
  }));
}

/**
 * The team's members as user summaries with a `lead` flag and `status: "member"`, ordered by
 * userid; with `invited`, the pending invitations after them (`status: "invited"`).
 */
export async function teamMembers(db: Kysely<Database>, config: Config, teamid: number, o: { invited?: boolean } = {}) {
  const rows = await db.selectFrom('team_members').innerJoin('users', 'users.userid', 'team_members.userid')
    .selectAll('users').select(['team_members.is_lead', sql<'member' | 'invited'>`'member'`.as('status')])
    .where('team_members.teamid', '=', teamid)
    .$if(!!o.invited, (q) => q.unionAll(db.selectFrom('team_invitations as ti').innerJoin('users', 'users.userid', 'ti.userid')
      .selectAll('users').select(['ti.is_lead', sql<'member' | 'invited'>`'invited'`.as('status')]).where('ti.teamid', '=', teamid)))
    .execute();
  rows.sort((a, b) => (a.status === b.status ? a.userid - b.userid : a.status === 'member' ? -1 : 1));
  const summaries = await toUserSummaries(db, config, rows);
  return summaries.map((s, i) => ({ ...s, lead: toBool(rows[i].is_lead), status: rows[i].status }));
}

/** Whether the user is an accepted member of the team. */
export async function isMember(db: Kysely<Database>, teamid: number, userid: number): Promise<boolean> {
  return (await db.selectFrom('team_members').select('userid').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst()) !== undefined;
}
