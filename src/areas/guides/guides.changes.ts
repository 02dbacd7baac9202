// Changing a guide: the one transaction that checks the revision, applies a change and
// keeps a new revision (the mechanism of content/revisions.ts), and the named changes
// the routes call.
import { refreshReaderViews } from '../shared/guide-reader.js';
import type { Updateable } from 'kysely';
import type { GuideTable } from './guides.tables.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../../http/errors.js';
import type { Db } from './guides.queries.js';
import type { GuideContext } from './guides.access.js';
import { buildFullRecordFor, fullGuideRecord, PLAIN_COLUMNS, rowFields, stepRecordById } from './guides.records.js';
import { cacheStamp, invalidateGuide, keptParts, keptRecord, keptSteps, sendCachedGuide } from './guides.cache.js';
import { loadCurrentSource, type GuideRow } from './guides.queries.js';
import {
  commitGuideRevisionRow, commitStepRevision, lockGuide, lockStep, moveStep, setPrerequisites, writeLines, writeMedia,
  type CommittedGuide, type GuideFields, type LineValues, type MediaValues,
} from './guides.service.js';
import { writeFields, type FieldValues } from './guides.fields.js';
import { answeringConflict, NothingToChange, unlessUnchanged } from '../content/revisions.js';
import { addTag, removeTag } from '../tags/tags.queries.js';
import { auditGuideChange, type GuideChangeAction } from './guides.audit.js';
import type { AuditChanges } from '../../audit/audit.js';

export interface ChangeOptions {
  /** The revisionid the client sent; undefined for changes that take none. */
  expected?: number;
  /** The revision's action; the audit log's entry is named after it (guides.audit.ts). */
  action: GuideChangeAction;
  /** What the audit entry names beside the row's changed columns (a step, the prerequisites): fields without values. */
  audited?: AuditChanges;
  /** Columns of the guide's row the change writes (given the change's time and the row as locked): written with the new revision. */
  set?: (now: number, locked: GuideRow) => Updateable<GuideTable>;
  /** The prerequisites, when `fn` writes them (the snapshot then does not read them back). */
  prerequisites?: number[];
  /** `fn` writes no step (prerequisites only as `prerequisites`): the snapshot may take them as this process kept them (keptParts). */
  keepsParts?: boolean;
}

/**
 * Runs `fn` in one transaction: locks the guide's row (at the expected revision, else
 * 409 with the current guide, or the current step when `fn` finds its step stale),
 * applies the change and keeps the result as a new guide revision, written with the
 * change's columns (`opts.set`) in one statement. Answers undefined when `fn` throws
 * NothingToChange. `fn` never writes the guide's row itself (its columns go in
 * `opts.set`): the snapshot keeps the row as the lock found it, with `opts.set`.
 */
export async function changeGuide<T>(app: FastifyInstance, ctx: GuideContext, opts: ChangeOptions, fn?: (trx: Db, now: number) => Promise<T>): Promise<T | undefined> {
  return (await changeGuideRow(app, ctx, opts, fn))?.out;
}

/** changeGuide, answering also the guide's row as the change locked it and as it committed it. */
async function changeGuideRow<T>(app: FastifyInstance, ctx: GuideContext, opts: ChangeOptions, fn?: (trx: Db, now: number) => Promise<T>): Promise<{ out: T | undefined; locked: GuideRow; committed: CommittedGuide } | undefined> {
  const { guideid, langid } = ctx.row;
  const now = app.clock.now();
  return answeringConflict(() => unlessUnchanged(() => app.db.transaction().execute(async (trx) => {
    const locked = await lockGuide(trx, guideid, langid, opts.expected);
    const parts = opts.keepsParts ? keptParts(app).get(locked) : undefined;
    const out = fn ? await fn(trx, now) : undefined;
    const set = opts.set?.(now, locked);
    const committed = await commitGuideRevisionRow(trx, guideid, langid, ctx.user?.userid ?? null, now, opts.action, { row: locked, set, prerequisites: opts.prerequisites, parts });
    await auditGuideChange(trx, ctx.user, now, opts, locked, set, committed.row.revisionid);
    return { out, locked, committed };
  }).then((done) => {
    keptParts(app).set(done.committed.row, done.committed.parts);
    return done;
  })), async (stale) => {
    if (stale.kind === 'step' && stale.stepid !== undefined) {
      const step = await stepRecordById(app.db, app.config, stale.stepid);
      if (!step) throw notFound('Step');
      return step;
    }
    const current = await fullGuideRecord(app.db, app.config, guideid, langid, ctx.user);
    if (!current) throw notFound('Guide');
    return current;
  });
}

