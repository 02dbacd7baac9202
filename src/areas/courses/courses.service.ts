// Writes of the courses area, each in one transaction: courses (revision-checked, soft
// delete), assignments, starts, completions, invalidations and a manager's overrides.
// Progress is kept by the shared modules (shared/course-progress.ts, course-completion.ts)
// that other areas call too. A released guide invalidates the completions of stages whose
// strictness asks for it (`invalidateOnRelease`, registered on the guides' released slot).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { lockedAtRevision } from '../content/revisions.js';
import { onGuideReleased, type ReleaseRow } from '../guides/guides.releases.js';
import { coursesReaching, STAGE_COLUMNS, type AssignedStage } from '../shared/course-status.js';
import { expireDue, invalidateReleasedDocument, invalidateStages, refreshAssignees, startStages, syncAssignees } from '../shared/course-progress.js';
import { audit, changesOf, type AuditChanges } from '../../audit/audit.js';
import type { AuditAction } from '../../audit/actions.js';
import type { AuthUser } from '../../http/auth.js';
import { completeStages, completeStagesOnDocument } from '../shared/course-completion.js';
import type { CourseDoctype } from './courses.tables.js';
import type { StageInput } from './courses.schemas.js';
import { currentDocRevision } from './courses.queries.js';

type Db = Kysely<Database>;

/** Runs `fn` in a transaction, or in the caller's when `db` is one already (the demo seeds in one). */
function inTx<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

export interface CourseFields {
  title?: string;
  contents?: string;
  publish_date?: number | null;
  enabled?: boolean;
}

const stageValues = (s: StageInput) => ({
  doctype: s.doctype as CourseDoctype,
  docid: s.docid,
  strictness: s.strictness ?? null,
  frequency_quantity: s.frequency_quantity ?? null,
  frequency_unit: s.frequency_unit ?? null,
  stage_assessmentid: s.stage_assessmentid ?? null,
  assessmenttype: s.assessmenttype ?? null,
  teamid_signer: s.teamid_signer ?? null,
  quiz_passing_score: s.quiz_passing_score ?? null,
  attempts_limit: s.attempts_limit ?? null,
  skills_points_possible: s.skills_points_possible ?? null,
});

/** A stage changed by a write of the stage list, as its audit entry names it. */
interface StageChange { action: Extract<AuditAction, 'course.stage_added' | 'course.stage_edited' | 'course.stage_removed'>; course_stageid: number; changes: AuditChanges | null }

/** Writes the course's stage list as `stages` (kept by course_stageid, others added, the rest retired); answers the stages changed. */
async function writeStages(trx: Db, wikiid: number, stages: StageInput[]): Promise<StageChange[]> {
  const out: StageChange[] = [];
  const keep = new Set(stages.map((s) => s.course_stageid).filter((x): x is number => x != null));
  const current = await trx.selectFrom('course_stages').select(['course_stageid', 'position', ...Object.keys(stageValues({} as StageInput)) as Array<keyof ReturnType<typeof stageValues>>])
    .where('wikiid', '=', wikiid).where('active', '=', 1).execute();
  const byId = new Map(current.map((c) => [c.course_stageid, c as Record<string, unknown>]));
  const retire = current.map((c) => c.course_stageid).filter((id) => !keep.has(id));
  if (retire.length) await trx.updateTable('course_stages').set({ active: 0 }).where('course_stageid', 'in', retire).execute();
  for (const id of retire) out.push({ action: 'course.stage_removed', course_stageid: id, changes: null });
  for (const [position, s] of stages.entries()) {
    const values = { position, ...stageValues(s) };
    if (s.course_stageid != null) {
      await trx.updateTable('course_stages').set(values).where('course_stageid', '=', s.course_stageid).where('wikiid', '=', wikiid).execute();
      const changes = changesOf(byId.get(s.course_stageid) ?? null, values);
      if (changes) out.push({ action: 'course.stage_edited', course_stageid: s.course_stageid, changes });
    } else {
      const { course_stageid } = await trx.insertInto('course_stages').values({ wikiid, ...values }).returning('course_stageid').executeTakeFirstOrThrow();
      out.push({ action: 'course.stage_added', course_stageid, changes: changesOf(null, values) });
    }
  }
  return out;
}

