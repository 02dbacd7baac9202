// Where a media item is used. A library item that content still uses cannot be deleted
// (422 naming the uses). Each area that refers to media (guide steps, wikis, comments,
// user avatars...) registers a check once, at module load:
//
//   registerMediaUsage(async (db, kind, id) =>
//     kind !== 'image' ? [] : (await db.selectFrom('wikis').select('wikiid').where('imageid', '=', id).limit(5).execute())
//       .map((w) => ({ type: 'wiki', id: w.wikiid })));
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export type UsageKind = 'image' | 'video' | 'document' | 'embed';

export interface MediaUse {
  /** What uses the item: guide_step, wiki, comment, user, team... */
  type: string;
  id: number;
}

export type MediaUsageCheck = (db: Kysely<Database>, kind: UsageKind, id: number) => Promise<MediaUse[]>;

const checks: MediaUsageCheck[] = [];

/** Adds a check; each answers (a few of) the uses of one item. */
export function registerMediaUsage(check: MediaUsageCheck): void {
  if (!checks.includes(check)) checks.push(check);
}

/** Every registered check's uses of an item. */
export async function findMediaUses(db: Kysely<Database>, kind: UsageKind, id: number): Promise<MediaUse[]> {
  const out: MediaUse[] = [];
  for (const check of checks) out.push(...(await check(db, kind, id)));
  return out;
}

// The foundation's own references: user avatars and team images.
registerMediaUsage(async (db, kind, id) => {
  if (kind !== 'image') return [];
  const users = await db.selectFrom('users').select('userid').where('imageid', '=', id).orderBy('userid').limit(5).execute();
  const teams = await db.selectFrom('teams').select('teamid').where('imageid', '=', id).orderBy('teamid').limit(5).execute();
  return [...users.map((u) => ({ type: 'user', id: u.userid })), ...teams.map((t) => ({ type: 'team', id: t.teamid }))];
});
