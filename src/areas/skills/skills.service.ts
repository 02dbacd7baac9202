// Writes of the skills area.
import { inTx } from '../../db/transactions.js';
import type { Clock } from '../../clock.js';
import { selfOverride } from '../shared/oversight.js';
import type { Db } from './skills.queries.js';

/** Sets supervisor ratings (updating existing ones) in one transaction. */
export async function setSupervisorRatings(db: Db, clock: Clock, by: number, ratings: Array<{ userid: number; doctype: string; docid: number; rating: number }>): Promise<void> {
  const now = clock.now();
  await inTx(db, async (trx) => {
    for (const r of ratings) {
      const self_override = selfOverride(by, r.userid);
      await trx.insertInto('skills_supervisor_ratings').values({ ...r, rated_by: by, self_override, date: now })
        .onConflict((oc) => oc.columns(['userid', 'doctype', 'docid']).doUpdateSet({ rating: r.rating, rated_by: by, self_override, date: now })).execute();
    }
  });
}