/** The full record of a guide after a change, as the caller may see it. */
export async function currentGuide(app: FastifyInstance, ctx: GuideContext) {
  const record = await fullGuideRecord(app.db, app.config, ctx.row.guideid, ctx.row.langid, ctx.user);
  if (!record) throw notFound('Guide');
  return record;
}

/**
 * The full record of a guide as a change committed it, as the caller may see it: built
 * after the transaction from the row it wrote and the prerequisites and tags its
 * revision kept (none of them read again), through the read cache under the committed
 * (revisionid, cache_stamp): the texts it did not change are not rendered again, and the
 * next read of the guide in this process finds the answer kept (guides.cache.ts).
 * `stepsOf`: the row as the change locked it, when the change wrote no step: the steps of
 * the record this process keeps at that row's stamps are taken as they are (`keptSteps`).
 * They were current when the lock was taken (the stamps say so, as for a hit), and every
 * write that would change them takes the same row's lock (a new revision, or a trigger
 * bumping its cache_stamp), so they are current at the commit too.
 * `plain`: the change wrote only plain columns of the row (PLAIN_COLUMNS), so the same
 * holds of the whole record this process keeps for anyone at those stamps, but for the
 * fields the row shows as they are (`rowFields`): those are laid over it, nothing is read.
 */
async function sendCommittedGuide(app: FastifyInstance, reply: FastifyReply, ctx: GuideContext, committed: CommittedGuide | undefined, stepsOf?: GuideRow, plain = false) {
  if (!committed || committed.row.deleted) return currentGuide(app, ctx);
  const { row } = committed;
  const whole = plain && stepsOf && keptRecord(app, stepsOf);
  if (whole) {
    // No titles' stamp: nothing is stored or rendered (justCommitted).
    const head = { guideid: row.guideid, langid: row.langid, revisionid: row.revisionid, cache_stamp: row.cache_stamp };
    return sendCachedGuide(app, reply, head, ctx.user, async () => ({
      record: { ...whole.record, ...rowFields(app.config, row) },
      dependsOnViewer: false,
      keptSince: whole.keptSince,
      spliced: { key: 'steps', bytes: whole.steps },
    }), { justCommitted: true, titlesStamp: -1 });
  }
  const kept = stepsOf && keptSteps(app, stepsOf);
  // Read before the build reads the titles it vouches for, like a read's head.
  const titles = await cacheStamp(app.db, 'guide_titles');
  const head = { guideid: row.guideid, langid: row.langid, revisionid: row.revisionid, cache_stamp: row.cache_stamp };
  return sendCachedGuide(app, reply, head, ctx.user, async (rendered) => {
    // Kept steps: an empty stand-in in the record, their bytes in the answer (byte-cache.ts).
    const source = await loadCurrentSource(app.db, row, { prereqIds: committed.parts.prerequisites, tags: committed.tags, stepRecords: kept ? [] : undefined });
    const built = await buildFullRecordFor(app.db, app.config, source, ctx.user, rendered);
    return { ...built, keptSince: kept?.keptSince, spliced: kept && { key: 'steps', bytes: kept.steps } };
  }, { justCommitted: true, titlesStamp: titles });
}