/** Records the course's stage changes, each with the course's revisions (docs/audit.md). */
async function auditStages(trx: Db, actor: AuthUser, now: number, wikiid: number, changed: StageChange[], revisions: { before: number | null; after: number }) {
  for (const c of changed) {
    await audit(trx, {
      action: c.action, actor, time: now, resource_type: 'course', resource_id: wikiid, revisionid_before: revisions.before, revisionid_after: revisions.after,
      changes: { course_stageid: { new: c.course_stageid }, ...c.changes },
    });
  }
}

/** The course's columns an edit may change, as its audit entry compares them. */
const courseColumns = (f: CourseFields) => ({ title: f.title, contents: f.contents, publish_date: f.publish_date, enabled: f.enabled });

async function snapshot(trx: Db, wikiid: number, userid: number | null, now: number): Promise<number> {
  const course = await trx.selectFrom('courses').select(['title', 'contents_raw', 'publish_date', 'enabled', 'deleted']).where('wikiid', '=', wikiid).executeTakeFirstOrThrow();
  const stages = await trx.selectFrom('course_stages').select([...STAGE_COLUMNS]).where('wikiid', '=', wikiid).where('active', '=', 1).orderBy('position').execute();
  const { revisionid } = await trx.insertInto('course_wiki_revisions').values({ wikiid, userid, date: now, snapshot: JSON.stringify({ course, stages }) }).returning('revisionid').executeTakeFirstOrThrow();
  await trx.updateTable('courses').set({ revisionid }).where('wikiid', '=', wikiid).execute();
  return revisionid;
}

/** Creates a course; `actor` undefined is the demo seed (no audit entry). */
export async function createCourse(db: Db, clock: Clock, config: Config, userid: number, f: Required<Pick<CourseFields, 'title' | 'contents'>> & CourseFields, stages: StageInput[], actor?: AuthUser): Promise<number> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    const { wikiid } = await trx.insertInto('courses').values({
      langid: config.languages[0], title: f.title, title_lower: f.title.toLowerCase(), contents_raw: f.contents, publish_date: f.publish_date ?? null,
      enabled: f.enabled === false ? 0 : 1, userid, created_date: now, modified_date: now, stages_count: stages.length,
    }).returning('wikiid').executeTakeFirstOrThrow();
    const added = await writeStages(trx, wikiid, stages);
    const revisionid = await snapshot(trx, wikiid, userid, now);
    if (actor) {
      await audit(trx, { action: 'course.created', actor, time: now, resource_type: 'course', resource_id: wikiid, revisionid_after: revisionid, changes: changesOf(null, { ...courseColumns(f), enabled: f.enabled !== false }) });
      await auditStages(trx, actor, now, wikiid, added, { before: null, after: revisionid });
    }
    return wikiid;
  });
}

/** Changes a course at `revisionid` (StaleRevision otherwise); stages, when sent, replace the list and every assignee's progress is recomputed. */
export async function editCourse(db: Db, clock: Clock, userid: number, wikiid: number, revisionid: number, f: CourseFields, stages: StageInput[] | undefined, actor?: AuthUser): Promise<void> {
  const now = clock.now();
  await inTx(db, async (trx) => {
    const old = await trx.selectFrom('courses').select(['title', 'contents_raw', 'publish_date', 'enabled']).where('wikiid', '=', wikiid).executeTakeFirst();
    const locked = await trx.updateTable('courses').set({
      modified_date: now,
      ...(f.title !== undefined ? { title: f.title, title_lower: f.title.toLowerCase() } : {}),
      ...(f.contents !== undefined ? { contents_raw: f.contents } : {}),
      ...(f.publish_date !== undefined ? { publish_date: f.publish_date } : {}),
      ...(f.enabled !== undefined ? { enabled: f.enabled ? 1 : 0 } : {}),
    }).where('wikiid', '=', wikiid).where('revisionid', '=', revisionid).where('deleted', '=', 0).executeTakeFirst();
    lockedAtRevision(locked);
    let changed: StageChange[] = [];
    if (stages) {
      changed = await writeStages(trx, wikiid, stages);
      await refreshAssignees(trx, now, wikiid);
    }
    const after = await snapshot(trx, wikiid, userid, now);
    if (!actor || !old) return;
    const fields = changesOf({ title: old.title, contents: old.contents_raw, publish_date: old.publish_date, enabled: old.enabled === 1 }, courseColumns(f));
    const revisions = { before: revisionid, after };
    if (fields) await audit(trx, { action: 'course.edited', actor, time: now, resource_type: 'course', resource_id: wikiid, revisionid_before: revisionid, revisionid_after: after, changes: fields });
    await auditStages(trx, actor, now, wikiid, changed, revisions);
  });
}

