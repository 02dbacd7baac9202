// Loading guides: the rows of a guide and of its steps, lines and revisions, as they are
// stored. Who may read them is guides.access.ts; the records built from them are
// guides.records.ts. Every loader runs a fixed number of batched queries.
import { sha1 } from '../../http/conditional.js';
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { isPostgres, toBool } from '../../db/helpers.js';
import { sharedReads } from '../../db/shared-reads.js';
import { tagsOf } from '../tags/tags.queries.js';
import type { GuideBulletStyleTable, GuideTable } from './guides.tables.js';
import type { GuideSnapshot, LineSnapshot, StepMediaSource, StepSnapshot } from './guides.snapshots.js';
import { fieldIdsOf } from './guides.fields.js';
import { plannedAsAnyArray, prepared } from '../../db/prepared.js';
import { keptWhileUnchanged } from '../../db/kept-reads.js';
import type { Step } from './guides.schemas.js';

export type GuideRow = Selectable<GuideTable>;
export type Db = Kysely<Database>;

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * The guide's row in one language: `langid` when given; else the site's default
 * language when the guide has it, else its first language. Deleted rows only with
 * `includeDeleted`.
 */
export async function findGuideRow(db: Db, config: Config, guideid: number, langid?: string, opts: { includeDeleted?: boolean } = {}): Promise<GuideRow | undefined> {
  // The common case is one primary-key lookup (every read of a guide starts here): the
  // asked language, else the default language; only a guide without the default language
  // needs the ordered query.
  const deleted = opts.includeDeleted ? 1 : 0;
  const [row] = await guideRowIn(db, { guideid, langid: langid ?? config.languages[0], deleted });
  if (row || langid) return row;
  let q = db.selectFrom('guides').selectAll().where('guideid', '=', guideid);
  if (!opts.includeDeleted) q = q.where('deleted', '=', 0);
  return q.orderBy(sql`case when langid = ${config.languages[0]} then 0 else 1 end`).orderBy('langid').limit(1).executeTakeFirst();
}

/**
 * What a read of a guide decides before it touches the guide's texts: who may read it
 * (public, owner), which revision it serves and whether the cached record is still good
 * (revisionid, cache_stamp), what readers see under an approval process (category,
 * reader_revisionid), and, riding along so that it costs no second round trip, whether
 * the site has any approval process at all (`approvals`: 1 or 0). The full row (28
 * columns, the introduction and conclusion among them) is read only when a record is built.
 * (Not the 'guide_titles' stamp: only a read that misses the process cache needs it, and
 * on PostgreSQL summing its shards cost each head 8 to 10 µs of the database's CPU, a
 * quarter of the lookup: guides.cache.ts reads it then.)
 */
export type GuideHead = Pick<GuideRow, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp' | 'public' | 'userid' | 'category' | 'reader_revisionid' | 'reader_view'> & {
  approvals: number;
};

/** The guide's head in one language, found like `findGuideRow` (not deleted). */
export async function findGuideHead(db: Db, config: Config, guideid: number, langid?: string): Promise<GuideHead | undefined> {
  const head = await guideHead(db, guideid, langid ?? config.languages[0]);
  if (head || langid) return head;
  const row = await findGuideRow(db, config, guideid);
  return row && guideHead(db, guideid, row.langid);
}
const headSelect = (db: Db) => db.selectFrom('guides').select(['guideid', 'langid', 'revisionid', 'cache_stamp', 'public', 'userid', 'category', 'reader_revisionid', 'reader_view'])
  .select(sql<number>`case when exists (select 1 from approval_processes) then 1 else 0 end`.as('approvals'))
  .where('deleted', '=', 0);
const guideHeadIn = prepared<{ guideid: number; langid: string }, GuideHead>('guide_head', (db, arg) =>
  headSelect(db).where('guideid', '=', arg('guideid')).where('langid', '=', arg('langid')));
/** PostgreSQL: the heads of the guides that concurrent reads ask for, in one query (db/shared-reads.ts). */
const guideHeadsIn = prepared<{ guideids: number[]; langids: string[] }, GuideHead>('guide_heads', (db, arg) =>
  headSelect(db).where(sql<boolean>`guideid = any(${plannedAsAnyArray(arg('guideids'), 'int')})`).where(sql<boolean>`langid = any(${plannedAsAnyArray(arg('langids'), 'text')})`));
