// What the external training modules area asks of courses: whether a learner is assigned
// to a course containing a module, and where a module is used.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';

export async function playableFor(_db: Kysely<Database>, _userid: number, _moduleid: number): Promise<boolean> {
  return false;
}

export async function moduleUsage(_db: Kysely<Database>, _config: Config, _moduleid: number): Promise<Array<{ wikiid: number; title: string; course_stageid: number; url: string }>> {
  return [];
}