/** Soft delete: the course leaves lists and cannot be assigned; assignments and completions stay. Answers false when it was already gone. */
export async function deleteCourse(db: Db, clock: Clock, wikiid: number, actor: AuthUser): Promise<boolean> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    const res = await trx.updateTable('courses').set({ deleted: 1, modified_date: now }).where('wikiid', '=', wikiid).where('deleted', '=', 0).executeTakeFirst();
    if (!Number(res.numUpdatedRows)) return false;
    const { revisionid } = await trx.selectFrom('courses').select('revisionid').where('wikiid', '=', wikiid).executeTakeFirstOrThrow();
    await audit(trx, { action: 'course.deleted', actor, time: now, resource_type: 'course', resource_id: wikiid, revisionid_before: revisionid, changes: { deleted: { old: false, new: true } } });
    await syncAssignees(trx, now, { wikiid });
    return true;
  });
}

/** Assigns a course; answers the id, or null when the same assignee already has an active assignment of it. */
export async function assignCourse(db: Db, clock: Clock, userid: number, a: { wikiid: number; assignee_userid: number | null; assignee_teamid: number | null; due_within: number | null }, actor?: AuthUser): Promise<number | null> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    // Locks the course row: two identical assignments at once cannot both find none.
    const live = await trx.updateTable('courses').set({ deleted: 0 }).where('wikiid', '=', a.wikiid).where('deleted', '=', 0).executeTakeFirst();
    if (!Number(live.numUpdatedRows)) return null;
    const existing = await trx.selectFrom('course_assignments').select('course_assignmentid').where('wikiid', '=', a.wikiid).where('cancelled', '=', 0)
      .where(a.assignee_userid != null ? 'assignee_userid' : 'assignee_teamid', '=', (a.assignee_userid ?? a.assignee_teamid)!).executeTakeFirst();
    if (existing) return null;
    const { course_assignmentid } = await trx.insertInto('course_assignments')
      .values({ ...a, userid_assigner: userid, created_date: now })
      .returning('course_assignmentid').executeTakeFirstOrThrow();
    await syncAssignees(trx, now, { wikiid: a.wikiid });
    if (actor) await audit(trx, { action: 'course.assigned', actor, time: now, resource_type: 'course_assignment', resource_id: course_assignmentid, changes: changesOf(null, a) });
    return course_assignmentid;
  });
}

/** Cancels an assignment (kept, `cancelled` 1); answers false when it was already cancelled. */
export async function cancelAssignment(db: Db, clock: Clock, course_assignmentid: number, wikiid: number, actor: AuthUser): Promise<boolean> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    const res = await trx.updateTable('course_assignments').set({ cancelled: 1, cancelled_date: now }).where('course_assignmentid', '=', course_assignmentid).where('cancelled', '=', 0).executeTakeFirst();
    if (!Number(res.numUpdatedRows)) return false;
    await audit(trx, { action: 'course.assignment_cancelled', actor, time: now, resource_type: 'course_assignment', resource_id: course_assignmentid, changes: { wikiid: { new: wikiid }, cancelled: { old: false, new: true } } });
    await syncAssignees(trx, now, { wikiid });
    return true;
  });
}

/** The user's assigned stages on a document (or of a course, or all). */
export async function stagesReaching(db: Db, userid: number, filter: { doctype?: string; docid?: number; wikiid?: number; course_stageid?: number } = {}): Promise<AssignedStage[]> {
  const rows = await db.selectFrom('course_stages as s').select(STAGE_COLUMNS.map((c) => `s.${c}` as const))
    .where('s.active', '=', 1)
    .where('s.wikiid', 'in', coursesReaching(db, userid))
    .$if(filter.doctype !== undefined, (q) => q.where('s.doctype', '=', filter.doctype as CourseDoctype))
    .$if(filter.docid !== undefined, (q) => q.where('s.docid', '=', filter.docid!))
    .$if(filter.wikiid !== undefined, (q) => q.where('s.wikiid', '=', filter.wikiid!))
    .$if(filter.course_stageid !== undefined, (q) => q.where('s.course_stageid', '=', filter.course_stageid!))
    .orderBy('s.wikiid').orderBy('s.position').execute();
  return rows as AssignedStage[];
}

