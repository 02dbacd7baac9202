// The stored progress of course assignees, kept current in the transaction of every write
// that changes it: which users an assignment reaches (`syncAssignees`), each user's stage
// statuses (`startStages`, `invalidateStages`; completing is course-completion.ts) and the
// per-(course, user) row every assignee list sorts by (`refreshAssignees`), and expiry
// (`expireDue`, run by the scheduled job and by reads, so that a read between two runs
// answers what the next run will store). Below the areas: guides, the work log,
// assessments and modules change progress without importing the courses area.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { StageStatus } from '../courses/courses.tables.js';
import { assigneeStatus, recurrenceEnd, type AssignedStage } from './course-status.js';
import { cacheStamp } from './byte-cache.js';
import { selfOverride } from './oversight.js';
import { audit, SYSTEM_ACTOR, type AuditActor } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

type Db = Kysely<Database>;

/**
 * Who made a progress change, as its audit entry names them (docs/audit.md): the user
 * (request.user), an actor, null for the system (a job, expiry); undefined writes no entry
 * (the demo seed).
 */
export type ProgressActor = AuthUser | AuditActor | null | undefined;

/** Records a change of a user's stage progress (resource course_stage_completion) unless `actor` is undefined (the seed). */
export async function auditProgress(trx: Db, actor: ProgressActor, now: number, action: 'course.stage_started' | 'course.stage_completed' | 'course.completion_overridden' | 'course.completion_invalidated' | 'course.completion_expired',
  completionid: number, stage: { course_stageid: number; wikiid: number }, userid: number, fields: Record<string, string | number | boolean | null> = {}): Promise<void> {
  if (actor === undefined) return;
  const changes: Record<string, { new: string | number | boolean | null }> = {};
  for (const [k, v] of Object.entries({ userid, wikiid: stage.wikiid, course_stageid: stage.course_stageid, ...fields })) changes[k] = { new: v };
  await audit(trx, { action, actor, time: now, resource_type: 'course_stage_completion', resource_id: completionid, changes });
}

