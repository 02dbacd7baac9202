// Where a media item is used. A library item that content still uses cannot be deleted
// (422 naming the uses), but only uses its owner can undo count: a reference made where
// the owner may not edit (someone else's avatar, a guide they may not change) never
// blocks the owner's delete; such a reference shows nothing once the item is gone.
// Each area that refers to media names its checks in its `Area.mediaUsages` slot; app.ts
// joins them into `app.mediaUsages`, which `deleteItem` asks:
//
//   mediaUsages: [async (db, kind, id, owner) =>
//     kind !== 'image' ? [] : (await db.selectFrom('wikis').select('wikiid').where('imageid', '=', id).limit(5).execute())
//       .map((w) => ({ type: 'wiki', id: w.wikiid }))],
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Privilege } from '../../http/auth.js';

export type UsageKind = 'image' | 'video' | 'document' | 'embed';

export interface MediaUse {
  /** What uses the item: guide_step, wiki, comment, user, team... */
  type: string;
  id: number;
}

/** The item's owner, from whose side uses are judged (null: an item without owner). */
export interface MediaOwner {
  userid: number;
  privileges: Privilege[];
}

export type MediaUsageCheck = (db: Kysely<Database>, kind: UsageKind, id: number, owner: MediaOwner | null) => Promise<MediaUse[]>;

/** Every check's uses of an item (`checks`: the areas' slots joined, `app.mediaUsages`). */
export async function findMediaUses(checks: readonly MediaUsageCheck[], db: Kysely<Database>, kind: UsageKind, id: number, owner: MediaOwner | null): Promise<MediaUse[]> {
  const out: MediaUse[] = [];
  for (const check of checks) out.push(...(await check(db, kind, id, owner)));
  return out;
}

/**
 * The foundation's own references (the media area's slot): the owner's avatar and images
 * of teams the owner leads. Other users' avatars are emptied by the foreign key when the image goes.
 */
export const foundationMediaUses: MediaUsageCheck = async (db, kind, id, owner) => {
  if (kind !== 'image' || !owner) return [];
  const users = await db.selectFrom('users').select('userid').where('imageid', '=', id).where('userid', '=', owner.userid).execute();
  const teams = await db.selectFrom('teams').select('teamid').where('imageid', '=', id)
    .where((eb) => eb.or([
      eb('owner', '=', owner.userid),
      eb('teamid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', owner.userid).where('is_lead', '=', 1)),
    ]))
    .orderBy('teamid').limit(5).execute();
  return [...users.map((u) => ({ type: 'user', id: u.userid })), ...teams.map((t) => ({ type: 'team', id: t.teamid }))];
};
