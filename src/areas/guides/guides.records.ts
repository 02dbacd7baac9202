// The guide's response records (light, full, step, bullet style), built from the rows
// guides.queries.ts loads, as a viewer sees them. Every record is built with a fixed
// number of batched queries whatever the size of the guide or the page: never a query
// per step, line, image or row.
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { toBool } from '../../db/helpers.js';
import type { ImageObject } from '../../http/schemas.js';
import { loadImageObjects } from '../media/image-object.js';
import { loadDocuments, loadVideoDetails } from '../media/media-records.js';
import { collectDocRefs, renderDoc, renderDocInline, wikiToDoc, type DocNode, type MarkupRefs } from '../../markup/index.js';
import { loadMarkupResolver } from '../content/render.js';
import type { FullGuide, LightGuide, Step } from './guides.schemas.js';
import type { ItemInputStored } from './guides.snapshots.js';
import { guideUrl } from './guides.urls.js';
import { commentsOnSteps } from '../comments/comments.queries.js';
import { preferredRow, readableColumn, visiblePrerequisites } from './guides.access.js';
import { loadFields, type FormField } from './guides.fields.js';
import { asReadersSee } from '../shared/guide-reader.js';
import { findGuideRow, flagsOfMany, lightSelect, loadBulletStyles, loadCurrentSource, loadCurrentSteps, parseJson, type BulletStyleRow, type BulletStyles, type Db, type GuideRow, type GuideSource, type LightRow, type LineSource, type StepSource } from './guides.queries.js';

/** What a prerequisite-derived value rests on: whether it could differ for another viewer. */
export interface PrereqDates {
  dates: Map<string, number>;
  /** True when a private row was among the candidates: what it shows depends on who asks. */
  dependsOnViewer: boolean;
}

/**
 * prereq_modified_date of many guides in one query: the newest modified_date among each
 * guide's prerequisites that `viewer` reads (0 when there are none), each prerequisite
 * counted in the language it is shown in (`preferredRow` among its readable rows).
 * Computed when read, so that editing a guide never writes the rows of the guides that
 * require it.
 */
export async function prereqDatesOf(db: Db, config: Config, rows: Array<{ guideid: number; langid: string }>, viewer: AuthUser | null): Promise<PrereqDates> {
  const dates = new Map<string, number>();
  if (rows.length === 0) return { dates, dependsOnViewer: false };
  const found = await db.selectFrom('guide_prereqs as p').innerJoin('guides as g', 'g.guideid', 'p.prereq_guideid')
    .select(['p.guideid', 'p.langid', 'g.guideid as prereqid', 'g.langid as prereq_langid', 'g.modified_date', 'g.public', readableColumn(viewer)])
    .where('p.guideid', 'in', [...new Set(rows.map((r) => r.guideid))]).where('g.deleted', '=', 0).execute();
  const candidates = new Map<string, Map<number, Array<{ langid: string; modified_date: number }>>>();
  for (const f of found) {
    if (!f.readable) continue;
    const key = `${f.guideid}/${f.langid}`;
    const byPrereq = candidates.get(key) ?? new Map<number, Array<{ langid: string; modified_date: number }>>();
    byPrereq.set(f.prereqid, [...(byPrereq.get(f.prereqid) ?? []), { langid: f.prereq_langid, modified_date: Number(f.modified_date) }]);
    candidates.set(key, byPrereq);
  }
  for (const [key, byPrereq] of candidates) {
    const langid = key.slice(key.indexOf('/') + 1);
    let newest = 0;
    for (const list of byPrereq.values()) newest = Math.max(newest, preferredRow(list, langid, config.languages[0])?.modified_date ?? 0);
    dates.set(key, newest);
  }
  return { dates, dependsOnViewer: found.some((f) => !toBool(f.public)) };
}

function lightOf(config: Config, r: LightRow, flags: Map<number, string[]>, images: Map<number, ImageObject>, prereqDates: Map<string, number>): LightGuide {
  const imageid = r.imageid ?? r.step_imageid;
  return {
    category: r.category,
    dataType: 'guide',
    flags: flags.get(r.guideid) ?? [],
    guideid: r.guideid,
    image: imageid ? images.get(imageid) ?? null : null,
    locale: r.langid,
    modified_date: r.modified_date,
    prereq_modified_date: prereqDates.get(`${r.guideid}/${r.langid}`) ?? 0,
    public: toBool(r.public),
    revisionid: r.revisionid,
    subject: r.subject,
    title: r.title,
    type: r.type,
    url: guideUrl(config, r.guideid, r.title, r.langid),
    userid: r.userid,
    username: r.username,
  };
}

