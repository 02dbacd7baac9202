// Frozen in time: never edit a migration that has landed; add a new one.
// The teams a user owns: every check of who leads whom (the teams a user leads or owns,
// courses.access.ts `ledTeams` and its kin in the other areas) asks `teams.owner = ?`,
// which read the whole teams table on SQLite (SCAN teams) for each skills matrix, team
// summary and lead's view of a plant's workforce.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('teams_owner').on('teams').columns(['owner', 'teamid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('teams_owner').ifExists().execute();
}