const readHeads = sharedReads<{ guideid: number; langid: string }, GuideHead[]>((db, keys) => (keys.length === 1
  ? guideHeadIn(db, keys[0])
  : guideHeadsIn(db, { guideids: [...new Set(keys.map((k) => k.guideid))], langids: [...new Set(keys.map((k) => k.langid))] })));

/**
 * SQLite: heads kept while nothing is written (db/kept-reads.ts): a read of a guide read
 * before costs no query then. 5 000 heads (about 1.5 MB) hold a hot set of 2 000.
 */
const keptHead = keptWhileUnchanged(5000, (k: { guideid: number; langid: string }) => `${k.guideid}:${k.langid}`,
  async (db, k) => (await guideHeadIn(db, k))[0]);

async function guideHead(db: Db, guideid: number, langid: string): Promise<GuideHead | undefined> {
  if (!isPostgres(db)) return keptHead(db, { guideid, langid });
  return (await readHeads(db, { guideid, langid })).find((h) => h.guideid === guideid && h.langid === langid);
}

/** The guide's row in one language (`deleted` 1: deleted rows too). */
const guideRowIn = prepared<{ guideid: number; langid: string; deleted: number }, GuideRow>('guide_row', (db, arg) =>
  db.selectFrom('guides').selectAll().where('guideid', '=', arg('guideid')).where('langid', '=', arg('langid')).where('deleted', '<=', arg('deleted')));

// ---------------------------------------------------------------- light records

/** What a light record shows of the guide's row. */
const LIGHT_ROW_COLUMNS = [
  'g.guideid', 'g.langid', 'g.revisionid', 'g.userid', 'g.type', 'g.category', 'g.title', 'g.subject', 'g.summary', 'g.difficulty',
  'g.time_required_max', 'g.public', 'g.imageid', 'g.step_imageid', 'g.modified_date', 'g.reader_view', 'g.reader_revisionid',
] as const;
const LIGHT_COLUMNS = [...LIGHT_ROW_COLUMNS, 'u.username'] as const;

/** The columns a light record needs, with the owner's name. */
export function lightSelect(db: Db) {
  return db.selectFrom('guides as g').innerJoin('users as u', 'u.userid', 'g.userid').select(LIGHT_COLUMNS);
}
export type LightRow = Awaited<ReturnType<ReturnType<typeof lightSelect>['execute']>>[number];

/** A page of guides as keys: `k.guideid` and `k.langid` of guides (`k`), filtered, ordered, limited and offset. */
export type GuideKeysQuery = SelectQueryBuilder<Database & { k: GuideTable }, 'k', { guideid: number; langid: string }>;

/** The guides, as `k`, to select a page of keys from (GET /guides, through lightRowsOfPage). */
export const guideKeys = (db: Db): GuideKeysQuery => db.selectFrom('guides as k').select(['k.guideid', 'k.langid']);

/** A light row of a page, with the row's `cache_stamp`, which vouches for the record built from it (pageCheckOf). */
export type PageRow = LightRow & { cache_stamp: number };

/**
 * The columns of a guide's row that vouch for its light record: which row, and its
 * cache_stamp, which moves with every change of the row itself and of what the record
 * shows of other rows (migrations 2026_11_22_1420 and 2026_11_28_2200).
 */
const PAGE_CHECK_KEYS = ['guideid', 'langid', 'cache_stamp'] as const;
type PageCheckKey = typeof PAGE_CHECK_KEYS[number];

/**
 * Light rows of one page, in the page's order (`dir` by guideid, then langid): the page's
 * keys are found first, in an index alone, and only its rows are read with their owners'
 * names. Read in one query, a deep page (offset 10 000) read every row it skipped and
 * joined its owner: 4.5 ms on SQLite at 100 000 guides, against 0.3 ms.
 */
export function lightRowsOfPage(db: Db, keys: GuideKeysQuery, dir: 'asc' | 'desc'): Promise<PageRow[]> {
  return db.selectFrom(keys.as('page'))
    .innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 'page.guideid').onRef('g.langid', '=', 'page.langid'))
    .innerJoin('users as u', 'u.userid', 'g.userid')
    .select([...LIGHT_COLUMNS, 'g.cache_stamp']).orderBy('g.guideid', dir).orderBy('g.langid', dir).execute();
}

