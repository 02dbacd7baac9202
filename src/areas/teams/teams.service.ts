// The teams area's writes: named functions taking the database (or a transaction) first,
// each one transaction. Callers check the policy (teams.access.ts) and the input first.
import { randomBytes } from 'node:crypto';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fromBool } from '../../db/helpers.js';
import { invalidField, notFound } from '../../http/errors.js';
import { userExists } from './teams.queries.js';
import type { TeamTable } from './teams.tables.js';

type Db = Kysely<Database>;

export const newJoinCode = () => randomBytes(9).toString('base64url');

/** A new team whose owner becomes its first member and a lead; answers its id. */
export function createTeam(db: Db, values: Omit<Insertable<TeamTable>, 'join_code' | 'created_date'>, now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('teams').values({ ...values, join_code: newJoinCode(), created_date: now }).returning('teamid').executeTakeFirstOrThrow();
    await trx.insertInto('team_members').values({ teamid: row.teamid, userid: values.owner, is_lead: 1, join_date: now }).execute();
    return row.teamid;
  });
}

/** Writes `set` to the team; a new `owner` (checked to exist) becomes a member and a lead. */
export function updateTeam(db: Db, teamid: number, set: Updateable<TeamTable>, newOwner: number | undefined, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    if (newOwner !== undefined) {
      if (!(await userExists(trx, newOwner))) throw invalidField('owner', 'No such user.');
      set = { ...set, owner: newOwner };
      const member = await trx.selectFrom('team_members').select('userid').where('teamid', '=', teamid).where('userid', '=', newOwner).executeTakeFirst();
      if (member) await trx.updateTable('team_members').set({ is_lead: 1 }).where('teamid', '=', teamid).where('userid', '=', newOwner).execute();
      else await trx.insertInto('team_members').values({ teamid, userid: newOwner, is_lead: 1, join_date: now }).execute();
    }
    if (Object.keys(set).length) await trx.updateTable('teams').set(set).where('teamid', '=', teamid).execute();
  });
}

/** Deletes the team and its memberships; 404 when a concurrent request deleted it first. */
export function deleteTeam(db: Db, teamid: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('team_members').where('teamid', '=', teamid).execute();
    await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).execute();
    const gone = await trx.deleteFrom('teams').where('teamid', '=', teamid).executeTakeFirst();
    // Deleted meanwhile by a concurrent request: that one answered 204, this one 404.
    if (Number(gone.numDeletedRows) === 0) throw notFound('Team');
  });
}

/** Adds the user (keeping an existing membership) and sets their lead flag when `lead` is given. */
export function putMember(db: Db, teamid: number, userid: number, lead: boolean | undefined, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    // Insert-or-keep in one statement: concurrent joins of one user add one membership.
    const added = await trx.insertInto('team_members').values({ teamid, userid, is_lead: fromBool(lead ?? false), join_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doNothing()).executeTakeFirst();
    if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0 && lead !== undefined) {
      await trx.updateTable('team_members').set({ is_lead: fromBool(lead) }).where('teamid', '=', teamid).where('userid', '=', userid).execute();
    }
    // A membership added directly (an Admin, or the user themself) supersedes an invitation.
    await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).execute();
  });
}

/** Invites the user (a lead's or the owner's addition): it waits for their consent; a repeated invitation keeps one row and updates its lead flag. */
export function inviteMember(db: Db, teamid: number, userid: number, lead: boolean | undefined, by: number, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('team_invitations').values({ teamid, userid, is_lead: fromBool(lead ?? false), invited_by: by, invited_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doUpdateSet({ invited_by: by, invited_date: now, ...(lead !== undefined ? { is_lead: fromBool(lead) } : {}) }))
      .execute();
  });
}

/** The user accepts an invitation: it becomes a membership (with the lead flag it carried); 404 when there is none. */
export function acceptInvitation(db: Db, teamid: number, userid: number, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const invitation = await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).returning('is_lead').executeTakeFirst();
    if (!invitation) throw notFound('Team invitation');
    await trx.insertInto('team_members').values({ teamid, userid, is_lead: invitation.is_lead, join_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doNothing()).execute();
  });
}

/** Declines (or withdraws) an invitation; 404 when there is none. */
export async function declineInvitation(db: Db, teamid: number, userid: number): Promise<void> {
  const gone = await db.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) throw notFound('Team invitation');
}

/** Removes the membership; 404 when there was none. */
export async function removeMember(db: Db, teamid: number, userid: number): Promise<void> {
  const gone = await db.deleteFrom('team_members').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) throw notFound('Team member');
}
