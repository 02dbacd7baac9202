import type { Area } from '../area.js';
import type { BadgeRule } from '../users/badges.js';
import { tagsRoutes } from '../tags/tags.routes.js';
import { guidesRoutes } from './guides.routes.js';
import { guideStepsRoutes } from './guides.steps.routes.js';
import { guidePeopleRoutes } from './guides.people.routes.js';
import { guideReleasesRoutes } from './guides.releases.routes.js';
import { guidePages } from './guides.page.js';
import { seedGuidesDemo } from './guides.demo.js';
import { guideMediaUses } from './guides.media-usage.js';

/** The date a user created their n-th guide (counting each guideid once), or null. */
async function nthGuideDate(db: Parameters<BadgeRule['earnedAt']>[0], userid: number, n: number): Promise<number | null> {
  const row = await db.selectFrom('guides').select((eb) => ['guideid', eb.fn.min('created_date').as('d')])
    .where('userid', '=', userid).groupBy('guideid').orderBy('d').orderBy('guideid').limit(1).offset(n - 1).executeTakeFirst();
  return row?.d == null ? null : Number(row.d);
}

const guideBadges: BadgeRule[] = [
  { badgeid: 'first_guide', title: 'First guide', description: 'Created a guide.', level: 'bronze', earnedAt: (db, userid) => nthGuideDate(db, userid, 1) },
  { badgeid: 'ten_guides', title: 'Ten guides', description: 'Created ten guides.', level: 'silver', earnedAt: (db, userid) => nthGuideDate(db, userid, 10) },
];

export const guidesArea: Area = {
  name: 'guides',
  async routes(app) {
    await guidesRoutes(app);
    await guideStepsRoutes(app);
    await guidePeopleRoutes(app);
    await guideReleasesRoutes(app);
    await tagsRoutes(app);
  },
  publicRoutes: guidePages,
  seedDemo: seedGuidesDemo,
  badges: guideBadges,
  mediaUsages: [guideMediaUses],
};
