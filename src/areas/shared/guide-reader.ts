// Which revision of a guide a caller may see: the reader rule. Every path that shows a
// guide to a reader asks it (the guide's record, its XML and HTML page, lists, suggest,
// search, and other areas' feeds of guides: courses, quizzes, periodic review, view
// history, the work log). It sits below the areas, like guide-access.ts, so that every
// area can ask it without importing the guides or approvals area.
//
// Under an approval process a guide's row keeps what readers see (approvals.tables.ts):
// `reader_view` 1 while a process applies to it, and `reader_revisionid`, the revision
// readers see then (its last approved one; null before the first approval). Both are
// written in the transaction of whatever changes them (an approval, a process attached or
// detached, a guide created or moved to another category: `refreshReaderViews`), so that
// lists and search decide by the row alone, through an index, with no query per guide.
// Those who may edit a guide see its current revision in its own record and page; every
// list, suggestion, search result and feed shows everyone the reader revision.
import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { readsEveryGuide } from './guide-access.js';

type Db = Kysely<Database>;

/** The columns of a guide's row the rule reads. */
export interface ReaderColumns {
  revisionid: number;
  reader_view: number;
  reader_revisionid: number | null;
}

/** The revision readers who may not edit the guide see: its current one, another (approved) one, or null (none approved yet). */
export function readerRevisionOf(row: ReaderColumns): number | null {
  return row.reader_view ? row.reader_revisionid : row.revisionid;
}

/** The revision `row` shows a caller who may (or may not) edit the guide; null: nothing (404 `not_released`). */
export function revisionShown(row: ReaderColumns, mayEdit: boolean): number | null {
  return mayEdit ? row.revisionid : readerRevisionOf(row);
}

/** Whether readers see something other than the current revision: the answer then differs by caller (private, Vary). */
export function readerViewDiffers(row: ReaderColumns): boolean {
  return readerRevisionOf(row) !== row.revisionid;
}

/** SQL: the guides row aliased `alias` is shown to readers at all (no process, or an approved revision exists). */
export function listedForReaders(alias: string): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${alias}.reader_view`)} = 0 or ${sql.ref(`${alias}.reader_revisionid`)} is not null)`;
}

/** SQL: `user` may edit the guides row aliased `alias` (guideAccess's `edit`: Authors, Admins, its owner and collaborators). */
export function guideRowEditable(user: AuthUser | null | undefined, alias: string): Expression<SqlBool> {
  const eb = expressionBuilder<Database, never>();
  if (!user) return sql<SqlBool>`1 = 0`;
  if (readsEveryGuide(user)) return sql<SqlBool>`1 = 1`;
  const col = (c: string) => sql.ref<number>(`${alias}.${c}`);
  return eb.or([
    eb(col('userid'), '=', user.userid),
    eb(col('guideid'), 'in', eb.selectFrom('guide_collaborators').select('guideid').where('kind', '=', 'user').where('memberid', '=', user.userid)),
    eb(col('guideid'), 'in', eb.selectFrom('guide_collaborators').select('guideid').where('kind', '=', 'team')
      .where('memberid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', user.userid))),
  ]);
}

/**
 * SQL: the release aliased `release` of the guides row `alias` is shown to `user`: a
 * released (or removed) one to whoever reads the guide; one that is not (pending approval,
 * rejected, cancelled: it names a revision readers may never see) to its editors only.
 */
export function releaseShown(user: AuthUser | null | undefined, release: string, alias: string): Expression<SqlBool> {
  const eb = expressionBuilder<Database, never>();
  return eb.or([eb(sql.ref<string>(`${release}.status`), 'in', ['released', 'removed']), guideRowEditable(user, alias)]);
}

/**
 * The guideids of which readers see another revision than the current one (or none), as a
 * subquery: what stores only the current state (a guide's tags) leaves them out for readers.
 */
export function guidesAheadOfReaders(db: Db) {
  return db.selectFrom('guides as ahead').select('ahead.guideid').where('ahead.reader_view', '=', 1)
    .where((eb) => eb.or([eb('ahead.reader_revisionid', 'is', null), eb('ahead.reader_revisionid', '<>', eb.ref('ahead.revisionid'))]));
}

/**
 * The tags readers see on a guide's row: undefined when they are its current ones, else
 * those its reader revision kept (none before the first approval).
 */
export async function readerTags(db: Db, row: ReaderColumns): Promise<string[] | undefined> {
  if (!readerViewDiffers(row)) return undefined;
  if (row.reader_revisionid == null) return [];
  const rev = await db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', row.reader_revisionid).executeTakeFirst();
  const tags = rev ? (JSON.parse(rev.snapshot) as { tags?: string[] }).tags ?? [] : [];
  return [...tags].sort();
}

/**
 * Whether a caller may read `revisionid` of the guide (an explicit `revisionid` asked
 * for): editors any; readers, where no process applies, any; under a process, the reader
 * revision and released revisions only.
 */
export async function mayReadRevision(db: Db, row: ReaderColumns & { guideid: number; langid: string }, mayEdit: boolean, revisionid: number): Promise<boolean> {
  if (mayEdit || !row.reader_view || revisionid === row.reader_revisionid) return true;
  return !!(await db.selectFrom('guide_releases').select('releaseid').where('guideid', '=', row.guideid).where('langid', '=', row.langid)
    .where('revisionid', '=', revisionid).where('status', '=', 'released').limit(1).executeTakeFirst());
}