/**
 * What vouches for a page of light records built from `rows`: which rows, in which order,
 * and each row's cache_stamp, which the triggers bump for everything a light record shows
 * (the row itself, its flags, images, owner's name and prerequisites: PAGE_CHECK_KEYS).
 * Equal checks, equal pages.
 */
export function pageCheckOf(rows: ReadonlyArray<Pick<PageRow, PageCheckKey>>): string {
  // A digest: kept with every page and suggestion.
  return sha1(JSON.stringify(rows.map((r) => PAGE_CHECK_KEYS.map((k) => r[k]))));
}

/**
 * What vouches for a kept page of the list (GET /guides): `reach`, the 'guide_reach' stamp
 * read before `rows`, the page's keys in its order, and pageCheckOf(rows). The keys and the
 * stamp let the next check read the page's rows by key (pageCheckAgain).
 */
export function pageCheckUnder(reach: number, rows: ReadonlyArray<Pick<PageRow, PageCheckKey>>): string {
  return `${reach}|${rows.map((r) => `${r.guideid}:${r.langid}`).join(',')}|${pageCheckOf(rows)}`;
}

/** Whether two checks of pageCheckUnder vouch for the same page (whatever 'guide_reach' was when each was read). */
export function samePage(kept: string, current: string): boolean {
  return kept.slice(kept.indexOf('|')) === current.slice(current.indexOf('|'));
}

/**
 * Whether a page `offset` rows deep is checked faster by its keys than by its own query
 * (pageCheckAgain): that query reads every key it skips, a key read on its own costs about
 * as much as fifty read in a row (SQLite, 100 000 guides, twenty rows: 22 µs at offset 0,
 * 42 at 1 000, 238 at 10 000, against 36 by key at any depth).
 */
export const checkedByKeys = (offset: number, limit: number) => offset >= 50 * limit;

/**
 * The check of a kept page as the rows are now (pageCheckUnder), under the 'guide_reach'
 * stamp `reach`, read before it. `filtered`: the guides the page's query selects from, with
 * its filters and no order, limit or offset; `page`: the page of them. While `reach` is
 * what the kept check was read under, and with `byKeys` (which guides and languages pass
 * the filters, and so which of them make the page, follow that stamp: no filter on a
 * column it does not follow; and the page is deep: checkedByKeys), the page holds the same
 * keys, and only their rows are read, by key. Otherwise the page's own query.
 */
export async function pageCheckAgain(filtered: GuideKeysQuery, page: (keys: GuideKeysQuery) => GuideKeysQuery, dir: 'asc' | 'desc', kept: string, reach: number, byKeys: boolean): Promise<string> {
  const [keptReach, keptKeys] = kept.split('|');
  if (!byKeys || Number(keptReach) !== reach) return pageCheckUnder(reach, await page(filtered).select('k.cache_stamp').execute());
  const wanted = keptKeys === '' ? [] : keptKeys.split(',');
  if (wanted.length === 0) return pageCheckUnder(reach, []);
  const guideids = [...new Set(wanted.map((k) => Number(k.slice(0, k.indexOf(':')))))];
  const rows = await filtered.select('k.cache_stamp').where('k.guideid', 'in', guideids).orderBy('k.guideid', dir).orderBy('k.langid', dir).execute();
  // The other languages of the page's guides that the page does not show (at its ends) are left out.
  const onPage = new Set(wanted);
  return pageCheckUnder(reach, rows.filter((r) => onPage.has(`${r.guideid}:${r.langid}`)));
}

/**
 * The public, not deleted rows of the guides `guideids` in the languages `wanted`
 * (`${guideid}:${langid}`), by guide and language: what a suggestion shows of its guides,
 * with what vouches for it (pageCheckOf). By guideid (one index probe each), the languages
 * picked here: an OR of (guideid, langid) pairs cost SQLite a multi-index OR, twice the time.
 */
export async function publicRowsOf(db: Db, guideids: number[], wanted: Set<string>): Promise<PageRow[]> {
  const rows = await lightSelect(db).select('g.cache_stamp').where('g.guideid', 'in', guideids).where('g.public', '=', 1).where('g.deleted', '=', 0)
    .orderBy('g.guideid').orderBy('g.langid').execute();
  return rows.filter((r) => wanted.has(`${r.guideid}:${r.langid}`));
}

