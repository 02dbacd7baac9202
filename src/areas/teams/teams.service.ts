// The teams area's writes: named functions taking the database (or a transaction) first,
// each one transaction. Callers check the policy (teams.access.ts) and the input first.
import { randomBytes } from 'node:crypto';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fromBool } from '../../db/helpers.js';
import { invalidField, notFound } from '../../http/errors.js';
import { userExists } from './teams.queries.js';
import type { TeamTable } from './teams.tables.js';
import { audit, changesOf, type AuditChanges } from '../../audit/audit.js';
import type { AuditAction } from '../../audit/actions.js';
import type { AuthUser } from '../../http/auth.js';

type Db = Kysely<Database>;

/** Records a change of team `teamid` or of its membership (docs/audit.md); the join code is named, never recorded. */
async function auditTeam(trx: Db, actor: AuthUser, now: number, action: AuditAction, teamid: number, changes: AuditChanges | null) {
  await audit(trx, { action, actor, time: now, resource_type: 'team', resource_id: teamid, changes });
}
const member = (userid: number, lead?: boolean | number): AuditChanges => ({ userid: { new: userid }, ...(lead !== undefined ? { is_lead: { new: lead === true || lead === 1 } } : {}) });
const HIDDEN = ['join_code'];

export const newJoinCode = () => randomBytes(9).toString('base64url');

/** A new team whose owner becomes its first member and a lead; answers its id. */
export function createTeam(db: Db, values: Omit<Insertable<TeamTable>, 'join_code' | 'created_date'>, now: number, actor: AuthUser): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('teams').values({ ...values, join_code: newJoinCode(), created_date: now }).returning('teamid').executeTakeFirstOrThrow();
    await trx.insertInto('team_members').values({ teamid: row.teamid, userid: values.owner, is_lead: 1, join_date: now }).execute();
    const { name_lower: _l, ...named } = values;
    await auditTeam(trx, actor, now, 'team.created', row.teamid, changesOf(null, named));
    await auditTeam(trx, actor, now, 'team.member_added', row.teamid, member(values.owner, true));
    return row.teamid;
  });
}

/** Writes `set` to the team; a new `owner` (checked to exist) becomes a member and a lead. */
export function updateTeam(db: Db, teamid: number, set: Updateable<TeamTable>, newOwner: number | undefined, now: number, actor: AuthUser): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('teams').selectAll().where('teamid', '=', teamid).executeTakeFirst();
    if (newOwner !== undefined) {
      if (!(await userExists(trx, newOwner))) throw invalidField('owner', 'No such user.');
      set = { ...set, owner: newOwner };
      const m = await trx.selectFrom('team_members').select(['userid', 'is_lead']).where('teamid', '=', teamid).where('userid', '=', newOwner).executeTakeFirst();
      if (m) await trx.updateTable('team_members').set({ is_lead: 1 }).where('teamid', '=', teamid).where('userid', '=', newOwner).execute();
      else await trx.insertInto('team_members').values({ teamid, userid: newOwner, is_lead: 1, join_date: now }).execute();
      if (!m) await auditTeam(trx, actor, now, 'team.member_added', teamid, member(newOwner, true));
      else if (m.is_lead !== 1) await auditTeam(trx, actor, now, 'team.lead_set', teamid, member(newOwner));
    }
    if (Object.keys(set).length) await trx.updateTable('teams').set(set).where('teamid', '=', teamid).execute();
    const { name_lower: _l, ...named } = set;
    const changes = before ? changesOf(before as Record<string, unknown>, named as Record<string, unknown>, HIDDEN) : null;
    if (changes) await auditTeam(trx, actor, now, 'team.edited', teamid, changes);
  });
}

