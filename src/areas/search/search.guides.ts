// Guide results of the suggester: light guide records with `summary`, in one query
// (plus the light records' batched image, flag and prerequisite lookups).
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { LightGuide } from '../guides/guides.schemas.js';
import { lightGuideRecords } from '../guides/guides.records.js';
import { lightSelect } from '../guides/guides.queries.js';

export const GuideResult = Type.Object({ ...LightGuide.properties, summary: Type.String() }, { description: 'Light guide record with `summary`.' });
export type GuideResult = LightGuide & { summary: string };

/** Light guide records with `summary`, by `${guideid}:${langid}`; only public, not deleted guides. */
export async function loadGuideResults(db: Kysely<Database>, config: Config, keys: Array<{ guideid: number; langid: string }>): Promise<Map<string, GuideResult>> {
  const out = new Map<string, GuideResult>();
  if (keys.length === 0) return out;
  // By guideid (one index probe each), the languages asked for picked here: an OR of
  // (guideid, langid) pairs cost SQLite a multi-index OR, twice the time.
  const wanted = new Set(keys.map((k) => `${k.guideid}:${k.langid}`));
  const rows = (await lightSelect(db)
    .where('g.guideid', 'in', [...new Set(keys.map((k) => k.guideid))])
    .where('g.public', '=', 1).where('g.deleted', '=', 0)
    .execute()).filter((r) => wanted.has(`${r.guideid}:${r.langid}`));
  // Public rows only: derived values count what an anonymous reader reads.
  for (const r of await lightGuideRecords(db, config, rows, null)) out.set(`${r.guideid}:${r.locale}`, r);
  return out;
}