/** PATCH: the validated fields (a first publish dates it) and the prerequisites; answers the guide's full record. */
export async function editGuide(app: FastifyInstance, reply: FastifyReply, ctx: GuideContext, expected: number, fields: GuideFields) {
  const set = (now: number, locked: GuideRow): Updateable<GuideTable> => {
    const out: Updateable<GuideTable> = { ...fields.set };
    if (out.public === 1 && locked.published_date === null) out.published_date = now;
    return out;
  };
  const prerequisites = fields.prerequisites;
  const category = fields.set.category;
  const audited = prerequisites ? { prerequisites: {} } : undefined;
  const done = await changeGuideRow(app, ctx, { expected, action: 'edit', set, prerequisites, keepsParts: true, audited }, prerequisites || category !== undefined
    ? async (trx) => {
      if (prerequisites) await setPrerequisites(trx, ctx.row.guideid, ctx.row.langid, prerequisites);
      // Filed elsewhere: another approval process (or none) may apply (areas/shared/guide-reader.ts).
      if (category !== undefined) await refreshReaderViews(trx, app.guideApprovals.processFor, { guideid: ctx.row.guideid, category });
    }
    : undefined);
  // A PATCH writes the guide's fields and prerequisites, never a step.
  const plain = !prerequisites && Object.keys(fields.set).every((column) => PLAIN_COLUMNS.has(column));
  return sendCommittedGuide(app, reply, ctx, done?.committed, done?.locked, plain);
}

/** Publishes (dated the first time) or unpublishes the guide. */
export async function setGuidePublic(app: FastifyInstance, ctx: GuideContext, expected: number, publish: boolean) {
  await changeGuide(app, ctx, { expected, action: publish ? 'publish' : 'unpublish', keepsParts: true, set: (now, locked) => (publish ? { public: 1, published_date: locked.published_date ?? now } : { public: 0 }) });
}

/** Marks the guide deleted in its language; every revision is kept. */
export async function deleteGuide(app: FastifyInstance, ctx: GuideContext, expected: number) {
  await changeGuide(app, ctx, { expected, action: 'delete', set: (now) => ({ deleted: 1, deleted_date: now }) });
}

/** Restores a deleted guide, filed under `category` (checked by the caller). Takes no revisionid. */
export async function restoreGuide(app: FastifyInstance, ctx: GuideContext, category: string) {
  await changeGuide(app, ctx, { action: 'restore', set: () => ({ deleted: 0, deleted_date: null, category }) },
    (trx) => refreshReaderViews(trx, app.guideApprovals.processFor, { guideid: ctx.row.guideid, category }));
}

/** Adds or removes a (checked) tag; nothing changes when the guide already has (or lacks) it. */
export async function tagGuide(app: FastifyInstance, ctx: GuideContext, expected: number, tag: string, adding: boolean) {
  const changed = await changeGuide(app, ctx, { expected, action: adding ? 'tag' : 'untag' }, async (trx) => {
    const done = adding ? await addTag(trx, 'guide', ctx.row.guideid, tag) : await removeTag(trx, 'guide', ctx.row.guideid, tag);
    if (!done) throw new NothingToChange();
    return true;
  });
  // The guide's other languages show its tags too (invalidateGuide says why after the commit).
  if (changed) await invalidateGuide(app.db, ctx.row.guideid);
}

/** What a step edit changes: each part only when sent (validated by the caller). */
export interface StepChange {
  title?: string;
  lines?: LineValues[];
  media?: MediaValues;
  fields?: FieldValues[];
  orderby?: number;
}

/** Edits a step at its own revision (409 with the current step when stale); the guide's revision moves too. */
export async function editStep(app: FastifyInstance, ctx: GuideContext, stepid: number, expected: number, c: StepChange) {
  const { guideid, langid } = ctx.row;
  const audited: AuditChanges = { stepid: { new: stepid } };
  for (const part of ['title', 'lines', 'media', 'fields', 'orderby'] as const) if (c[part] !== undefined) audited[part] = {};
  await changeGuide(app, ctx, { action: 'step_edit', audited }, async (trx, now) => {
    await lockStep(trx, stepid, now, expected);
    if (c.title !== undefined) await trx.updateTable('guide_steps').set({ title: c.title.trim() }).where('stepid', '=', stepid).execute();
    if (c.lines) await writeLines(trx, stepid, c.lines);
    if (c.media !== undefined) await writeMedia(trx, stepid, c.media);
    if (c.fields) await writeFields(trx, stepid, c.fields, now);
    if (c.orderby !== undefined) await moveStep(trx, guideid, langid, stepid, c.orderby);
    await commitStepRevision(trx, stepid, guideid, langid, ctx.user?.userid ?? null, now, 'edit');
  });
}
