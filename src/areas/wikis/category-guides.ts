// What categories know about guides: the guides of a category, and which categories
// have public guides. INTERIM: the guides area is not in main yet; until it is, no
// category has guides. These functions are the only place the wikis area reads guides.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';

export type LightGuide = Record<string, unknown>;

/** Public guides of a category in `langid`, ordered by guideid. */
export async function categoryGuides(_db: Kysely<Database>, _config: Config, _category: string, _langid: string, _page: { offset: number; limit: number }): Promise<LightGuide[]> {
  return [];
}

/** Titles of the categories that hold at least one public guide. */
export async function categoriesWithPublicGuides(_db: Kysely<Database>): Promise<Set<string>> {
  return new Set();
}

/** Whether any guide (public or not) is filed under the category. */
export async function categoryHasGuides(_db: Kysely<Database>, _category: string): Promise<boolean> {
  return false;
}
