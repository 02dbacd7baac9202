import type { DemoContext } from '../area.js';

/** Two teams; the author leads the first, the moderator owns the second. */
export async function seedTeamsDemo(ctx: DemoContext) {
  const { db, clock, users } = ctx;
  const now = clock.now();
  const make = async (key: string, name: string, description: string, owner: number, members: Array<[number, boolean]>) => {
    const row = await db.insertInto('teams').values({
      name, name_lower: name.toLowerCase(), description, owner, location: 'Head office', latitude: null, longitude: null,
      reputation: 0, imageid: null, join_code: `${key}-join`, created_date: now,
    }).returning('teamid').executeTakeFirstOrThrow();
    for (const [userid, lead] of [[owner, true] as [number, boolean], ...members]) {
      await db.insertInto('team_members').values({ teamid: row.teamid, userid, is_lead: lead ? 1 : 0, join_date: now }).execute();
    }
    ctx.teams[key] = row.teamid;
  };
  await make('maintenance', 'Maintenance crew', 'Keeps the line running.', users.author, [[users.user, false]]);
  await make('quality', 'Quality assurance', 'Reviews and signs off releases.', users.moderator, [[users.user, false], [users.author, true]]);
  ctx.log('teams: Maintenance crew (lead: author), Quality assurance (owner: moderator)');
}
