// Writing guides: validation of what clients send, and the changes, each inside the
// caller's transaction. Optimistic concurrency: a change first locks the guide's row
// with `UPDATE ... WHERE revisionid = ?` (0 rows: stale), then applies itself and
// commits a new revision (a snapshot row whose id becomes the guide's revisionid).
// Every transaction locks the guide row before any step row, so two writers never wait
// on each other in opposite orders.
import type { Insertable, Updateable } from 'kysely';
import { invalidField, unprocessable, type FieldError } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { checkMediaRefs, embedRefs, mediaRefErrors, type MediaRef } from '../media/media.access.js';
import { addTag, normalizeTag, tagsOf } from '../tags/tags.queries.js';
import type { Db, BulletStyles } from './guides.queries.js';
import { parseJson, prerequisiteIds } from './guides.queries.js';
import { DIFFICULTIES, type ItemInput, type LineInput, type MediaInput } from './guides.schemas.js';
import type { GuideSnapshot, GuideSnapshotFields, ItemInputStored, StepMediaSource, StepSnapshot } from './guides.snapshots.js';
import { GUIDE_FIELD_COLUMNS, NEW_GUIDE_FIELDS, type GuideFieldColumn, type GuideRevisionTable, type GuideTable } from './guides.tables.js';
import type { GuideRow } from './guides.queries.js';
import { pickColumns } from '../../db/helpers.js';
import { guideRowReadable } from './guides.access.js';
import { fieldIdsOf, writeFields, type FieldValues } from './guides.fields.js';
import { StaleRevision } from '../content/revisions.js';
import { prepared } from '../../db/prepared.js';

/**
 * Locks the guide's row; with `expected`, only when it is at that revision (else
 * StaleRevision). The lock is a write that changes nothing (no trigger of the row's
 * stamps fires: they fire once, when `commitGuideRevisionRow` writes the change and the
 * revision, just before the commit, so that concurrent writers of other guides hold the
 * stamps' rows as briefly as possible). Answers the row as it is.
 */
export async function lockGuide(trx: Db, guideid: number, langid: string, expected?: number): Promise<GuideRow> {
  const [row] = expected === undefined ? await lockGuideRow(trx, { guideid, langid }) : await lockGuideAt(trx, { guideid, langid, expected });
  if (!row) throw new StaleRevision();
  return row;
}

// The statements every edit of a guide runs, compiled once (db/prepared.ts).
const lockGuideQuery = (db: Db, guideid: number, langid: string) =>
  db.updateTable('guides').set((eb) => ({ cache_stamp: eb.ref('cache_stamp') })).where('guideid', '=', guideid).where('langid', '=', langid);
const lockGuideRow = prepared<{ guideid: number; langid: string }, GuideRow>('guide_lock', (db, arg) =>
  lockGuideQuery(db, arg('guideid'), arg('langid')).returningAll());
const lockGuideAt = prepared<{ guideid: number; langid: string; expected: number }, GuideRow>('guide_lock_at', (db, arg) =>
  lockGuideQuery(db, arg('guideid'), arg('langid')).where('revisionid', '=', arg('expected')).returningAll());
const snapshotSteps = prepared<{ guideid: number; langid: string }, { stepid: number; revisionid: number; first_imageid: number | null }>('guide_snapshot_steps', (db, arg) =>
  db.selectFrom('guide_steps as s').select(['s.stepid', 's.revisionid'])
    .select((eb) => eb.selectFrom('guide_step_images as i').select('i.imageid').whereRef('i.stepid', '=', 's.stepid').orderBy('i.orderby').limit(1).as('first_imageid'))
    .where('s.guideid', '=', arg('guideid')).where('s.langid', '=', arg('langid')).orderBy('s.orderby').orderBy('s.stepid'));
const insertGuideRevision = prepared<Insertable<GuideRevisionTable>, { revisionid: number }>('guide_revision_insert', (db, arg) =>
  db.insertInto('guide_revisions').values({ guideid: arg('guideid'), langid: arg('langid'), userid: arg('userid'), date: arg('date'), action: arg('action'), snapshot: arg('snapshot') }).returning('revisionid'));

/** Locks the step's row at the expected revision, else StaleRevision naming the step (the 409 carries the step). */
export async function lockStep(trx: Db, stepid: number, now: number, expected: number): Promise<void> {
  const r = await trx.updateTable('guide_steps').set({ modified_date: now }).where('stepid', '=', stepid).where('revisionid', '=', expected).executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw new StaleRevision('step', stepid);
}