/**
 * Light records for a page of rows as `viewer` sees them, with whether that could differ
 * for another viewer: three more queries (images, flags, prerequisites) for the page.
 */
export async function lightGuidePage(db: Db, config: Config, rowsAsStored: LightRow[], viewer: AuthUser | null, options: { current?: boolean } = {}) {
  // Every list shows everyone what readers see (areas/shared/guide-reader.ts); `current`: the
  // answer to an editor's own change of one guide, which goes on from its current revision.
  const rows = options.current ? rowsAsStored : await asReadersSee(db, rowsAsStored);
  const [flags, images, prereqs] = await Promise.all([
    flagsOfMany(db, rows.map((r) => r.guideid)),
    loadImageObjects(db, config, rows.map((r) => r.imageid ?? r.step_imageid)),
    prereqDatesOf(db, config, rows, viewer),
  ]);
  // `summary` rides along for suggest results; the light schema strips it from lists.
  const records: Array<LightGuide & { summary: string }> = rows.map((r) => ({ ...lightOf(config, r, flags, images, prereqs.dates), summary: r.summary }));
  return { records, dependsOnViewer: prereqs.dependsOnViewer };
}

/** Light records for a page of rows, as `viewer` sees them. */
export async function lightGuideRecords(db: Db, config: Config, rows: LightRow[], viewer: AuthUser | null): Promise<Array<LightGuide & { summary: string }>> {
  return (await lightGuidePage(db, config, rows, viewer)).records;
}

// ---------------------------------------------------------------- full records

export function bulletStyleRecord(s: BulletStyleRow) {
  return {
    bullet_styleid: s.bullet_styleid,
    type: s.type,
    is_default: toBool(s.is_default),
    color_locked: toBool(s.color_locked),
    label: s.label,
    description: s.description,
    is_disabled: toBool(s.is_disabled),
    bullet_color: s.bullet_color,
    size: s.size,
    imageid: s.imageid,
    char: s.char,
    last_modified: s.last_modified,
    userid_modified: s.userid_modified,
  };
}


/** What rendering and media lookups a set of steps needs, loaded in a fixed number of queries. */
interface BuildContext {
  config: Config;
  styles: BulletStyles;
  images: Map<number, ImageObject>;
  videos: Map<number, unknown>;
  fields: Map<number, FormField>;
}

function lineRecord(l: LineSource, ctx: BuildContext, html: string) {
  const style = (l.bullet_styleid !== null ? ctx.styles.byId.get(l.bullet_styleid) : undefined) ?? ctx.styles.byName.get(l.bullet) ?? ctx.styles.fallback;
  return {
    text_raw: l.text,
    text_rendered: html,
    bullet: l.bullet,
    bullet_styleid: style.bullet_styleid,
    bullet_style: bulletStyleRecord(style),
    level: l.level,
    lineid: l.lineid,
  };
}

function stepRecord(guideid: number, s: StepSource, ctx: BuildContext, renderLine: (l: LineSource) => string): Step {
  let media: Step['media'];
  const video = s.media?.type === 'video' ? ctx.videos.get(s.media.videoid) : undefined;
  if (video) media = { type: 'video', data: video as Step['media']['data'] };
  else {
    const ids = s.media?.type === 'image' ? s.media.imageids : [];
    media = { type: 'image', data: ids.map((id) => ctx.images.get(id)).filter((x): x is ImageObject => x !== undefined) };
  }
  const first = Array.isArray(media.data) ? media.data[0] : undefined;
  return {
    title: s.title,
    lines: s.lines.map((l) => lineRecord(l, ctx, renderLine(l))),
    guideid,
    stepid: s.stepid,
    orderby: s.orderby,
    revisionid: s.revisionid,
    imageURL: first?.standard ?? null,
    media,
    fields: s.fields.map((id) => ctx.fields.get(id)).filter((f): f is FormField => f !== undefined),
    comments: [],
  };
}

