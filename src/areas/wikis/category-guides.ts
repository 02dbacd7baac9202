// What categories know about guides: the guides of a category, and which categories
// have public guides. These functions are the only place the wikis area reads guides.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { LightGuide } from '../guides/guides.schemas.js';
import { lightGuideRecords } from '../guides/guides.records.js';
import { lightSelect } from '../guides/guides.queries.js';

export type { LightGuide };

/** Public guides of a category in `langid`, ordered by guideid (index guides_category). */
export async function categoryGuides(db: Kysely<Database>, config: Config, category: string, langid: string, page: { offset: number; limit: number }): Promise<LightGuide[]> {
  const rows = await lightSelect(db)
    .where('g.category', '=', category).where('g.langid', '=', langid).where('g.public', '=', 1).where('g.deleted', '=', 0)
    .orderBy('g.guideid').limit(page.limit).offset(page.offset).execute();
  // Public rows only: derived values count what an anonymous reader reads.
  return lightGuideRecords(db, config, rows, null);
}

/** Titles of the categories that hold at least one public guide. */
export async function categoriesWithPublicGuides(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db.selectFrom('guides').select('category').distinct()
    .where('public', '=', 1).where('deleted', '=', 0).where('category', '!=', '').execute();
  return new Set(rows.map((r) => r.category));
}

/**
 * Whether any guide that is not deleted (public or not) is filed under the category. A
 * deleted guide holds no category: restoring it asks for another when its own is gone.
 */
export async function categoryHasGuides(db: Kysely<Database>, category: string): Promise<boolean> {
  return !!(await db.selectFrom('guides').select('guideid').where('category', '=', category).where('deleted', '=', 0).limit(1).executeTakeFirst());
}