/** Splits `ids` for IN lists (bounded statement size on both databases). */
export function chunks<T>(ids: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

export type Scope = { wikiid: number } | { userid: number } | { wikiid: number; userid: number };

interface Reach {
  wikiid: number;
  userid: number;
  username: string;
  course_assignmentid: number;
  created_date: number;
  due_within: number | null;
}

/** Every (course, user) an active assignment of a course not deleted reaches within `scope`, with the earliest such assignment. */
async function reached(trx: Db, scope: Scope): Promise<Map<string, Reach>> {
  const base = () => trx.selectFrom('course_assignments as ca')
    .innerJoin('courses as cc', 'cc.wikiid', 'ca.wikiid')
    .where('ca.cancelled', '=', 0)
    .where('cc.deleted', '=', 0)
    .$if('wikiid' in scope, (q) => q.where('ca.wikiid', '=', (scope as { wikiid: number }).wikiid));
  const userid = 'userid' in scope ? scope.userid : undefined;
  const direct = await base()
    .innerJoin('users as u', 'u.userid', 'ca.assignee_userid')
    .select(['ca.wikiid', 'u.userid', 'u.username_lower as username', 'ca.course_assignmentid', 'ca.created_date', 'ca.due_within'])
    .$if(userid !== undefined, (q) => q.where('ca.assignee_userid', '=', userid!))
    .execute();
  const viaTeam = await base()
    .innerJoin('team_members as tm', 'tm.teamid', 'ca.assignee_teamid')
    .innerJoin('users as u', 'u.userid', 'tm.userid')
    .select(['ca.wikiid', 'u.userid', 'u.username_lower as username', 'ca.course_assignmentid', 'ca.created_date', 'ca.due_within'])
    .$if(userid !== undefined, (q) => q.where('tm.userid', '=', userid!))
    .execute();
  const out = new Map<string, Reach>();
  for (const r of [...direct, ...viaTeam]) {
    const key = `${r.wikiid}:${r.userid}`;
    const had = out.get(key);
    if (!had || r.course_assignmentid < had.course_assignmentid) out.set(key, { ...r, due_within: r.due_within == null ? null : Number(r.due_within) });
  }
  return out;
}

const dueOf = (r: Reach) => (r.due_within == null ? null : r.created_date + r.due_within);

/**
 * Makes the stored assignee rows within `scope` match the active assignments: adds rows
 * for users reached now (team members who joined), deactivates rows of users no longer
 * reached (left the team, assignment cancelled, course deleted; rows are kept), and
 * recomputes the rows that changed. Nothing reached changed: three reads, no write.
 */
export async function syncAssignees(trx: Db, now: number, scope: Scope): Promise<void> {
  const plan = await planSync(trx, scope);
  const changed = new Map<number, Set<number>>();
  const mark = (wikiid: number, userid: number) => {
    if (!changed.has(wikiid)) changed.set(wikiid, new Set());
    changed.get(wikiid)!.add(userid);
  };
  for (const { row, r } of plan.update) {
    await trx.updateTable('course_assignees')
      .set({ active: 1, course_assignmentid: r.course_assignmentid, assignment_date: r.created_date, due_date: dueOf(r), overdue: 0 })
      .where('course_assigneeid', '=', row.course_assigneeid)
      .execute();
    mark(row.wikiid, row.userid);
  }
  for (const part of chunks(plan.deactivate.map((d) => d.course_assigneeid))) {
    await trx.updateTable('course_assignees').set({ active: 0, next_check_date: null }).where('course_assigneeid', 'in', part).execute();
  }
  for (const d of plan.deactivate) mark(d.wikiid, d.userid);
  for (const part of chunks(plan.fresh, 200)) {
    await trx.insertInto('course_assignees')
      .values(part.map((r) => ({ wikiid: r.wikiid, userid: r.userid, course_assignmentid: r.course_assignmentid, username: r.username, assignment_date: r.created_date, due_date: dueOf(r) })))
      .onConflict((oc) => oc.columns(['wikiid', 'userid']).doNothing())
      .execute();
    for (const r of part) mark(r.wikiid, r.userid);
  }
  for (const [wikiid, users] of changed) await refreshAssignees(trx, now, wikiid, [...users]);
}

type HaveRow = { course_assigneeid: number; wikiid: number; userid: number; active: number; course_assignmentid: number | null; assignment_date: number; due_date: number | null };

/** What `syncAssignees` would change within `scope` (read only). */
async function planSync(db: Db, scope: Scope): Promise<{ update: Array<{ row: HaveRow; r: Reach }>; deactivate: HaveRow[]; fresh: Reach[] }> {
  const want = await reached(db, scope);
  const have = await db.selectFrom('course_assignees')
    .select(['course_assigneeid', 'wikiid', 'userid', 'active', 'course_assignmentid', 'assignment_date', 'due_date'])
    .$if('wikiid' in scope, (q) => q.where('wikiid', '=', (scope as { wikiid: number }).wikiid))
    .$if('userid' in scope, (q) => q.where('userid', '=', (scope as { userid: number }).userid))
    .execute();
  const update: Array<{ row: HaveRow; r: Reach }> = [];
  const deactivate: HaveRow[] = [];
  for (const row of have) {
    const key = `${row.wikiid}:${row.userid}`;
    const r = want.get(key);
    want.delete(key);
    if (!r) {
      if (row.active) deactivate.push(row);
      continue;
    }
    const due = row.due_date == null ? null : Number(row.due_date);
    if (!row.active || row.course_assignmentid !== r.course_assignmentid || Number(row.assignment_date) !== r.created_date || due !== dueOf(r)) update.push({ row, r });
  }
  return { update, deactivate, fresh: [...want.values()] };
}

/**
 * Scopes whose stored rows matched what the assignments reach, per database, with the
 * 'course_reach' stamp read before that was found (migration 2026_11_27_0400): while the
 * stamp holds, nothing the comparison reads has changed, so it is not made again. At most
 * EMPTY_PLANS_KEPT scopes; all are forgotten when it is full.
 */
const emptyPlans = new WeakMap<object, Map<string, number>>();
const EMPTY_PLANS_KEPT = 10_000;
const scopeKey = (scope: Scope) => `${'wikiid' in scope ? scope.wikiid : ''}:${'userid' in scope ? scope.userid : ''}`;

/**
 * Brings the stored progress within `scope` up to `now` before a read: membership
 * (`syncAssignees`) and expiry (`expireDue`), in one transaction, opened only when there
 * is something to change (a read of an unchanged course writes nothing and takes no lock,
 * and compares membership only when the 'course_reach' stamp moved since it last did).
 */
export async function bringUpToDate(db: Db, now: number, scope: Scope): Promise<void> {
  const key = scopeKey(scope);
  let kept = emptyPlans.get(db);
  if (!kept) emptyPlans.set(db, (kept = new Map()));
  // Read before the comparison: a write committed after it moves the stamp past this one.
  const stamp = await cacheStamp(db, 'course_reach');
  let reachChanged = false;
  if (kept.get(key) !== stamp) {
    const plan = await planSync(db, scope);
    reachChanged = plan.update.length > 0 || plan.deactivate.length > 0 || plan.fresh.length > 0;
    if (!reachChanged) {
      if (kept.size >= EMPTY_PLANS_KEPT) kept.clear();
      kept.set(key, stamp);
    }
  }
  const wikiid = 'wikiid' in scope ? scope.wikiid : undefined;
  const userid = 'userid' in scope ? scope.userid : undefined;
  const expiring = await db.selectFrom('course_stage_statuses').select('userid').where('status', '=', 'completed').where('expires_date', '<=', now)
    .$if(wikiid !== undefined, (q) => q.where('wikiid', '=', wikiid!))
    .$if(userid !== undefined, (q) => q.where('userid', '=', userid!))
    .limit(1).executeTakeFirst();
  const checking = await db.selectFrom('course_assignees').select('userid').where('next_check_date', '<=', now)
    .$if(wikiid !== undefined, (q) => q.where('wikiid', '=', wikiid!))
    .$if(userid !== undefined, (q) => q.where('userid', '=', userid!))
    .limit(1).executeTakeFirst();
  if (!reachChanged && !expiring && !checking) return;
  await db.transaction().execute(async (trx) => {
    await syncAssignees(trx, now, scope);
    await expireDue(trx, now, { wikiid, userid });
  });
}

/**
 * Recomputes the stored status, progress and dates of the assignee rows of course
 * `wikiid` (of `userids`, or all), from the course's active stages and the users' stage
 * statuses, writing the rows that differ; then the course's own counts.
 */
export async function refreshAssignees(trx: Db, now: number, wikiid: number, userids?: number[]): Promise<void> {
  const stages = await trx.selectFrom('course_stages').select('course_stageid').where('wikiid', '=', wikiid).where('active', '=', 1).execute();
  const stageIds = new Set(stages.map((s) => s.course_stageid));
  const total = stageIds.size;
  let earliest: number | null = null;
  for (const part of userids ? chunks(userids) : [undefined]) {
    const rows = await trx.selectFrom('course_assignees')
      .selectAll()
      .where('wikiid', '=', wikiid)
      .$if(part !== undefined, (q) => q.where('userid', 'in', part!))
      .execute();
    if (!rows.length) continue;
    const statuses = await trx.selectFrom('course_stage_statuses as st')
      .innerJoin('course_stage_completions as c', 'c.course_assignment_stage_completionid', 'st.completionid')
      .select(['st.userid', 'st.course_stageid', 'st.status', 'st.expires_date', 'c.end_date'])
      .where('st.wikiid', '=', wikiid)
      .$if(part !== undefined, (q) => q.where('st.userid', 'in', part!))
      .execute();
    const byUser = new Map<number, typeof statuses>();
    for (const s of statuses) {
      if (!stageIds.has(s.course_stageid)) continue;
      if (!byUser.has(s.userid)) byUser.set(s.userid, []);
      byUser.get(s.userid)!.push(s);
    }
    for (const row of rows) {
      const mine = byUser.get(row.userid) ?? [];
      const done = mine.filter((s) => s.status === 'completed');
      const status = assigneeStatus(total, done.length, mine.length);
      const course_completion_date = status === 2 ? Math.max(...done.map((s) => Number(s.end_date ?? 0))) : null;
      const expiries = done.map((s) => s.expires_date).filter((d): d is number => d != null).map(Number);
      const recurrence_date = expiries.length ? Math.min(...expiries) : null;
      const due = row.due_date == null ? null : Number(row.due_date);
      const overdue = status !== 2 && due != null && due <= now ? 1 : 0;
      const checks = [recurrence_date, status !== 2 && !overdue ? due : null].filter((d): d is number => d != null);
      const next = {
        status,
        total_stages: total,
        completed_stages: done.length,
        stage_progress: total ? Math.floor((done.length * 10_000) / total) : 0,
        course_completion_date,
        recurrence_date,
        overdue,
        next_check_date: row.active && checks.length ? Math.min(...checks) : null,
      };
      const same = (Object.keys(next) as (keyof typeof next)[]).every((k) => (row[k] == null ? null : Number(row[k])) === next[k]);
      if (!same) {
        await trx.updateTable('course_assignees').set(next).where('course_assigneeid', '=', row.course_assigneeid).execute();
        if (next.next_check_date != null && (earliest == null || next.next_check_date < earliest)) earliest = next.next_check_date;
      }
    }
  }
  await refreshCourseCounts(trx, wikiid, total);
  if (earliest != null) await ensureExpiryRun(trx, now, earliest);
}

/** The job type of the expiry run (handled by the courses area: courses.jobs.ts). */
export const EXPIRY_JOB = 'courses.expiry';

/** Makes sure an expiry run is pending at `when` or earlier (called where a stored date to check is written). */
export async function ensureExpiryRun(trx: Db, now: number, when: number): Promise<void> {
  const runAt = Math.max(when, now);
  const pending = await trx.selectFrom('jobs').select('jobid').where('type', '=', EXPIRY_JOB).where('status', '=', 'pending')
    .where('run_at', '<=', runAt).limit(1).executeTakeFirst();
  if (!pending) await enqueueJob(trx, { now: () => now }, EXPIRY_JOB, {}, { runAt });
}

/** The course's stored stage count, active assignee count and share of them completed (for GET /courses orderby). */
export async function refreshCourseCounts(trx: Db, wikiid: number, stages_count?: number): Promise<void> {
  const stagesCount = stages_count ?? Number((await trx.selectFrom('course_stages').select((eb) => eb.fn.countAll<number>().as('n')).where('wikiid', '=', wikiid).where('active', '=', 1).executeTakeFirst())?.n ?? 0);
  const agg = await trx.selectFrom('course_assignees')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>(eb.case().when('status', '=', 2).then(1).else(0).end()).as('done')])
    .where('wikiid', '=', wikiid).where('active', '=', 1)
    .executeTakeFirst();
  const n = Number(agg?.n ?? 0);
  const done = Number(agg?.done ?? 0);
  await trx.updateTable('courses')
    .set({ stages_count: stagesCount, assignee_count: n, completion_percentage: n ? Math.floor((done * 100) / n) : 0 })
    .where('wikiid', '=', wikiid)
    .where((eb) => eb.or([eb('stages_count', '!=', stagesCount), eb('assignee_count', '!=', n), eb('completion_percentage', '!=', n ? Math.floor((done * 100) / n) : 0)]))
    .execute();
}