function mergeRefs(list: MarkupRefs[]): MarkupRefs {
  return {
    images: [...new Set(list.flatMap((r) => r.images))],
    videos: [...new Set(list.flatMap((r) => r.videos))],
    guides: [...new Set(list.flatMap((r) => r.guides))],
  };
}

/** Rendered texts kept between builds (guides.stored.ts), by key, valid while the texts are the same. */
export interface RenderedTexts {
  /** Those of `wanted` rendered before from the same texts and still young enough: one query. */
  get(wanted: Array<{ key: string; texts: string[] }>): Promise<Map<string, { html: string[]; builtAt: number }>>;
  put(key: string, texts: string[], html: string[]): void;
}

/**
 * Rendered texts kept between builds, for the steps being built: for each step, its lines' HTML.
 * `found` are those still valid for the texts being built (by stepid); `put` keeps what
 * was rendered anew.
 */
export interface StepFragments {
  found: Map<number, string[]>;
  put(stepid: number, texts: string[], html: string[]): void;
}

/**
 * Step records for steps of one guide, with their lines rendered and their comments:
 * styles, images, videos, the markup references and the comments, batched queries each.
 * With `fragments`, the steps found there are not parsed nor rendered again (nor their
 * markup's references loaded).
 */
export async function buildStepRecords(db: Db, config: Config, guideid: number, langid: string, steps: StepSource[], extraImageIds: number[] = [], extraDocs: DocNode[] = [], fragments?: StepFragments) {
  const lineDocs = new Map<number, DocNode>();
  for (const s of steps) if (!fragments?.found.has(s.stepid)) for (const l of s.lines) lineDocs.set(l.lineid, wikiToDoc(l.text));
  const stepImages = steps.flatMap((s) => (s.media?.type === 'image' ? s.media.imageids : []));
  const stepVideos = steps.flatMap((s) => (s.media?.type === 'video' ? [s.media.videoid] : []));
  const [styles, images, videos, resolver, comments, fields] = await Promise.all([
    // No steps (a guide without any, or whose step records are known): no lines to style.
    steps.length ? loadBulletStyles(db) : undefined,
    loadImageObjects(db, config, [...stepImages, ...extraImageIds]),
    stepVideos.length ? loadVideoDetails(db, config, stepVideos) : Promise.resolve(new Map<number, unknown>()),
    loadMarkupResolver(db, config, mergeRefs([...lineDocs.values(), ...extraDocs].map(collectDocRefs)), langid),
    commentsOnSteps(db, config, steps.map((s) => s.stepid).filter((id) => id > 0)),
    loadFields(db, steps.flatMap((s) => s.fields)),
  ]);
  const ctx: BuildContext | undefined = styles && { config, styles, images, videos: videos as Map<number, unknown>, fields };
  const records = !ctx ? [] : steps.map((s) => {
    const kept = fragments?.found.get(s.stepid);
    const html = kept ?? s.lines.map((l) => renderDocInline(lineDocs.get(l.lineid) ?? wikiToDoc(l.text), resolver));
    if (!kept && fragments && s.stepid > 0) fragments.put(s.stepid, s.lines.map((l) => l.text), html);
    const index = new Map(s.lines.map((l, i) => [l, i]));
    return { ...stepRecord(guideid, s, ctx, (l) => html[index.get(l)!]), comments: comments.get(s.stepid) ?? [] };
  });
  return { records, images, resolver };
}

function itemRecords(config: Config, type: 'part' | 'tool', items: ItemInputStored[], wikis: Map<string, number>) {
  return items.map((i) => ({
    type,
    title: i.title,
    wikiid: wikis.get(i.title) ?? null,
    quantity: i.quantity,
    notes: i.notes,
    url: `${config.publicUrl}/Item/${encodeURIComponent(i.title)}`,
  }));
}

/**
 * The fields of a guide's full record that show its row's columns alone, as they are:
 * nothing rendered, no other row read. A change of only the columns in `PLAIN_COLUMNS`
 * changes only these fields of the record (guides.changes.ts lays them over the record it
 * kept). Not `title` or `public`: links to the guide show them, its own text may link to
 * it, and the 'guide_titles' stamp follows them.
 */