export async function startDocument(db: Db, clock: Clock, config: Config, user: AuthUser, doctype: string, docid: number): Promise<number> {
  const userid = user.userid;
  return inTx(db, async (trx) => {
    const stages = await stagesReaching(trx, userid, { doctype, docid });
    return startStages(trx, clock.now(), userid, stages, (await currentDocRevision(trx, config, doctype, docid)) ?? null, user);
  });
}

/** The explicit complete of the learner: plain stages on the document (assessed and module stages complete their own way). */
export async function completeDocument(db: Db, clock: Clock, config: Config, user: AuthUser, doctype: string, docid: number, o: { course_stageid?: number; revisionid?: number }): Promise<number> {
  const userid = user.userid;
  return inTx(db, async (trx) => completeStagesOnDocument(trx, clock, {
    userid, actor: user, doctype: doctype as CourseDoctype, docid, via: 'explicit', course_stageid: o.course_stageid,
    doc_revisionid: o.revisionid ?? (await currentDocRevision(trx, config, doctype, docid)) ?? null,
  }));
}

export async function invalidateDocument(db: Db, clock: Clock, manager: AuthUser, userid: number, doctype: string, docid: number): Promise<number> {
  return inTx(db, async (trx) => {
    const stages = await stagesReaching(trx, userid, { doctype, docid });
    return invalidateStages(trx, clock.now(), userid, stages.map((s) => s.course_stageid), manager.userid, manager);
  });
}

/** A manager completes (override) or invalidates every assigned stage of each user (of one course when `wikiid`). */
export async function overrideAll(db: Db, clock: Clock, config: Config, manager: AuthUser, userids: number[], action: 'complete' | 'invalidate', wikiid?: number): Promise<number> {
  const managerid = manager.userid;
  return inTx(db, async (trx) => {
    let n = 0;
    for (const userid of userids) {
      const stages = await stagesReaching(trx, userid, { wikiid });
      if (action === 'invalidate') {
        n += await invalidateStages(trx, clock.now(), userid, stages.map((s) => s.course_stageid), managerid, manager);
        continue;
      }
      for (const s of stages) {
        n += await completeStages(trx, clock, userid, [s], { doc_revisionid: (await currentDocRevision(trx, config, s.doctype, s.docid)) ?? null, via: 'manager', manager_override_userid: managerid, actor: manager });
      }
    }
    return n;
  });
}

/** Bulk stage completions by a manager; answers, per item, whether it moved. */
export async function bulkComplete(db: Db, clock: Clock, config: Config, manager: AuthUser, items: Array<{ userid: number; stage: AssignedStage }>): Promise<boolean[]> {
  const managerid = manager.userid;
  return inTx(db, async (trx) => {
    const out: boolean[] = [];
    for (const { userid, stage } of items) {
      out.push((await completeStages(trx, clock, userid, [stage], { doc_revisionid: (await currentDocRevision(trx, config, stage.doctype, stage.docid)) ?? null, via: 'bulk', manager_override_userid: managerid, actor: manager })) > 0);
    }
    return out;
  });
}

/**
 * Invalidates, in the release's transaction, every completion of a stage on the released
 * guide whose strictness asks for it: `minor`, any release; `major`, a major one. Only a
 * release that is `released` gets here (a pending one waits for its approval).
 */
export async function invalidateOnRelease(trx: Db, release: ReleaseRow, now: number): Promise<void> {
  if (release.status !== 'released') return;
  await invalidateReleasedDocument(trx, now, { doctype: 'guide', docid: release.guideid, type: release.type });
}

onGuideReleased(invalidateOnRelease);

/** The expiry run: applies every expiry due at `now` (idempotent). */
export async function runExpiry(db: Db, now: number): Promise<number> {
  return inTx(db, (trx) => expireDue(trx, now));
}