/** The ids of the stage statuses of `userid` on `stageIds`. */
async function statusesOf(trx: Db, userid: number, stageIds: number[]) {
  if (!stageIds.length) return new Map<number, { status: StageStatus; completionid: number }>();
  const rows = await trx.selectFrom('course_stage_statuses').select(['course_stageid', 'status', 'completionid'])
    .where('userid', '=', userid).where('course_stageid', 'in', stageIds).execute();
  return new Map(rows.map((r) => [r.course_stageid, r]));
}

/**
 * Claims the status row of (`stage`, `userid`) for a move to `to` from one of `from`
 * (undefined: no row yet counts too): one conditional UPDATE, or an INSERT that does
 * nothing when a row exists; true when this transaction won it (a concurrent identical
 * move then finds nothing to claim).
 */
async function claimStatus(trx: Db, now: number, stage: { course_stageid: number; wikiid: number }, userid: number, from: StageStatus[], to: StageStatus): Promise<boolean> {
  const updated = await trx.updateTable('course_stage_statuses')
    .set({ status: to, modified_date: now })
    .where('course_stageid', '=', stage.course_stageid).where('userid', '=', userid).where('status', 'in', from)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return true;
  const inserted = await trx.insertInto('course_stage_statuses')
    .values({ course_stageid: stage.course_stageid, userid, wikiid: stage.wikiid, status: to, completionid: 0, expires_date: null, modified_date: now })
    .onConflict((oc) => oc.columns(['course_stageid', 'userid']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}
export { claimStatus };

/** Starts `stages` for `userid` (not started, expired or invalidated ones); answers how many started. */
export async function startStages(trx: Db, now: number, userid: number, stages: AssignedStage[], doc_revisionid: number | null, actor: ProgressActor): Promise<number> {
  let n = 0;
  const touched = new Set<number>();
  for (const stage of stages) {
    if (!(await claimStatus(trx, now, stage, userid, ['expired', 'invalidated'], 'started'))) continue;
    const { course_assignment_stage_completionid: id } = await trx.insertInto('course_stage_completions')
      .values({ course_stageid: stage.course_stageid, wikiid: stage.wikiid, userid, doctype: stage.doctype, docid: stage.docid, doc_revisionid, via: 'explicit', init_date: now, end_date: null,
        work_log_entryid: null, quiz_sessionid: null, signoff_requestid: null, module_attemptid: null, manager_override_userid: null, invalidated_date: null, expired_date: null })
      .returning('course_assignment_stage_completionid').executeTakeFirstOrThrow();
    await trx.updateTable('course_stage_statuses').set({ completionid: id, expires_date: null }).where('course_stageid', '=', stage.course_stageid).where('userid', '=', userid).execute();
    await auditProgress(trx, actor, now, 'course.stage_started', id, stage, userid, { doctype: stage.doctype, docid: stage.docid, doc_revisionid });
    touched.add(stage.wikiid);
    n++;
  }
  if (n) await syncAssignees(trx, now, { userid });
  for (const wikiid of touched) await refreshAssignees(trx, now, wikiid, [userid]);
  return n;
}

/**
 * Invalidates the completed or started `stageIds` of `userid` (a release of the document,
 * a manager): the completion rows stay, marked; answers how many moved.
 */
export async function invalidateStages(trx: Db, now: number, userid: number, stageIds: number[], manager_override_userid: number | null, actor: ProgressActor, cause?: Record<string, string | number>): Promise<number> {
  const current = await statusesOf(trx, userid, stageIds);
  let n = 0;
  const touched = new Set<number>();
  for (const [course_stageid, st] of current) {
    if (st.status !== 'completed' && st.status !== 'started') continue;
    const moved = await trx.updateTable('course_stage_statuses').set({ status: 'invalidated', expires_date: null, modified_date: now })
      .where('course_stageid', '=', course_stageid).where('userid', '=', userid).where('status', '=', st.status).where('completionid', '=', st.completionid)
      .returning('wikiid').executeTakeFirst();
    if (!moved) continue;
    await trx.updateTable('course_stage_completions')
      .set({ invalidated_date: now, ...(manager_override_userid ? { manager_override_userid, self_override: selfOverride(manager_override_userid, userid) } : {}) })
      .where('course_assignment_stage_completionid', '=', st.completionid).execute();
    await auditProgress(trx, actor, now, 'course.completion_invalidated', st.completionid, { course_stageid, wikiid: moved.wikiid }, userid, {
      status: st.status, ...(manager_override_userid ? { self_override: selfOverride(manager_override_userid, userid) === 1 } : {}), ...cause,
    });
    touched.add(moved.wikiid);
    n++;
  }
  for (const wikiid of touched) await refreshAssignees(trx, now, wikiid, [userid]);
  return n;
}

/**
 * Applies expiry up to `now` within `scope` (everything when none): completed stages whose
 * recurrence ended become `expired`, assignees past their due date are marked overdue and
 * their rows recomputed. Idempotent: a second run (or a concurrent one) finds nothing.
 */
export async function expireDue(trx: Db, now: number, scope: Partial<{ wikiid: number; userid: number }> = {}): Promise<number> {
  const due = await trx.selectFrom('course_stage_statuses')
    .select(['course_stageid', 'userid', 'wikiid', 'completionid'])
    .where('status', '=', 'completed').where('expires_date', '<=', now)
    .$if(scope.wikiid !== undefined, (q) => q.where('wikiid', '=', scope.wikiid!))
    .$if(scope.userid !== undefined, (q) => q.where('userid', '=', scope.userid!))
    .execute();
  const touched = new Map<number, Set<number>>();
  const mark = (wikiid: number, userid: number) => {
    if (!touched.has(wikiid)) touched.set(wikiid, new Set());
    touched.get(wikiid)!.add(userid);
  };
  let n = 0;
  for (const s of due) {
    const moved = await trx.updateTable('course_stage_statuses').set({ status: 'expired', modified_date: now })
      .where('course_stageid', '=', s.course_stageid).where('userid', '=', s.userid).where('status', '=', 'completed').where('expires_date', '<=', now)
      .executeTakeFirst();
    if (!Number(moved.numUpdatedRows)) continue;
    await trx.updateTable('course_stage_completions').set({ expired_date: now }).where('course_assignment_stage_completionid', '=', s.completionid).execute();
    // Expiry is the system's change, whichever request or job ran it.
    await auditProgress(trx, SYSTEM_ACTOR, now, 'course.completion_expired', s.completionid, s, s.userid);
    mark(s.wikiid, s.userid);
    n++;
  }
  const rows = await trx.selectFrom('course_assignees').select(['wikiid', 'userid'])
    .where('next_check_date', '<=', now)
    .$if(scope.wikiid !== undefined, (q) => q.where('wikiid', '=', scope.wikiid!))
    .$if(scope.userid !== undefined, (q) => q.where('userid', '=', scope.userid!))
    .execute();
  for (const r of rows) mark(r.wikiid, r.userid);
  for (const [wikiid, users] of touched) await refreshAssignees(trx, now, wikiid, [...users]);
  return n + rows.length;
}

/** The end of a completion's validity for `stage` completed at `at` (its recurrence), or null. */
export const expiryOf = (stage: Pick<AssignedStage, 'frequency_quantity' | 'frequency_unit'>, at: number) => recurrenceEnd(at, stage.frequency_quantity, stage.frequency_unit);

/**
 * A release of a document became `released` (inside its transaction): every user's
 * completed or started stage on it whose strictness asks for it is invalidated (`minor`:
 * any release; `major`: a major one). Guides call it through the released slot (courses
 * area), wikis from their release.
 */
export async function invalidateReleasedDocument(trx: Db, now: number, doc: { doctype: 'guide' | 'wiki'; docid: number; type: string }): Promise<number> {
  const stages = await trx.selectFrom('course_stages').select(['course_stageid'])
    .where('doctype', '=', doc.doctype).where('docid', '=', doc.docid).where('active', '=', 1)
    .where('strictness', 'in', doc.type === 'major' ? ['major', 'minor'] : ['minor'])
    .execute();
  if (!stages.length) return 0;
  const ids = stages.map((s) => s.course_stageid);
  const users = await trx.selectFrom('course_stage_statuses').select('userid').distinct()
    .where('course_stageid', 'in', ids).where('status', 'in', ['completed', 'started']).execute();
  let n = 0;
  // The release's consequence: recorded as the system's, naming the release's document and type.
  for (const { userid } of users) n += await invalidateStages(trx, now, userid, ids, null, SYSTEM_ACTOR, { released_doctype: doc.doctype, released_docid: doc.docid, release_type: doc.type });
  return n;
}