/** Deletes the team and its memberships; 404 when a concurrent request deleted it first. */
export function deleteTeam(db: Db, teamid: number, actor: AuthUser, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('team_members').where('teamid', '=', teamid).execute();
    await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).execute();
    const gone = await trx.deleteFrom('teams').where('teamid', '=', teamid).executeTakeFirst();
    // Deleted meanwhile by a concurrent request: that one answered 204, this one 404.
    if (Number(gone.numDeletedRows) === 0) throw notFound('Team');
    // One entry: the team, its memberships and invitations went with it.
    await auditTeam(trx, actor, now, 'team.deleted', teamid, null);
  });
}

/** Adds the user (keeping an existing membership) and sets their lead flag when `lead` is given. */
export function putMember(db: Db, teamid: number, userid: number, lead: boolean | undefined, now: number, actor: AuthUser): Promise<void> {
  return db.transaction().execute(async (trx) => {
    // Insert-or-keep in one statement: concurrent joins of one user add one membership.
    const added = await trx.insertInto('team_members').values({ teamid, userid, is_lead: fromBool(lead ?? false), join_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doNothing()).executeTakeFirst();
    if (Number(added.numInsertedOrUpdatedRows ?? 0) > 0) await auditTeam(trx, actor, now, 'team.member_added', teamid, member(userid, lead ?? false));
    else if (lead !== undefined) {
      const moved = await trx.updateTable('team_members').set({ is_lead: fromBool(lead) }).where('teamid', '=', teamid).where('userid', '=', userid).where('is_lead', '!=', fromBool(lead)).executeTakeFirst();
      if (Number(moved.numUpdatedRows)) await auditTeam(trx, actor, now, lead ? 'team.lead_set' : 'team.lead_unset', teamid, member(userid));
    }
    // A membership added directly (an Admin, or the user themself) supersedes an invitation.
    await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).execute();
  });
}

/** Invites the user (a lead's or the owner's addition): it waits for their consent; a repeated invitation keeps one row and updates its lead flag. */
export function inviteMember(db: Db, teamid: number, userid: number, lead: boolean | undefined, actor: AuthUser, now: number): Promise<void> {
  const by = actor.userid;
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('team_invitations').values({ teamid, userid, is_lead: fromBool(lead ?? false), invited_by: by, invited_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doUpdateSet({ invited_by: by, invited_date: now, ...(lead !== undefined ? { is_lead: fromBool(lead) } : {}) }))
      .execute();
    const row = await trx.selectFrom('team_invitations').select('is_lead').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirstOrThrow();
    await auditTeam(trx, actor, now, 'team.member_invited', teamid, member(userid, row.is_lead));
  });
}

/** The user accepts an invitation: it becomes a membership (with the lead flag it carried); 404 when there is none. */
export function acceptInvitation(db: Db, teamid: number, userid: number, now: number, actor: AuthUser): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const invitation = await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).returning('is_lead').executeTakeFirst();
    if (!invitation) throw notFound('Team invitation');
    const added = await trx.insertInto('team_members').values({ teamid, userid, is_lead: invitation.is_lead, join_date: now })
      .onConflict((oc) => oc.columns(['teamid', 'userid']).doNothing()).executeTakeFirst();
    await auditTeam(trx, actor, now, 'team.invitation_accepted', teamid, { ...member(userid, invitation.is_lead), member_added: { new: Number(added.numInsertedOrUpdatedRows ?? 0) > 0 } });
  });
}

/** Declines (or withdraws) an invitation; 404 when there is none. */
export function declineInvitation(db: Db, teamid: number, userid: number, actor: AuthUser, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('team_invitations').where('teamid', '=', teamid).where('userid', '=', userid).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw notFound('Team invitation');
    await auditTeam(trx, actor, now, actor.userid === userid ? 'team.invitation_declined' : 'team.invitation_withdrawn', teamid, member(userid));
  });
}

/** Removes the membership; 404 when there was none. */
export function removeMember(db: Db, teamid: number, userid: number, actor: AuthUser, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('team_members').where('teamid', '=', teamid).where('userid', '=', userid).returning('is_lead').executeTakeFirst();
    if (!gone) throw notFound('Team member');
    await auditTeam(trx, actor, now, 'team.member_removed', teamid, member(userid, gone.is_lead));
  });
}