/** The row's owner and field columns as a revision keeps them. */
function snapshotFields(row: GuideRow): GuideSnapshotFields {
  const { public: isPublic, parts, tools, documents, ...plain } = pickColumns(row, GUIDE_FIELD_COLUMNS);
  return {
    userid: row.userid,
    ...plain,
    public: isPublic === 1,
    parts: parseJson<ItemInputStored[]>(parts, []),
    tools: parseJson<ItemInputStored[]>(tools, []),
    documents: parseJson<number[]>(documents, []),
  };
}

/** What the transaction already knows of the guide, so that its snapshot does not read it again. */
export interface KnownGuideState {
  /** The guide's row as the transaction found it (lockGuide's answer; nothing wrote it since). */
  row?: GuideRow;
  /** Columns of the row the change writes (with the revision, in one statement). */
  set?: Updateable<GuideTable>;
  /** The prerequisites, when the transaction has just written them. */
  prerequisites?: number[];
  /** The steps and prerequisites as the guide's last revision kept them, when the change writes neither and they are vouched current (guides.cache.ts, keptParts). */
  parts?: SnapshotParts;
}

/**
 * What a guide's snapshot keeps of its language besides its row: its steps (with the first
 * image among them) and prerequisites. Not its tags: they belong to the guide in every
 * language, and a tag written through another language makes no revision of this one.
 */
export interface SnapshotParts {
  steps: GuideSnapshot['steps'];
  stepImageid: number | null;
  prerequisites: number[];
}

/** A guide's snapshot, and the first image of its steps (the first step's with any, in their order; null when none has one). */
async function guideSnapshot(trx: Db, guideid: number, langid: string, now: number, known: KnownGuideState): Promise<{ snapshot: GuideSnapshot; stepImageid: number | null }> {
  const row = known.row ? { ...known.row, ...known.set, modified_date: now } as GuideRow : await trx.selectFrom('guides').selectAll().where('guideid', '=', guideid).where('langid', '=', langid).executeTakeFirstOrThrow();
  const prerequisites = known.prerequisites ?? known.parts?.prerequisites ?? await prerequisiteIds(trx, guideid, langid);
  const { steps, stepImageid } = known.parts ?? await snapshotStepsOf(trx, guideid, langid);
  const tags = await tagsOf(trx, 'guide', guideid);
  const snapshot = { fields: snapshotFields(row), deleted: row.deleted === 1, prerequisites, tags, steps };
  return { snapshot, stepImageid };
}

/** The guide's steps as a snapshot keeps them, and the first image among them (the first step's with any, in their order). */
async function snapshotStepsOf(trx: Db, guideid: number, langid: string): Promise<Pick<SnapshotParts, 'steps' | 'stepImageid'>> {
  const steps = await snapshotSteps(trx, { guideid, langid });
  return {
    steps: steps.map((s) => ({ stepid: s.stepid, revisionid: s.revisionid })),
    stepImageid: steps.find((s) => s.first_imageid != null)?.first_imageid ?? null,
  };
}

/** Keeps the guide's current state as a new revision; returns its revisionid. */
export async function commitGuideRevision(trx: Db, guideid: number, langid: string, userid: number | null, now: number, action: string, known: KnownGuideState = {}): Promise<number> {
  return (await commitGuideRevisionRow(trx, guideid, langid, userid, now, action, known)).row.revisionid;
}

/** A guide as a change committed it: its row, and the tags, steps and prerequisites (`parts`) its revision keeps. */
export interface CommittedGuide {
  row: GuideRow;
  tags: string[];
  parts: SnapshotParts;
}

/**
 * Keeps the guide's current state (with `known.set` written) as a new revision and makes
 * it current, with the image of its first step, in one statement; answers the guide as
 * committed.
 */