/** The field columns of a row a reader's overlay replaces from the reader revision's snapshot (texts and numbers as the row stores them). */
const OVERLAID = ['type', 'category', 'title', 'subject', 'summary', 'introduction', 'conclusion', 'difficulty', 'time_required',
  'time_required_min', 'time_required_max', 'imageid'] as const;
const OVERLAID_JSON = ['parts', 'tools', 'documents'] as const;

/**
 * Rows as readers see them, in one query for the page: a row whose readers see another
 * revision gets that revision's fields (and `revisionid`); a row readers do not see yet
 * (no approved revision) is left out. Rows without the reader columns pass unchanged.
 */
export async function asReadersSee<R extends ReaderColumns>(db: Db, rows: R[]): Promise<R[]> {
  const wanted = [...new Set(rows.filter((r) => readerViewDiffers(r) && r.reader_revisionid != null).map((r) => r.reader_revisionid!))];
  const snapshots = new Map<number, Record<string, unknown>>();
  if (wanted.length) {
    const revs = await db.selectFrom('guide_revisions').select(['revisionid', 'snapshot']).where('revisionid', 'in', wanted).execute();
    for (const r of revs) snapshots.set(r.revisionid, (JSON.parse(r.snapshot) as { fields: Record<string, unknown> }).fields);
  }
  const out: R[] = [];
  for (const r of rows) {
    if (!readerViewDiffers(r)) {
      out.push(r);
      continue;
    }
    const fields = r.reader_revisionid == null ? undefined : snapshots.get(r.reader_revisionid);
    if (!fields) continue;
    const copy = { ...r, revisionid: r.reader_revisionid } as unknown as Record<string, unknown>;
    for (const c of OVERLAID) if (c in copy && c in fields) copy[c] = fields[c];
    for (const c of OVERLAID_JSON) if (c in copy && c in fields) copy[c] = JSON.stringify(fields[c]);
    // The first step's image is the current steps': readers' record falls back to none.
    if ('step_imageid' in copy) copy.step_imageid = null;
    out.push(copy as R);
  }
  return out;
}

/**
 * Set beside a write of the reader columns: `public` written as it is, so that the
 * triggers of the list stamps ('guides', 'guide_reach': which guides make a page, which the
 * reader columns decide too) fire as for any change of what a list shows.
 */
export const READER_STAMPS = (eb: ExpressionBuilder<Database, 'guides'>) => ({ public: eb.ref('public') });

/** The process that applies to a guide (app.guideApprovals.processFor). */
export type ProcessFor = (db: Db, guide: { guideid: number; category: string }) => Promise<number | null>;

/**
 * Writes the reader columns of the guides rows `which` selects, inside the caller's
 * transaction: `reader_view` 1 where a process applies, and there, when no reader
 * revision is pinned yet, the newest released revision (else none). Bumps each changed
 * row's cache_stamp, so that kept records and list pages built from the row miss.
 * Called where what applies changes: an approval, a process attached or detached, a
 * guide created or filed under another category, a guide restored.
 */
export async function refreshReaderViews(db: Db, processFor: ProcessFor, which: { guideid: number; category?: string } | { categories: string[] }): Promise<void> {
  if ('categories' in which) {
    for (let i = 0; i < which.categories.length; i += 500) await refreshRows(db, processFor, (q) => q.where('category', 'in', which.categories.slice(i, i + 500)));
    return;
  }
  // `category`: the one a change in progress files the guide under (its row is written after).
  await refreshRows(db, processFor, (q) => q.where('guideid', '=', which.guideid), which.category);
}

type RowQuery = ReturnType<typeof readerRowsQuery>;
const readerRowsQuery = (db: Db) => db.selectFrom('guides').select(['guideid', 'langid', 'category', 'reader_view', 'reader_revisionid']);

async function refreshRows(db: Db, processFor: ProcessFor, where: (q: RowQuery) => RowQuery, category?: string): Promise<void> {
  const rows = (await where(readerRowsQuery(db)).orderBy('guideid').orderBy('langid').execute()).map((r) => (category === undefined ? r : { ...r, category }));
  const processes = new Map<string, number | null>();
  for (const r of rows) {
    const key = `${r.guideid} ${r.category}`;
    if (!processes.has(key)) processes.set(key, await processFor(db, r));
    const view = processes.get(key) != null ? 1 : 0;
    let pinned = r.reader_revisionid;
    if (view && pinned == null) {
      const released = await db.selectFrom('guide_releases').select('revisionid').where('guideid', '=', r.guideid).where('langid', '=', r.langid)
        .where('status', '=', 'released').orderBy('releaseid', 'desc').limit(1).executeTakeFirst();
      pinned = released?.revisionid ?? null;
    }
    if (view === r.reader_view && pinned === r.reader_revisionid) continue;
    await db.updateTable('guides').set((eb) => ({ reader_view: view, reader_revisionid: pinned, cache_stamp: eb('cache_stamp', '+', 1), ...READER_STAMPS(eb) }))
      .where('guideid', '=', r.guideid).where('langid', '=', r.langid).execute();
    // Its steps' search entries follow `reader_view` (migration 2026_12_04_1000): written again.
    if (view !== r.reader_view) await db.updateTable('guide_steps').set((eb) => ({ title: eb.ref('title') })).where('guideid', '=', r.guideid).where('langid', '=', r.langid).execute();
  }
}
