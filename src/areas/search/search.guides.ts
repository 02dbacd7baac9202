// Guide results of the suggester. INTERIM: the guides area is not in main yet; until
// it is, there are no guide results (its migration 1190 adds guides to the index).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';

export type GuideResult = Record<string, unknown>;

/** Light guide records with `summary`, by `${guideid}:${langid}`. */
export async function loadGuideResults(_db: Kysely<Database>, _config: Config, _keys: Array<{ guideid: number; langid: string }>): Promise<Map<string, GuideResult>> {
  return new Map();
}
