// Demo: supervisor ratings from the Maintenance crew's lead for Uma User on the demo
// course's guides, so that the skills matrix of the crew is filled.
import type { DemoContext } from '../area.js';
import { setSupervisorRatings } from './skills.service.js';

export async function seedSkillsDemo(ctx: DemoContext) {
  const { db, clock, users, ids } = ctx;
  if (!users.author || !users.user || !ids.guideLoto || !ids.guideReplacement || !ids.guideRepair) return;
  await setSupervisorRatings(db, clock, { seed: users.author }, [
    { userid: users.user, doctype: 'guide', docid: ids.guideLoto, rating: 0.75 },
    { userid: users.user, doctype: 'guide', docid: ids.guideReplacement, rating: 1 },
    { userid: users.user, doctype: 'guide', docid: ids.guideRepair, rating: 0.5 },
    { userid: users.author, doctype: 'guide', docid: ids.guideLoto, rating: 1 },
  ]);
  ctx.log('skills: supervisor ratings for Uma User on the three course guides (by Arthur Author, the crew lead)');
}
