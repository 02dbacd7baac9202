// Guide results of the suggester: light guide records with `summary`, in one query
// (plus the light records' batched image, flag and prerequisite lookups).
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { LightGuide } from '../guides/guides.schemas.js';
import { lightGuideRecords } from '../guides/guides.records.js';
import { pageCheckOf, publicRowsCheck, publicRowsOf } from '../guides/guides.queries.js';

export const GuideResult = Type.Object({ ...LightGuide.properties, summary: Type.String() }, { description: 'Light guide record with `summary`.' });
export type GuideResult = LightGuide & { summary: string };

/**
 * Light guide records with `summary`, by `${guideid}:${langid}`; only public, not deleted
 * guides. `check`: what vouches for them besides the 'guides' stamp, and `again` reads it
 * as it is now (guides.queries.ts, pageCheckOf): a kept suggestion is kept on through an
 * edit of a guide it does not show.
 */
export async function loadGuideResults(db: Kysely<Database>, config: Config, keys: Array<{ guideid: number; langid: string }>): Promise<{ records: Map<string, GuideResult>; check: string; again: () => Promise<string> }> {
  const records = new Map<string, GuideResult>();
  const wanted = new Set(keys.map((k) => `${k.guideid}:${k.langid}`));
  const guideids = [...new Set(keys.map((k) => k.guideid))];
  const again = () => publicRowsCheck(db, guideids, wanted);
  if (keys.length === 0) return { records, check: pageCheckOf([]), again };
  const rows = await publicRowsOf(db, guideids, wanted);
  // Public rows only: derived values count what an anonymous reader reads.
  for (const r of await lightGuideRecords(db, config, rows, null)) records.set(`${r.guideid}:${r.locale}`, r);
  return { records, check: pageCheckOf(rows), again };
}
