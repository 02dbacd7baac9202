// Who oversees whom (shared/oversight.ts):
//  - team_invitations: a lead's (or owner's) addition of a member waits here until the user
//    accepts it; team_members keeps accepted members only, so every query that reads it
//    (oversight, approval team stages, sign-off signer teams, course reach) counts consent.
//    Existing memberships stay accepted.
//  - self_override on the records an Admin's act on their own account writes: a manager's
//    completion or invalidation (course_stage_completions), a supervisor rating, a cancelled
//    or invalidated quiz session.
import type { Kysely } from 'kysely';
import { boolColumn } from '../helpers.js';

const MARKED = ['course_stage_completions', 'skills_supervisor_ratings', 'quiz_sessions'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('team_invitations')
    .addColumn('teamid', 'integer', (c) => c.notNull().references('teams.teamid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('is_lead', 'integer', boolColumn)
    .addColumn('invited_by', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('invited_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_invitations_pk', ['teamid', 'userid'])
    .execute();
  await db.schema.createIndex('team_invitations_user').on('team_invitations').columns(['userid', 'teamid']).execute();
  for (const table of MARKED) await db.schema.alterTable(table).addColumn('self_override', 'integer', boolColumn).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of MARKED) await db.schema.alterTable(table).dropColumn('self_override').execute();
  await db.schema.dropTable('team_invitations').ifExists().execute();
}