export async function commitGuideRevisionRow(trx: Db, guideid: number, langid: string, userid: number | null, now: number, action: string, known: KnownGuideState = {}): Promise<CommittedGuide> {
  const { snapshot, stepImageid } = await guideSnapshot(trx, guideid, langid, now, known);
  const [rev] = await insertGuideRevision(trx, { guideid, langid, userid, date: now, action, snapshot: JSON.stringify(snapshot) });
  // The image of its steps as a value read with them: SQLite ran this update 6 times slower
  // (120 µs against 20 at 100 000 guides, the guide's triggers included) with it as a subquery.
  // Set only when it changed (most edits): SQLite rewrites the entry of every index on a
  // column the statement sets, changed or not, one more page for the commit to write.
  const imageChanged = known.row === undefined || known.row.step_imageid !== stepImageid;
  // The row's stamp moved here, not by its trigger (2026_11_28_2200): SQLite's RETURNING
  // does not show what an AFTER trigger wrote, and the answer is cached under the stamp.
  const row = await trx.updateTable('guides').set((eb) => ({
    ...known.set,
    revisionid: rev.revisionid,
    modified_date: now,
    cache_stamp: eb('cache_stamp', '+', 1),
    ...(imageChanged ? { step_imageid: stepImageid } : {}),
  })).where('guideid', '=', guideid).where('langid', '=', langid).returningAll().executeTakeFirstOrThrow();
  const parts = { steps: snapshot.steps, stepImageid, prerequisites: snapshot.prerequisites };
  return { row, tags: snapshot.tags, parts };
}

async function stepSnapshot(trx: Db, stepid: number): Promise<StepSnapshot> {
  const step = await trx.selectFrom('guide_steps').selectAll().where('stepid', '=', stepid).executeTakeFirstOrThrow();
  const lines = await trx.selectFrom('guide_lines').select(['lineid', 'text', 'bullet', 'bullet_styleid', 'level']).where('stepid', '=', stepid).orderBy('orderby').execute();
  let media: StepMediaSource;
  if (step.media_type === 'video' && step.videoid) media = { type: 'video', videoid: step.videoid };
  else {
    const images = await trx.selectFrom('guide_step_images').select('imageid').where('stepid', '=', stepid).orderBy('orderby').execute();
    media = { type: 'image', imageids: images.map((i) => i.imageid) };
  }
  return { title: step.title, lines, media, fields: fieldIdsOf(step.fields) };
}

/** Keeps the step's current state as a new step revision; returns its revisionid. */
export async function commitStepRevision(trx: Db, stepid: number, guideid: number, langid: string, userid: number | null, now: number, action: string): Promise<number> {
  const snapshot = await stepSnapshot(trx, stepid);
  const rev = await trx.insertInto('guide_step_revisions').values({ stepid, guideid, langid, userid, date: now, action, snapshot: JSON.stringify(snapshot) })
    .returning('revisionid').executeTakeFirstOrThrow();
  await trx.updateTable('guide_steps').set({ revisionid: rev.revisionid, modified_date: now }).where('stepid', '=', stepid).execute();
  return rev.revisionid;
}

// ---------------------------------------------------------------- guide fields

export interface GuideFieldsInput {
  type?: string;
  category?: string;
  title?: string;
  subject?: string;
  introduction?: string;
  conclusion?: string;
  summary?: string;
  difficulty?: string;
  time_required?: string;
  time_required_min?: number;
  time_required_max?: number;
  public?: boolean;
  prerequisites?: number[];
  parts?: ItemInput[];
  tools?: ItemInput[];
  documents?: number[];
  imageid?: number | null;
}

/** Column values (and prerequisite list) after validation. */
export interface GuideFields {
  set: Updateable<Pick<GuideTable, GuideFieldColumn>>;
  prerequisites?: number[];
}

