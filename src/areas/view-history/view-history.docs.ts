// Whether a viewed document exists (a deleted guide still has its history).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export async function docExists(db: Kysely<Database>, docType: 'guide' | 'wiki', docid: number): Promise<boolean> {
  if (docType === 'wiki') return !!(await db.selectFrom('wikis').select('wikiid').where('wikiid', '=', docid).executeTakeFirst());
  return !!(await db.selectFrom('guides').select('guideid').where('guideid', '=', docid).limit(1).executeTakeFirst());
}
