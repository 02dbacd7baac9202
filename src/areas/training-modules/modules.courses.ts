// What the external training modules area asks of courses (through the shared contract,
// not the courses area): whether a learner is assigned to a course containing a module,
// and where a module is used.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { assignedStages } from '../shared/course-status.js';
import { wikiUrl } from '../wikis/wikis.queries.js';

export async function playableFor(db: Kysely<Database>, userid: number, moduleid: number): Promise<boolean> {
  return (await assignedStages(db, userid, { doctype: 'external_training_module', docid: moduleid })).length > 0;
}

/** The active stages of courses not deleted that point at the module (disabled courses only with `includeDisabled`; at most 200). */
export async function moduleUsage(db: Kysely<Database>, config: Config, moduleid: number, includeDisabled: boolean): Promise<Array<{ wikiid: number; title: string; course_stageid: number; url: string }>> {
  const rows = await db.selectFrom('course_stages as s').innerJoin('courses as c', 'c.wikiid', 's.wikiid')
    .select(['s.course_stageid', 's.wikiid', 'c.title'])
    .where('s.doctype', '=', 'external_training_module').where('s.docid', '=', moduleid).where('s.active', '=', 1).where('c.deleted', '=', 0)
    .$if(!includeDisabled, (q) => q.where('c.enabled', '=', 1))
    .orderBy('s.wikiid').orderBy('s.position').limit(200).execute();
  return rows.map((r) => ({ wikiid: r.wikiid, title: r.title, course_stageid: r.course_stageid, url: wikiUrl(config, 'COURSE', r.title) }));
}