const TYPE_LABEL = (t: string) => t.split(/[-_ ]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');

export function defaultTitle(category: string, subject: string, type: string): string {
  return [category, subject, TYPE_LABEL(type)].map((s) => s.trim()).filter(Boolean).join(' ').slice(0, 255);
}

function formatSeconds(s: number): string {
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} minutes`;
  const h = s / 3600;
  return `${Number.isInteger(h) ? h : h.toFixed(1)} hour${h === 1 ? '' : 's'}`;
}

export function timeRequiredText(min: number, max: number): string {
  if (max <= 0) return '';
  if (min <= 0 || min === max) return formatSeconds(max);
  return `${formatSeconds(min)} - ${formatSeconds(max)}`;
}

function itemsOf(items: ItemInput[]): ItemInputStored[] {
  return items.map((i) => (typeof i === 'string' ? { title: i.trim(), quantity: 1, notes: '' } : { title: i.title.trim(), quantity: i.quantity ?? 1, notes: i.notes ?? '' }));
}

/**
 * Checks the guide fields a client sent (422 naming each bad field) and turns them into
 * column values. `current` is the guide being edited (undefined on create).
 */
export async function validateGuideFields(db: Db, user: AuthUser, b: GuideFieldsInput, current?: { guideid: number; time_required_min: number; time_required_max: number }): Promise<GuideFields> {
  const errors: FieldError[] = [];
  const mediaRefs: MediaRef[] = [];
  const set: GuideFields['set'] = {};
  for (const f of ['type', 'subject', 'introduction', 'conclusion', 'summary'] as const) if (b[f] !== undefined) set[f] = f === 'subject' ? b[f]!.trim() : b[f];
  if (b.title !== undefined) {
    if (!b.title.trim()) errors.push({ field: 'title', code: 'invalid_value', message: 'title must not be blank.' });
    set.title = b.title.trim();
  }
  if (b.category !== undefined) {
    const category = b.category.trim();
    const wiki = category ? await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', category).executeTakeFirst() : undefined;
    if (!wiki) errors.push({ field: 'category', code: 'invalid_value', message: `There is no CATEGORY wiki titled "${category}".` });
    set.category = category;
  }
  if (b.difficulty !== undefined) {
    const d = b.difficulty.trim();
    const match = DIFFICULTIES.find((x) => x.toLowerCase() === d.toLowerCase());
    if (d && !match) errors.push({ field: 'difficulty', code: 'invalid_value', message: `difficulty must be one of: ${DIFFICULTIES.join(', ')}.` });
    set.difficulty = match ?? '';
  }
  const min = b.time_required_min ?? current?.time_required_min ?? 0;
  const max = b.time_required_max ?? current?.time_required_max ?? 0;
  if (b.time_required_min !== undefined || b.time_required_max !== undefined) {
    if (max < min) errors.push({ field: 'time_required_max', code: 'out_of_range', message: 'time_required_max must not be below time_required_min.' });
    set.time_required_min = min;
    set.time_required_max = max;
    if (b.time_required === undefined) set.time_required = timeRequiredText(min, max);
  }
  if (b.time_required !== undefined) set.time_required = b.time_required.trim();
  if (b.public !== undefined) set.public = b.public ? 1 : 0;

  let prerequisites: number[] | undefined;
  if (b.prerequisites !== undefined) {
    prerequisites = [...new Set(b.prerequisites)];
    const existing = prerequisites.length
      // Only guides the caller reads in some language: another's private guide is as unknown as a missing one.
      ? new Set((await db.selectFrom('guides as g').select('g.guideid').where('g.guideid', 'in', prerequisites).where('g.deleted', '=', 0).where(guideRowReadable(user, 'g')).execute()).map((r) => r.guideid))
      : new Set<number>();
    b.prerequisites.forEach((id, i) => {
      if (current && id === current.guideid) errors.push({ field: `prerequisites[${i}]`, code: 'invalid_value', message: 'A guide cannot be its own prerequisite.', index: i });
      else if (!existing.has(id)) errors.push({ field: `prerequisites[${i}]`, code: 'invalid_value', message: `There is no guide ${id}.`, index: i });
    });
  }
  for (const kind of ['parts', 'tools'] as const) {
    const list = b[kind];
    if (list === undefined) continue;
    const items = itemsOf(list);
    const titles = [...new Set(items.map((i) => i.title).filter(Boolean))];
    const known = titles.length
      ? new Set((await db.selectFrom('wikis').select('title').where('namespace', '=', 'ITEM').where('title', 'in', titles).execute()).map((r) => r.title))
      : new Set<string>();
    items.forEach((item, i) => {
      if (!known.has(item.title)) errors.push({ field: `${kind}[${i}]`, code: 'invalid_value', message: `There is no ITEM wiki titled "${item.title}".`, index: i });
    });
    set[kind] = JSON.stringify(items);
  }
  if (b.documents !== undefined) {
    const ids = [...new Set(b.documents)];
    mediaRefs.push(...b.documents.map((id, i) => ({ kind: 'document' as const, id, field: `documents[${i}]`, index: i })));
    set.documents = JSON.stringify(ids);
  }
  if (b.imageid !== undefined) {
    if (b.imageid !== null) mediaRefs.push({ kind: 'image', id: b.imageid, field: 'imageid' });
    set.imageid = b.imageid;
  }
  mediaRefs.push(...embedRefs([{ field: 'introduction', text: b.introduction }, { field: 'conclusion', text: b.conclusion }]));
  errors.push(...(await mediaRefErrors(db, user, mediaRefs)));
  if (errors.length) throw unprocessable(errors);
  return { set, prerequisites };
}

export async function setPrerequisites(trx: Db, guideid: number, langid: string, ids: number[]) {
  await trx.deleteFrom('guide_prereqs').where('guideid', '=', guideid).where('langid', '=', langid).execute();
  if (ids.length) await trx.insertInto('guide_prereqs').values(ids.map((prereq_guideid, orderby) => ({ guideid, langid, prereq_guideid, orderby }))).execute();
}

export function checkTag(raw: string, field = 'tag'): string {
  const tag = normalizeTag(raw);
  if (!tag) throw invalidField(field, 'The tag must not be blank.');
  if (tag.length > 100) throw invalidField(field, 'A tag has at most 100 characters.', 'out_of_range');
  return tag;
}

export interface NewGuide {
  guideid?: number;
  langid: string;
  userid: number;
  fields: GuideFields;
  tags: string[];
}

/** Inserts a guide (or a translation of one) and its first revision; returns the guideid. */
export async function insertGuide(trx: Db, now: number, g: NewGuide): Promise<number> {
  const guideid = g.guideid ?? (await trx.insertInto('guide_ids').values({ created_date: now }).returning('guideid').executeTakeFirstOrThrow()).guideid;
  const row: Insertable<GuideTable> = {
    ...NEW_GUIDE_FIELDS,
    ...g.fields.set,
    guideid,
    langid: g.langid,
    revisionid: 0,
    userid: g.userid,
    deleted: 0,
    deleted_date: null,
    step_imageid: null,
    created_date: now,
    modified_date: now,
    published_date: g.fields.set.public === 1 ? now : null,
  };
  await trx.insertInto('guides').values(row).execute();
  if (g.fields.prerequisites?.length) await setPrerequisites(trx, guideid, g.langid, g.fields.prerequisites);
  for (const tag of g.tags) await addTag(trx, 'guide', guideid, tag);
  await commitGuideRevision(trx, guideid, g.langid, g.userid, now, 'create');
  return guideid;
}

// ---------------------------------------------------------------- steps

export interface LineValues { lineid: number | null; text: string; bullet: string; bullet_styleid: number; level: number }
export type MediaValues = { type: 'image'; imageids: number[] } | { type: 'video'; videoid: number } | null;

/** Checks step lines: a known bullet style, levels 0 to 3 with the first at 0, text not blank. */
export function validateLines(lines: LineInput[], styles: BulletStyles, field = 'lines'): LineValues[] {
  const errors: FieldError[] = [];
  const out = lines.map((l, i) => {
    if (!l.text.trim()) errors.push({ field: `${field}[${i}].text`, code: 'invalid_value', message: 'A line\'s text must not be blank.', index: i });
    let style = styles.fallback;
    if (l.bullet_styleid !== undefined) {
      const s = styles.byId.get(l.bullet_styleid);
      if (!s || s.is_disabled) errors.push({ field: `${field}[${i}].bullet_styleid`, code: 'invalid_value', message: `There is no bullet style ${l.bullet_styleid}.`, index: i });
      else style = s;
    } else if (l.bullet !== undefined) {
      const s = styles.byName.get(l.bullet.trim().toLowerCase());
      if (!s || s.is_disabled) errors.push({ field: `${field}[${i}].bullet`, code: 'invalid_value', message: `bullet must be one of: ${[...styles.byName.keys()].join(', ')}.`, index: i });
      else style = s;
    }
    const level = l.level ?? 0;
    if (i === 0 && level !== 0) errors.push({ field: `${field}[0].level`, code: 'invalid_value', message: 'The first line is at level 0.', index: 0 });
    return { lineid: l.lineid ?? null, text: l.text, bullet: style.name, bullet_styleid: style.bullet_styleid, level };
  });
  if (errors.length) throw unprocessable(errors);
  return out;
}

/** Checks step media: existing images (in order) or one existing video. */
export async function validateMedia(db: Db, user: AuthUser, m: MediaInput | null | undefined): Promise<MediaValues | undefined> {
  if (m === undefined) return undefined;
  if (m === null) return null;
  if (m.type === 'image') {
    if (!Array.isArray(m.data)) throw invalidField('media.data', 'Image media take an array of imageids.');
    const ids = m.data;
    const errors: FieldError[] = [];
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i) errors.push({ field: `media.data[${i}]`, code: 'duplicate', message: `Image ${id} is already in the step.`, index: i });
    });
    if (errors.length) throw unprocessable(errors);
    await checkMediaRefs(db, user, ids.map((id, i) => ({ kind: 'image', id, field: `media.data[${i}]`, index: i })));
    return { type: 'image', imageids: ids };
  }
  if (typeof m.data !== 'number') throw invalidField('media.data', 'Video media take one videoid.');
  await checkMediaRefs(db, user, [{ kind: 'video', id: m.data, field: 'media.data' }]);
  return { type: 'video', videoid: m.data };
}

/** Step lines may embed only media the caller may use (422 naming the line). */
export async function checkLineEmbeds(db: Db, user: AuthUser, lines: Array<{ text: string }>, field = 'lines') {
  await checkMediaRefs(db, user, embedRefs(lines.map((l, i) => ({ field: `${field}[${i}].text`, text: l.text }))));
}

/** Writes a step's lines: kept lineids stay, others are new. */
export async function writeLines(trx: Db, stepid: number, lines: LineValues[]) {
  const existing = new Set((await trx.selectFrom('guide_lines').select('lineid').where('stepid', '=', stepid).execute()).map((r) => r.lineid));
  await trx.deleteFrom('guide_lines').where('stepid', '=', stepid).execute();
  const used = new Set<number>();
  for (const [orderby, l] of lines.entries()) {
    const keep = l.lineid !== null && existing.has(l.lineid) && !used.has(l.lineid) ? l.lineid : null;
    const values = { stepid, orderby, text: l.text, bullet: l.bullet, bullet_styleid: l.bullet_styleid, level: l.level };
    if (keep !== null) {
      used.add(keep);
      await trx.insertInto('guide_lines').values({ ...values, lineid: keep }).execute();
    } else await trx.insertInto('guide_lines').values(values).execute();
  }
}

export async function writeMedia(trx: Db, stepid: number, media: MediaValues) {
  await trx.deleteFrom('guide_step_images').where('stepid', '=', stepid).execute();
  if (media?.type === 'image' && media.imageids.length) {
    await trx.insertInto('guide_step_images').values(media.imageids.map((imageid, orderby) => ({ stepid, orderby, imageid }))).execute();
  }
  await trx.updateTable('guide_steps').set({ media_type: media ? media.type : null, videoid: media?.type === 'video' ? media.videoid : null }).where('stepid', '=', stepid).execute();
}

/** Steps of a guide in order. */
export async function stepIdsInOrder(trx: Db, guideid: number, langid: string): Promise<number[]> {
  return (await trx.selectFrom('guide_steps').select('stepid').where('guideid', '=', guideid).where('langid', '=', langid).orderBy('orderby').orderBy('stepid').execute()).map((r) => r.stepid);
}

/** Numbers the steps 1..n in the given order. */
export async function writeStepOrder(trx: Db, stepids: number[]) {
  for (const [i, stepid] of stepids.entries()) await trx.updateTable('guide_steps').set({ orderby: i + 1 }).where('stepid', '=', stepid).execute();
}

/** Moves `stepid` to 1-based position `position` (clamped) among the guide's steps. */
export async function moveStep(trx: Db, guideid: number, langid: string, stepid: number, position: number) {
  const order = (await stepIdsInOrder(trx, guideid, langid)).filter((id) => id !== stepid);
  order.splice(Math.min(Math.max(position, 1), order.length + 1) - 1, 0, stepid);
  await writeStepOrder(trx, order);
}

export interface NewStep { title: string; orderby?: number; lines: LineValues[]; media: MediaValues; fields?: FieldValues[] }

/** Inserts a step at its position and keeps its first revision; returns the stepid. */
export async function insertStep(trx: Db, guideid: number, langid: string, userid: number | null, now: number, s: NewStep): Promise<number> {
  const row = await trx.insertInto('guide_steps').values({
    guideid, langid, orderby: 1_000_000, revisionid: 0, title: s.title, media_type: null, videoid: null, created_date: now, modified_date: now,
  }).returning('stepid').executeTakeFirstOrThrow();
  await writeLines(trx, row.stepid, s.lines);
  await writeMedia(trx, row.stepid, s.media);
  if (s.fields?.length) await writeFields(trx, row.stepid, s.fields, now);
  await moveStep(trx, guideid, langid, row.stepid, s.orderby ?? Number.MAX_SAFE_INTEGER);
  await commitStepRevision(trx, row.stepid, guideid, langid, userid, now, 'create');
  return row.stepid;
}

