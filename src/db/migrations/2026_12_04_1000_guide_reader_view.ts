// Frozen in time: never edit a migration that has landed; add a new one.
// What readers see of a guide under an approval process, kept on its row so that lists,
// suggest and search decide by the row alone (areas/shared/guide-reader.ts): `reader_view`
// 1 while a process applies to the guide; then `reader_revisionid` is the revision readers
// see (pinned here to the newest released revision where none was; null: none approved
// yet, and the guide is not listed, suggested or found). The search index of guides holds
// the texts readers see: under a process, those of the reader revision's snapshot, never
// the current (unapproved) row's.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';
import { createSearchSource, dropSearchSource, type SearchSource } from '../search.js';
import { guideSource as guideSourceBefore, stepSource as stepSourceBefore } from './2026_11_22_1300_search_guides.js';

/** The reader's value of a field: the row's, else (readers see another revision) its snapshot's. */
function readerField(pg: boolean, column: string): string {
  const fromSnapshot = pg ? `(r.snapshot::json #>> '{fields,${column}}')` : `json_extract(r.snapshot, '$.fields.${column}')`;
  return `(case when @reader_view = 1 and (@reader_revisionid is null or @reader_revisionid <> @revisionid)
    then coalesce((select ${fromSnapshot} from guide_revisions r where r.revisionid = @reader_revisionid), '') else @${column} end)`;
}

export function readerGuideSource(pg: boolean): SearchSource {
  const f = (c: string) => readerField(pg, c);
  return {
    ...guideSourceBefore,
    title: f('title'),
    body: `${f('subject')} || ' ' || ${f('summary')} || ' ' || ${f('category')} || ' ' || ${f('introduction')} || ' ' || ${f('conclusion')}`,
    visible: 'case when @public = 1 and @deleted = 0 and (@reader_view = 0 or @reader_revisionid is not null) then 1 else 0 end',
    // Not revisionid: an edit that changes no text indexed leaves the reader's texts as they were.
    watch: [...guideSourceBefore.watch, 'reader_view', 'reader_revisionid'],
  };
}

/**
 * Steps lead to their guide by their titles, which are current: a step of a guide under a
 * process is not indexed (its guide is found by the reader's texts above). The reader
 * columns' writer touches the steps of a guide whose `reader_view` changes.
 */
export const readerStepSource: SearchSource = {
  ...stepSourceBefore,
  visible: 'case when exists (select 1 from guides g where g.guideid = @guideid and g.langid = @langid and g.reader_view = 1) then 0 else 1 end',
};

/** The process that applies to each guide, as approvals.queries.ts processForGuide decides it (nearest category up, else the default of its era). */
async function guidesUnderProcess(db: Kysely<any>): Promise<Array<{ guideid: number; langid: string }>> {
  const any = await db.selectFrom('approval_processes').select('approval_processid').limit(1).execute();
  if (any.length === 0) return [];
  const categories = await db.selectFrom('wikis as w').leftJoin('approval_category_processes as a', 'a.wikiid', 'w.wikiid')
    .select(['w.wikiid', 'w.title', 'w.parentid', 'a.approval_processid']).where('w.namespace', '=', 'CATEGORY').execute() as Array<{ wikiid: number; title: string; parentid: number | null; approval_processid: number | null }>;
  const byId = new Map(categories.map((c) => [c.wikiid, c]));
  const byTitle = new Map(categories.map((c) => [c.title, c]));
  const attached = (title: string): boolean => {
    const seen = new Set<number>();
    let c = byTitle.get(title);
    while (c && !seen.has(c.wikiid) && seen.size < 1000) {
      if (c.approval_processid != null) return true;
      seen.add(c.wikiid);
      c = c.parentid == null ? undefined : byId.get(c.parentid);
    }
    return false;
  };
  const defaults = await db.selectFrom('approval_defaults').select(['from_guideid', 'approval_processid']).orderBy('from_guideid', 'desc').orderBy('defaultid', 'desc').execute() as Array<{ from_guideid: number; approval_processid: number | null }>;
  const defaultFor = (guideid: number) => defaults.find((d) => d.from_guideid <= guideid)?.approval_processid ?? null;
  const rows = await db.selectFrom('guides').select(['guideid', 'langid', 'category']).execute() as Array<{ guideid: number; langid: string; category: string }>;
  return rows.filter((r) => attached(r.category) || defaultFor(r.guideid) != null);
}

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema.alterTable('guides').addColumn('reader_view', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // The list index covers whether readers see a guide at all (guide-reader.ts listedForReaders),
  // so a page's keys are still found in the index alone.
  await db.schema.dropIndex('guides_list').execute();
  await db.schema.createIndex('guides_list').on('guides').columns(['deleted', 'public', 'guideid', 'langid', 'reader_view', 'reader_revisionid']).execute();
  const under = await guidesUnderProcess(db);
  for (const g of under) {
    await db.updateTable('guides').set({
      reader_view: 1,
      reader_revisionid: sql`coalesce(reader_revisionid, (select r.revisionid from guide_releases r where r.guideid = ${g.guideid} and r.langid = ${g.langid} and r.status = 'released' order by r.releaseid desc limit 1))`,
      cache_stamp: sql`cache_stamp + 1`,
    }).where('guideid', '=', g.guideid).where('langid', '=', g.langid).execute();
  }
  await dropSearchSource(db, guideSourceBefore);
  await createSearchSource(db, readerGuideSource(pg));
  await dropSearchSource(db, stepSourceBefore);
  await createSearchSource(db, readerStepSource);
  await keepGenericPlans(db);
}

/** The sync functions read the row: they keep generic plans, as 2026_11_27_0800_trigger_generic_plans set on their predecessors. */
async function keepGenericPlans(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const s of [guideSourceBefore, stepSourceBefore]) await sql.raw(`alter function search_${s.name}_sync() set plan_cache_mode = force_generic_plan`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropSearchSource(db, stepSourceBefore);
  await createSearchSource(db, stepSourceBefore);
  await dropSearchSource(db, guideSourceBefore);
  await createSearchSource(db, guideSourceBefore);
  await keepGenericPlans(db);
  await db.schema.dropIndex('guides_list').execute();
  await db.schema.createIndex('guides_list').on('guides').columns(['deleted', 'public', 'guideid', 'langid']).execute();
  await db.schema.alterTable('guides').dropColumn('reader_view').execute();
}
