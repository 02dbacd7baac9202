// Row loaders of the periodic review area: no decisions about who may see what.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { ReviewDocumentTable, ReviewScheduleTable, ReviewTable } from './review.tables.js';
import type { GuideRow } from '../guides/guides.queries.js';
import type { WikiRow } from '../wikis/wikis.queries.js';
import { guideUrl } from '../guides/guides.urls.js';
import { wikiUrl } from '../wikis/wikis.queries.js';
import { asReadersSee } from '../shared/guide-reader.js';

export type Db = Kysely<Database>;
export type ScheduleRow = Selectable<ReviewScheduleTable>;
export type DocumentRow = Selectable<ReviewDocumentTable>;
export type ReviewRow = Selectable<ReviewTable>;
export type DocumentWithSchedule = DocumentRow & { schedule_name: string };

export interface DocRefKey { doctype: string; docid: number }
export const docKey = (d: DocRefKey) => `${d.doctype}:${d.docid}`;

export function findSchedule(db: Db, prsid: number) {
  return db.selectFrom('review_schedules').selectAll().where('prsid', '=', prsid).executeTakeFirst();
}

export function findDocument(db: Db, prdid: number) {
  return db.selectFrom('review_documents').selectAll().where('prdid', '=', prdid).executeTakeFirst();
}

export function findDocumentOf(db: Db, doctype: string, docid: number) {
  return db.selectFrom('review_documents').selectAll().where('doctype', '=', doctype).where('docid', '=', docid).executeTakeFirst();
}

/** Documents with their schedule's name joined (alias `d`). */
export function documentsSelect(db: Db) {
  return db.selectFrom('review_documents as d').innerJoin('review_schedules as s', 's.prsid', 'd.prsid').selectAll('d').select('s.name as schedule_name');
}

/** The reviewers of schedules: userids and teamids per prsid. */
export async function reviewersOf(db: Db, prsids: number[]): Promise<Map<number, { users: number[]; teams: number[] }>> {
  const out = new Map<number, { users: number[]; teams: number[] }>(prsids.map((p) => [p, { users: [], teams: [] }]));
  if (!prsids.length) return out;
  const rows = await db.selectFrom('review_schedule_reviewers').selectAll().where('prsid', 'in', prsids).orderBy('memberid').execute();
  for (const r of rows) out.get(r.prsid)?.[r.kind === 'team' ? 'teams' : 'users'].push(r.memberid);
  return out;
}

export async function documentCounts(db: Db, prsids: number[]): Promise<Map<number, number>> {
  if (!prsids.length) return new Map();
  const rows = await db.selectFrom('review_documents').select((eb) => ['prsid', eb.fn.countAll<number>().as('n')]).where('prsid', 'in', prsids).groupBy('prsid').execute();
  return new Map(rows.map((r) => [r.prsid, Number(r.n)]));
}

/** Open change requests per document. */
export async function openRequestCounts(db: Db, docs: DocRefKey[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const doctype of ['guide', 'wiki']) {
    const ids = [...new Set(docs.filter((d) => d.doctype === doctype).map((d) => d.docid))];
    if (!ids.length) continue;
    const rows = await db.selectFrom('review_reviews').select((eb) => ['docid', eb.fn.countAll<number>().as('n')])
      .where('doctype', '=', doctype).where('docid', 'in', ids).where('kind', '=', 'change_request').where('resolved_date', 'is', null)
      .groupBy('docid').execute();
    for (const r of rows) out.set(docKey({ doctype, docid: r.docid }), Number(r.n));
  }
  return out;
}

/** What a document is, for records and checks: its rows (guides: every language not deleted). */
export interface DocTarget {
  doctype: 'guide' | 'wiki';
  docid: number;
  guideRows: GuideRow[];
  wiki?: WikiRow;
}

/** The documents that exist (guides not deleted, wikis), by docKey. */
export async function loadTargets(db: Db, refs: DocRefKey[]): Promise<Map<string, DocTarget>> {
  const out = new Map<string, DocTarget>();
  const guideids = [...new Set(refs.filter((r) => r.doctype === 'guide').map((r) => r.docid))];
  const wikiids = [...new Set(refs.filter((r) => r.doctype === 'wiki').map((r) => r.docid))];
  if (guideids.length) {
    // As readers see them (areas/shared/guide-reader.ts).
    const rows = await asReadersSee(db, await db.selectFrom('guides').selectAll().where('guideid', 'in', guideids).where('deleted', '=', 0).orderBy('langid').execute());
    for (const g of rows) {
      const key = docKey({ doctype: 'guide', docid: g.guideid });
      const t = out.get(key) ?? { doctype: 'guide' as const, docid: g.guideid, guideRows: [] };
      t.guideRows.push(g);
      out.set(key, t);
    }
  }
  if (wikiids.length) {
    const rows = await db.selectFrom('wikis').selectAll().where('wikiid', 'in', wikiids).execute();
    for (const w of rows) out.set(docKey({ doctype: 'wiki', docid: w.wikiid }), { doctype: 'wiki', docid: w.wikiid, guideRows: [], wiki: w });
  }
  return out;
}

/** The row of a guide that stands for it: the site's default language, else the first. */
export const mainRow = (config: Config, t: DocTarget) => t.guideRows.find((g) => g.langid === config.languages[0]) ?? t.guideRows[0];

/** Title and URL of a document; a document that is gone keeps its key as title. */
export function titleAndUrl(config: Config, t: DocTarget | undefined, ref: DocRefKey): { title: string; url: string } {
  if (t?.wiki) return { title: t.wiki.display_title || t.wiki.title, url: wikiUrl(config, t.wiki.namespace, t.wiki.title) };
  const g = t ? mainRow(config, t) : undefined;
  if (g) return { title: g.title, url: guideUrl(config, g.guideid, g.title, g.langid === config.languages[0] ? undefined : g.langid) };
  return { title: `${ref.doctype} ${ref.docid} (deleted)`, url: '' };
}

/** Reviewers' e-mail addresses for a schedule: its users and the members of its teams, enabled accounts only. */
export async function reviewerEmails(db: Db, prsid: number): Promise<string[]> {
  const rows = await db.selectFrom('users').select('email').where('enabled', '=', 1)
    .where((eb) => eb.or([
      eb('userid', 'in', eb.selectFrom('review_schedule_reviewers').select('memberid').where('prsid', '=', prsid).where('kind', '=', 'user')),
      eb('userid', 'in', eb.selectFrom('team_members').select('team_members.userid')
        .where('team_members.teamid', 'in', eb.selectFrom('review_schedule_reviewers').select('memberid').where('prsid', '=', prsid).where('kind', '=', 'team'))),
    ]))
    .orderBy('userid').execute();
  return [...new Set(rows.map((r) => r.email))];
}