export function rowFields(config: Config, row: GuideRow) {
  return {
    title: row.title,
    subject: row.subject,
    type: row.type,
    category: row.category,
    summary: row.summary,
    difficulty: row.difficulty,
    url: guideUrl(config, row.guideid, row.title, row.langid),
    public: toBool(row.public),
    revisionid: row.revisionid,
    modified_date: row.modified_date,
    created_date: row.created_date,
    published_date: row.published_date,
    time_required: row.time_required,
    time_required_min: row.time_required_min,
    time_required_max: row.time_required_max,
  };
}

/** Columns of a guide's row whose change shows in its record only through `rowFields`. */
export const PLAIN_COLUMNS: ReadonlySet<string> = new Set(['subject', 'type', 'category', 'summary', 'difficulty', 'time_required', 'time_required_min', 'time_required_max']);

/**
 * The full guide record from a source, as `viewer` sees it (prerequisites and the
 * values derived from them count only the guide rows the viewer reads), with whether it
 * could differ for another viewer. Queries, all batched: bullet styles, images, videos,
 * markup references (guides), prerequisites with their owners, flags, ITEM wikis,
 * prerequisite images. The result depends only on the revision read, the current state
 * of its prerequisites, flags and referenced media and guides: a cache keyed by
 * (guideid, langid, revisionid) must be invalidated on those too, and keyed by the
 * viewer when `dependsOnViewer`. With `rendered`, texts rendered by an earlier build and
 * unchanged since are not parsed nor rendered again (a comment does not re-render its
 * guide); `builtAt` is then the time of the oldest of them.
 */
