// Where guides use a media item: step images, chosen guide images and step videos, a
// few of each. Only guides that are not deleted count (a deleted guide
// holds no media), and only those the item's owner may edit (they can take the item
// out first); a use in a guide the owner may not change never blocks their delete.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { MediaOwner } from '../media/media-usage.js';
import { readsEveryGuide } from './guides.access.js';

type GuidesEb = ExpressionBuilder<Database & { g: Database['guides'] }, 'g'>;

/** Live guides (alias `g`) the owner may edit: every one for Authors and Admins, else their own and those they collaborate on. */
function liveAndEditableBy(owner: MediaOwner) {
  return (eb: GuidesEb) => {
    const live = eb('g.deleted', '=', 0);
    if (readsEveryGuide(owner)) return live;
    return eb.and([live, eb.or([
      eb('g.userid', '=', owner.userid),
      eb('g.guideid', 'in', eb.selectFrom('guide_collaborators').select('guideid').where((c) => c.or([
        c.and([c('kind', '=', 'user'), c('memberid', '=', owner.userid)]),
        c.and([c('kind', '=', 'team'), c('memberid', 'in', c.selectFrom('team_members').select('teamid').where('userid', '=', owner.userid))]),
      ]))),
    ])]);
  };
}

/** The guides area's `mediaUsages` slot. */
export async function guideMediaUses(db: Kysely<Database>, kind: string, id: number, owner: MediaOwner | null): Promise<Array<{ type: string; id: number }>> {
  if (!owner) return [];
  const where = liveAndEditableBy(owner);
  const stepsOfGuides = () => db.selectFrom('guide_steps as s').innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'));
  if (kind === 'image') {
    const [steps, guides] = await Promise.all([
      stepsOfGuides().innerJoin('guide_step_images as i', 'i.stepid', 's.stepid').select('s.stepid').where('i.imageid', '=', id).where(where)
        .orderBy('s.stepid').limit(5).execute(),
      db.selectFrom('guides as g').select('g.guideid').where('g.imageid', '=', id).where(where).orderBy('g.guideid').limit(5).execute(),
    ]);
    return [...steps.map((s) => ({ type: 'guide_step', id: s.stepid })), ...[...new Set(guides.map((g) => g.guideid))].map((g) => ({ type: 'guide', id: g }))];
  }
  if (kind === 'video') {
    const steps = await stepsOfGuides().select('s.stepid').where('s.videoid', '=', id).where(where).orderBy('s.stepid').limit(5).execute();
    return steps.map((s) => ({ type: 'guide_step', id: s.stepid }));
  }
  return [];
}
