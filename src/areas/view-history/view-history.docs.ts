// Whether a viewed document exists. INTERIM: guides are not in main yet; until they
// are, no guide exists.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export async function docExists(db: Kysely<Database>, docType: 'guide' | 'wiki', docid: number): Promise<boolean> {
  if (docType === 'wiki') return !!(await db.selectFrom('wikis').select('wikiid').where('wikiid', '=', docid).executeTakeFirst());
  return false;
}