export async function buildFullRecordFor(db: Db, config: Config, src: GuideSource, viewer: AuthUser | null, rendered?: RenderedTexts): Promise<{ record: FullGuide; dependsOnViewer: boolean; builtAt?: number }> {
  const { row } = src;
  // Texts rendered by an earlier build (the head: introduction and conclusion; each step's lines).
  const headKey = `g${row.guideid}/${row.langid}`;
  const stepKey = (stepid: number) => `s${stepid}`;
  const headTexts = [row.introduction, row.conclusion];
  const found = rendered
    ? await rendered.get([{ key: headKey, texts: headTexts }, ...src.steps.filter((s) => s.stepid > 0).map((s) => ({ key: stepKey(s.stepid), texts: s.lines.map((l) => l.text) }))])
    : new Map<string, { html: string[]; builtAt: number }>();
  const head = found.get(headKey);
  const introDoc = head ? null : wikiToDoc(row.introduction);
  const conclusionDoc = head ? null : wikiToDoc(row.conclusion);
  const stepFragments: StepFragments | undefined = rendered && {
    found: new Map(src.steps.flatMap((s) => {
      const f = found.get(stepKey(s.stepid));
      return f ? [[s.stepid, f.html] as const] : [];
    })),
    put: (stepid, texts, html) => rendered.put(stepKey(stepid), texts, html),
  };
  const parts = parseJson<ItemInputStored[]>(row.parts, []);
  const tools = parseJson<ItemInputStored[]>(row.tools, []);
  const documents = parseJson<number[]>(row.documents, []);
  const itemTitles = [...new Set([...parts, ...tools].map((i) => i.title))];
  const guideImage = row.imageid ?? row.step_imageid;

  const [built, prereqRows, flags, wikis, docs] = await Promise.all([
    buildStepRecords(db, config, row.guideid, row.langid, src.steps, guideImage ? [guideImage] : [], introDoc && conclusionDoc ? [introDoc, conclusionDoc] : [], stepFragments),
    src.prereqIds.length
      ? lightSelect(db).select(readableColumn(viewer)).where('g.guideid', 'in', src.prereqIds).where('g.deleted', '=', 0).execute()
      : Promise.resolve([]),
    flagsOfMany(db, [row.guideid, ...src.prereqIds]),
    itemTitles.length
      ? db.selectFrom('wikis').select(['wikiid', 'title']).where('namespace', '=', 'ITEM').where('title', 'in', itemTitles).execute()
      : Promise.resolve([]),
    loadDocuments(db, config, documents),
  ]);
  // Documents deleted from the library since drop out of the record.
  const guideDocuments = documents.flatMap((documentid) => {
    const d = docs.get(documentid);
    return d ? [{ documentid, url: d.url }] : [];
  });
  // Prerequisites are shown as readers see them (areas/shared/guide-reader.ts).
  const prereqs = visiblePrerequisites(await asReadersSee(db, prereqRows), src.prereqIds, row.langid, config.languages[0]);
  const [prereqImages, prereqDates] = await Promise.all([
    loadImageObjects(db, config, prereqs.map((p) => p.imageid ?? p.step_imageid)),
    prereqDatesOf(db, config, prereqs, viewer),
  ]);
  const ownPrereqDate = prereqs.reduce((max, p) => Math.max(max, p.modified_date), 0);
  const dependsOnViewer = prereqRows.some((p) => !toBool(p.public)) || prereqDates.dependsOnViewer;
  const wikiIds = new Map(wikis.map((w) => [w.title, w.wikiid]));
  const headHtml = head?.html ?? [renderDoc(introDoc!, built.resolver), renderDoc(conclusionDoc!, built.resolver)];
  if (!head) rendered?.put(headKey, headTexts, headHtml);

  const record: FullGuide = {
    conclusion_raw: row.conclusion,
    conclusion_rendered: headHtml[1],
    documents: guideDocuments,
    flags: flags.get(row.guideid) ?? [],
    guideid: row.guideid,
    image: guideImage ? built.images.get(guideImage) ?? null : null,
    introduction_raw: row.introduction,
    introduction_rendered: headHtml[0],
    featured_document_embed_url: guideDocuments[0]?.url ?? null,
    featured_document_thumbnail_url: null,
    locale: row.langid,
    parts: itemRecords(config, 'part', parts, wikiIds),
    prerequisites: prereqs.map((p) => {
      const light = lightOf(config, p, flags, prereqImages, prereqDates.dates);
      return {
        dataType: 'guide' as const,
        guideid: p.guideid,
        locale: p.langid,
        revisionid: p.revisionid,
        modified_date: p.modified_date,
        prereq_modified_date: light.prereq_modified_date,
        url: light.url,
        type: p.type,
        category: p.category,
        subject: p.subject,
        title: p.title,
        summary: p.summary,
        difficulty: p.difficulty,
        time_required_max: p.time_required_max,
        public: toBool(p.public),
        userid: p.userid,
        username: p.username,
        flags: light.flags,
        image: light.image,
      };
    }),
    steps: src.stepRecords ?? built.records,
    ...rowFields(config, row),
    prereq_modified_date: ownPrereqDate,
    tools: itemRecords(config, 'tool', tools, wikiIds),
    tags: src.tags,
    userid: row.userid,
    username: src.username,
    dataType: 'guide',
  };
  // A record that reuses rendered texts is as old as the oldest of them (what they show of linked guides and media).
  const builtAt = found.size ? Math.min(...[...found.values()].map((f) => f.builtAt)) : undefined;
  return { record, dependsOnViewer, builtAt };
}

/** The full guide record from a source, as `viewer` sees it. */
export async function buildFullRecord(db: Db, config: Config, src: GuideSource, viewer: AuthUser | null): Promise<FullGuide> {
  return (await buildFullRecordFor(db, config, src, viewer)).record;
}

/**
 * The full record of the current version of a guide in a language (undefined when it
 * does not exist or is deleted). The one function a read cache would wrap.
 */
export async function fullGuideRecord(db: Db, config: Config, guideid: number, langid: string | undefined, viewer: AuthUser | null): Promise<FullGuide | undefined> {
  const row = await findGuideRow(db, config, guideid, langid);
  if (!row) return undefined;
  return buildFullRecord(db, config, await loadCurrentSource(db, row), viewer);
}

/** The record of one step (its current state), or undefined. */
export async function stepRecordById(db: Db, config: Config, stepid: number): Promise<Step | undefined> {
  const step = await db.selectFrom('guide_steps').select(['guideid', 'langid']).where('stepid', '=', stepid).executeTakeFirst();
  if (!step) return undefined;
  const sources = await loadCurrentSteps(db, step.guideid, step.langid, [stepid]);
  if (sources.length === 0) return undefined;
  return (await buildStepRecords(db, config, step.guideid, step.langid, sources)).records[0];
}
