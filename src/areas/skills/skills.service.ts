// Writes of the skills area.
import { inTx } from '../../db/transactions.js';
import type { Clock } from '../../clock.js';
import { selfOverride } from '../shared/oversight.js';
import type { Db } from './skills.queries.js';
import { audit } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

/**
 * Sets supervisor ratings (updating existing ones) in one transaction; each rating's audit
 * entry is on the rated user's record (resource `user`); the demo seeder's `{ seed: userid }`
 * writes none (docs/audit.md).
 */
export async function setSupervisorRatings(db: Db, clock: Clock, actor: AuthUser | { seed: number }, ratings: Array<{ userid: number; doctype: string; docid: number; rating: number }>): Promise<void> {
  const now = clock.now();
  await inTx(db, async (trx) => {
    for (const r of ratings) {
      const by = 'seed' in actor ? actor.seed : actor.userid;
      const self_override = selfOverride(by, r.userid);
      const old = await trx.selectFrom('skills_supervisor_ratings').select('rating').where('userid', '=', r.userid).where('doctype', '=', r.doctype).where('docid', '=', r.docid).executeTakeFirst();
      await trx.insertInto('skills_supervisor_ratings').values({ ...r, rated_by: by, self_override, date: now })
        .onConflict((oc) => oc.columns(['userid', 'doctype', 'docid']).doUpdateSet({ rating: r.rating, rated_by: by, self_override, date: now })).execute();
      if (!('seed' in actor)) await audit(trx, {
        action: 'skills.supervisor_rated', actor, time: now, resource_type: 'user', resource_id: r.userid,
        changes: { doctype: { new: r.doctype }, docid: { new: r.docid }, rating: { old: old ? Number(old.rating) : null, new: r.rating }, self_override: { new: self_override === 1 } },
      });
    }
  });
}
