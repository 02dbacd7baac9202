// Row loaders of the courses area.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { guideUrl } from '../guides/guides.urls.js';
import { wikiUrl } from '../wikis/wikis.queries.js';
import type { CourseAssignmentTable, CourseStageTable, CourseTable } from './courses.tables.js';
import { asReadersSee } from '../shared/guide-reader.js';

type Db = Kysely<Database>;
export type CourseRow = Selectable<CourseTable>;
export type StageRow = Selectable<CourseStageTable>;
export type AssignmentRow = Selectable<CourseAssignmentTable>;

/** A course not deleted (deleted ones keep their records but are not served). */
export function findCourse(db: Db, wikiid: number) {
  return db.selectFrom('courses').selectAll().where('wikiid', '=', wikiid).where('deleted', '=', 0).executeTakeFirst();
}

export function findAssignment(db: Db, course_assignmentid: number) {
  return db.selectFrom('course_assignments').selectAll().where('course_assignmentid', '=', course_assignmentid).executeTakeFirst();
}

/** The active stages of these courses, by course and position. */
export async function stagesOf(db: Db, wikiids: number[]): Promise<StageRow[]> {
  if (!wikiids.length) return [];
  return db.selectFrom('course_stages').selectAll().where('wikiid', 'in', wikiids).where('active', '=', 1).orderBy('wikiid').orderBy('position').execute();
}

export const docKey = (d: { doctype: string; docid: number }) => `${d.doctype}:${d.docid}`;

/** The title and page of each document a stage names, in one query per kind. */
export async function docInfo(db: Db, config: Config, docs: Array<{ doctype: string; docid: number }>): Promise<Map<string, { title: string; url: string }>> {
  const out = new Map<string, { title: string; url: string }>();
  const guideids = [...new Set(docs.filter((d) => d.doctype === 'guide').map((d) => d.docid))];
  const wikiids = [...new Set(docs.filter((d) => d.doctype === 'wiki').map((d) => d.docid))];
  const lang = config.languages[0];
  if (guideids.length) {
    // As readers see them (areas/shared/guide-reader.ts).
    const rows = await asReadersSee(db, await db.selectFrom('guides').select(['guideid', 'langid', 'title', 'revisionid', 'reader_view', 'reader_revisionid']).where('guideid', 'in', guideids).orderBy('guideid').orderBy('langid').execute());
    for (const r of rows) {
      const key = docKey({ doctype: 'guide', docid: r.guideid });
      if (!out.has(key) || r.langid === lang) out.set(key, { title: r.title, url: guideUrl(config, r.guideid, r.title, r.langid) });
    }
  }
  if (wikiids.length) {
    const rows = await db.selectFrom('wikis').select(['wikiid', 'namespace', 'title', 'display_title']).where('wikiid', 'in', wikiids).execute();
    for (const r of rows) out.set(docKey({ doctype: 'wiki', docid: r.wikiid }), { title: r.display_title || r.title, url: wikiUrl(config, r.namespace, r.title) });
  }
  const moduleids = [...new Set(docs.filter((d) => d.doctype === 'external_training_module').map((d) => d.docid))];
  if (moduleids.length) {
    const rows = await db.selectFrom('training_modules').select(['external_training_moduleid', 'title']).where('external_training_moduleid', 'in', moduleids).execute();
    for (const r of rows) out.set(docKey({ doctype: 'external_training_module', docid: r.external_training_moduleid }), { title: r.title, url: `${config.publicUrl}/ExternalTrainingModules/${r.external_training_moduleid}` });
  }
  for (const d of docs) {
    if (!out.has(docKey(d))) out.set(docKey(d), d.doctype === 'external_training_module'
      ? { title: `Training module ${d.docid}`, url: `${config.publicUrl}/ExternalTrainingModules/${d.docid}` }
      : { title: '', url: '' });
  }
  return out;
}

/** The current revision of a guide (its default-language row, else its first) or a wiki; null when it does not exist. */
export async function currentDocRevision(db: Db, config: Config, doctype: string, docid: number): Promise<number | null | undefined> {
  if (doctype === 'guide') {
    const rows = await db.selectFrom('guides').select(['langid', 'revisionid']).where('guideid', '=', docid).where('deleted', '=', 0).orderBy('langid').execute();
    return (rows.find((r) => r.langid === config.languages[0]) ?? rows[0])?.revisionid;
  }
  if (doctype === 'wiki') return (await db.selectFrom('wikis').select('revisionid').where('wikiid', '=', docid).executeTakeFirst())?.revisionid;
  return null;
}

export const courseUrl = (config: Config, wikiid: number) => `${config.publicUrl}/Courses/View/${wikiid}`;
export const viewUrl = (wikiid: number) => `/Courses/View/${wikiid}`;