/** The check of `publicRowsOf` as the rows are now: one query, no join of owners. */
export async function publicRowsCheck(db: Db, guideids: number[], wanted: Set<string>): Promise<string> {
  if (guideids.length === 0) return pageCheckOf([]);
  const rows = await db.selectFrom('guides as g').select(['g.guideid', 'g.langid', 'g.cache_stamp']).where('g.guideid', 'in', guideids).where('g.public', '=', 1).where('g.deleted', '=', 0)
    .orderBy('g.guideid').orderBy('g.langid').execute();
  return pageCheckOf(rows.filter((r) => wanted.has(`${r.guideid}:${r.langid}`)));
}

const flagsOfGuide = prepared<{ guideid: number }, { guideid: number; flagid: string }>('guide_flags_of', (db, arg) =>
  db.selectFrom('guide_flags').select(['guideid', 'flagid']).where('guideid', '=', arg('guideid')).orderBy('flagid'));

/** Flag ids of many guides in one query (prepared for one guide: a full record's). */
export async function flagsOfMany(db: Db, guideids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (guideids.length === 0) return out;
  const ids = [...new Set(guideids)];
  const rows = ids.length === 1 ? await flagsOfGuide(db, { guideid: ids[0] })
    : await db.selectFrom('guide_flags').select(['guideid', 'flagid']).where('guideid', 'in', ids).orderBy('flagid').execute();
  for (const r of rows) out.set(r.guideid, [...(out.get(r.guideid) ?? []), r.flagid]);
  return out;
}

// ---------------------------------------------------------------- full records

export type LineSource = LineSnapshot;
export interface StepSource {
  stepid: number;
  orderby: number;
  revisionid: number;
  title: string;
  media: StepMediaSource | null;
  lines: LineSource[];
  /** field_revisionids of its form fields, in order. */
  fields: number[];
}

/** Everything a full record is built from: the current tables, or a kept revision. */
export interface GuideSource {
  row: GuideRow;
  username: string;
  prereqIds: number[];
  tags: string[];
  steps: StepSource[];
  /**
   * The steps' records when they are known already (kept from a record of the same steps:
   * guides.changes.ts); `steps` is then empty, and nothing of the steps is loaded or built.
   */
  stepRecords?: Step[];
}

export type BulletStyleRow = Selectable<GuideBulletStyleTable>;

export async function loadBulletStyles(db: Db) {
  const rows = await db.selectFrom('guide_bullet_styles').selectAll().orderBy('bullet_styleid').execute();
  return { byId: new Map(rows.map((r) => [r.bullet_styleid, r])), byName: new Map(rows.map((r) => [r.name, r])), fallback: rows.find((r) => toBool(r.is_default)) ?? rows[0] };
}
export type BulletStyles = Awaited<ReturnType<typeof loadBulletStyles>>;

/** Steps, lines and step images of the current state of a guide: three queries, run together. */
export async function loadCurrentSteps(db: Db, guideid: number, langid: string, stepids?: number[]): Promise<StepSource[]> {
  const stepsOf = (eb: Db) => {
    let q = eb.selectFrom('guide_steps').select('stepid').where('guideid', '=', guideid).where('langid', '=', langid);
    if (stepids) q = q.where('stepid', 'in', stepids.length ? stepids : [0]);
    return q;
  };
  let stepQuery = db.selectFrom('guide_steps').selectAll().where('guideid', '=', guideid).where('langid', '=', langid);
  if (stepids) stepQuery = stepQuery.where('stepid', 'in', stepids.length ? stepids : [0]);
  const [steps, lines, images] = await Promise.all([
    stepQuery.orderBy('orderby').orderBy('stepid').execute(),
    db.selectFrom('guide_lines').selectAll().where('stepid', 'in', stepsOf(db)).orderBy('stepid').orderBy('orderby').execute(),
    db.selectFrom('guide_step_images').selectAll().where('stepid', 'in', stepsOf(db)).orderBy('stepid').orderBy('orderby').execute(),
  ]);
  const linesBy = new Map<number, LineSource[]>();
  for (const l of lines) linesBy.set(l.stepid, [...(linesBy.get(l.stepid) ?? []), { lineid: l.lineid, text: l.text, bullet: l.bullet, bullet_styleid: l.bullet_styleid, level: l.level }]);
  const imagesBy = new Map<number, number[]>();
  for (const i of images) imagesBy.set(i.stepid, [...(imagesBy.get(i.stepid) ?? []), i.imageid]);
  return steps.map((s) => ({
    stepid: s.stepid,
    orderby: s.orderby,
    revisionid: s.revisionid,
    title: s.title,
    media: s.media_type === 'video' && s.videoid ? { type: 'video', videoid: s.videoid } : { type: 'image', imageids: imagesBy.get(s.stepid) ?? [] },
    lines: linesBy.get(s.stepid) ?? [],
    fields: fieldIdsOf(s.fields),
  }));
}

