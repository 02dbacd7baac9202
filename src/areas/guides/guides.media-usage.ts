// Where guides use a media item: step images, chosen guide images and step videos, a few
// of each. The media area refuses to delete an item that content still uses.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { registerMediaUsage } from '../media/media-usage.js';

export async function guideMediaUses(db: Kysely<Database>, kind: string, id: number): Promise<Array<{ type: string; id: number }>> {
  if (kind === 'image') {
    const [steps, guides] = await Promise.all([
      db.selectFrom('guide_step_images').select('stepid').where('imageid', '=', id).orderBy('stepid').limit(5).execute(),
      db.selectFrom('guides').select('guideid').where('imageid', '=', id).orderBy('guideid').limit(5).execute(),
    ]);
    return [...steps.map((s) => ({ type: 'guide_step', id: s.stepid })), ...[...new Set(guides.map((g) => g.guideid))].map((g) => ({ type: 'guide', id: g }))];
  }
  if (kind === 'video') {
    const steps = await db.selectFrom('guide_steps').select('stepid').where('videoid', '=', id).orderBy('stepid').limit(5).execute();
    return steps.map((s) => ({ type: 'guide_step', id: s.stepid }));
  }
  return [];
}

registerMediaUsage(guideMediaUses);