// Read by every build of a guide's record, and (the prerequisites) by every edit's snapshot.
const usernameOf = prepared<{ userid: number }, { username: string }>('user_name', (db, arg) =>
  db.selectFrom('users').select('username').where('userid', '=', arg('userid')));
const prerequisitesOf = prepared<{ guideid: number; langid: string }, { prereq_guideid: number }>('guide_prereq_ids', (db, arg) =>
  db.selectFrom('guide_prereqs').select('prereq_guideid').where('guideid', '=', arg('guideid')).where('langid', '=', arg('langid')).orderBy('orderby'));

/** The ids of a guide's prerequisites, in their order. */
export async function prerequisiteIds(db: Db, guideid: number, langid: string): Promise<number[]> {
  return (await prerequisitesOf(db, { guideid, langid })).map((p) => p.prereq_guideid);
}

/** The current state of a guide, as a source for its record. */
export async function loadCurrentSource(db: Db, row: GuideRow, known?: Pick<GuideSource, 'prereqIds' | 'tags' | 'stepRecords'>): Promise<GuideSource> {
  const [owner, steps, prereqIds, tags] = await Promise.all([
    usernameOf(db, { userid: row.userid }),
    known?.stepRecords ? [] : loadCurrentSteps(db, row.guideid, row.langid),
    known?.prereqIds ?? prerequisiteIds(db, row.guideid, row.langid),
    known?.tags ?? tagsOf(db, 'guide', row.guideid),
  ]);
  return { row, username: owner[0]?.username ?? '', prereqIds, tags, steps, stepRecords: known?.stepRecords };
}

/** A kept revision of a guide, as a source for its record; undefined when it is not one of the guide's. */
export async function loadRevisionSource(db: Db, row: GuideRow, revisionid: number): Promise<GuideSource | undefined> {
  const rev = await db.selectFrom('guide_revisions').selectAll()
    .where('revisionid', '=', revisionid).where('guideid', '=', row.guideid).where('langid', '=', row.langid).executeTakeFirst();
  if (!rev) return undefined;
  const snap = parseJson<GuideSnapshot | null>(rev.snapshot, null);
  if (!snap) return undefined;
  const stepRevIds = snap.steps.map((s) => s.revisionid);
  const [[owner], stepRevs] = await Promise.all([
    usernameOf(db, { userid: snap.fields.userid }),
    stepRevIds.length ? db.selectFrom('guide_step_revisions').select(['revisionid', 'stepid', 'snapshot']).where('revisionid', 'in', stepRevIds).execute() : Promise.resolve([]),
  ]);
  const byRev = new Map(stepRevs.map((s) => [s.revisionid, s]));
  const steps: StepSource[] = [];
  snap.steps.forEach((ref, i) => {
    const s = byRev.get(ref.revisionid);
    const data = parseJson<StepSnapshot | null>(s?.snapshot, null);
    if (!data) return;
    steps.push({ stepid: ref.stepid, orderby: i + 1, revisionid: ref.revisionid, title: data.title, media: data.media, lines: data.lines, fields: data.fields ?? [] });
  });
  const f = snap.fields;
  const asRow: GuideRow = {
    ...row,
    ...f,
    public: f.public ? 1 : 0,
    parts: JSON.stringify(f.parts),
    tools: JSON.stringify(f.tools),
    documents: JSON.stringify(f.documents),
    deleted: snap.deleted ? 1 : 0,
    revisionid: rev.revisionid,
    modified_date: rev.date,
    step_imageid: steps.flatMap((s) => (s.media?.type === 'image' ? s.media.imageids : []))[0] ?? null,
  };
  return { row: asRow, username: owner?.username ?? '', prereqIds: snap.prerequisites, tags: snap.tags, steps };
}

