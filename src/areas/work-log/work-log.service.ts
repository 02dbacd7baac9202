// The work log's writes: named functions taking the database first, each one
// transaction. Callers check the policy (work-log.access.ts) and the input first; a
// conditional UPDATE or DELETE answers 0/false when the entry changed meanwhile.
import type { Insertable, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { unprocessable, type FieldError } from '../../http/errors.js';
import type { WorkLogStatus } from './work-log.schemas.js';
import type { RevisionForm, WorkLogRow } from './work-log.queries.js';
import type { WorkLogTable } from './work-log.tables.js';
import { fillsRequired } from './work-log.values.js';
import { findEntry, workLogRecords } from './work-log.queries.js';
import { publishEvent } from '../webhooks/webhooks.outbox.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
import { audit, changesOf } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

type Db = Kysely<Database>;

/** Entries take step data only while started or paused. */
export const EDITABLE: WorkLogStatus[] = ['started', 'paused'];

/** A 422 thrown inside a transaction, to roll it back. */
class Refused extends Error {
  constructor(readonly errors: FieldError[]) {
    super('refused');
  }
}

const openTiming = (trx: Db, entryid: number) =>
  trx.selectFrom('work_log_timings').select(['timingid']).where('entryid', '=', entryid).where('end_date', 'is', null).orderBy('timingid', 'desc').executeTakeFirst();
const closeTimings = (trx: Db, entryid: number, now: number, stepid: number | null = null) =>
  trx.updateTable('work_log_timings').set({ end_date: now, stepid }).where('entryid', '=', entryid).where('end_date', 'is', null).execute();
const startTiming = (trx: Db, entryid: number, userid: number, now: number) =>
  trx.insertInto('work_log_timings').values({ entryid, stepid: null, userid, start_date: now, end_date: null }).execute();

/** Runs `fn` in a transaction; a `Refused` thrown inside rolls it back and answers 422. */
async function refusable<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(fn);
  } catch (err) {
    if (err instanceof Refused) throw unprocessable(err.errors);
    throw err;
  }
}

/** The webhook event of an entry's new status, in the transaction that set it: `data` is what GET /work_log/{entryid} answers. */
async function publishStatusChanged(trx: Db, entryid: number, now: number) {
  await publishEvent(trx, { now: () => now }, {
    key: 'WorkLog.StatusChanged',
    title: 'Work Log Status Changed',
    description: `Work log entry ${entryid} changed status.`,
    data: async () => {
      const row = await findEntry(trx, entryid);
      return row ? (await workLogRecords(trx, now, [row]))[0] : null;
    },
  });
}

/** The audit actions of an entry's transitions (docs/audit.md), by the route's action. */
export const WORK_LOG_AUDIT = {
  pause: 'work_log.paused', resume: 'work_log.resumed', suspend: 'work_log.suspended', finish: 'work_log.finished', cancel: 'work_log.cancelled', assume: 'work_log.assumed',
} as const;

/** A new entry (status started); answers its id. `actor` undefined: the demo seed (no audit entry). */
export async function startEntry(db: Db, values: Insertable<WorkLogTable>, actor?: AuthUser): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { entryid } = await trx.insertInto('work_log').values(values).returning('entryid').executeTakeFirstOrThrow();
    if (actor) {
      await audit(trx, {
        action: 'work_log.started', actor, time: Number(values.status_date), resource_type: 'work_log_entry', resource_id: entryid, reason: values.notes || null,
        changes: changesOf(null, { guideid: values.guideid, langid: values.langid, guide_revisionid: values.revisionid, userid: values.userid, workorderid: values.workorderid ?? null, status: values.status }),
      });
    }
    await publishStatusChanged(trx, entryid, Number(values.status_date));
    return entryid;
  });
}

/**
 * Stores form values (null removes one) entered by `by` and moves the timings: `last`
 * (the open timing) closes for `closedStep` and the next opens. Answers 0 when the entry
 * no longer takes step data; a wrong `last` is a 422.
 */
export function recordStepData(
  db: Db, row: WorkLogRow, by: number, values: Array<{ fid: number; stepid: number; value: string | null }>, closedStep: number | null, last: number | null, now: number,
): Promise<number> {
  return refusable(db, async (trx) => {
    // Locks the entry in a state that takes step data before touching its values and timings.
    const out = await trx.updateTable('work_log').set({ modified_date: now })
      .where('entryid', '=', row.entryid).where('status', 'in', EDITABLE).where('userid', '=', row.userid).executeTakeFirst();
    if (Number(out.numUpdatedRows) === 0) return 0;
    const ids = values.map((v) => v.fid);
    if (ids.length) await trx.deleteFrom('work_log_values').where('entryid', '=', row.entryid).where('field_revisionid', 'in', ids).execute();
    const kept = values.filter((v) => v.value !== null);
    if (kept.length) {
      await trx.insertInto('work_log_values').values(kept.map((v) => ({
        entryid: row.entryid, field_revisionid: v.fid, stepid: v.stepid, value: v.value!, userid: by, modified_date: now,
      }))).execute();
    }
    const open = await openTiming(trx, row.entryid);
    const status = (await trx.selectFrom('work_log').select('status').where('entryid', '=', row.entryid).executeTakeFirstOrThrow()).status;
    if (last !== null) {
      if (open?.timingid !== last) {
        throw new Refused([{ field: 'lasttimingid', code: 'invalid_value', message: open ? `Timing ${last} is not the entry's open timing (${open.timingid}).` : `Timing ${last} is not open: the entry has no open timing.` }]);
      }
      await closeTimings(trx, row.entryid, now, closedStep);
      if (status === 'started') await startTiming(trx, row.entryid, by, now);
    } else if (!open && status === 'started') await startTiming(trx, row.entryid, by, now);
    return 1;
  });
}

export interface Transition {
  to: WorkLogStatus;
  /** A final status: sets the end date. */
  final: boolean;
  notes?: string;
  /** Assume: the entry passes to this user. */
  assignTo?: number;
  /** Finish: the form whose required fields must be filled. */
  form: RevisionForm | null;
}

/** Moves the entry from its status in `row` (0 when it changed meanwhile); a required field left empty on finish is a 422. */
export function transitionEntry(db: Db, row: WorkLogRow, change: Transition, now: number, actor: AuthUser, action: keyof typeof WORK_LOG_AUDIT): Promise<number> {
  return refusable(db, async (trx) => {
    const out = await trx.updateTable('work_log').set({
      status: change.to,
      status_date: now,
      modified_date: now,
      // The open started period, if any, is closed; a new one opens when the entry is started.
      active_seconds: sql<number>`active_seconds + (case when active_since is null or active_since > ${now} then 0 else ${now} - active_since end)`,
      active_since: change.to === 'started' ? now : null,
      end_date: change.final ? now : null,
      ...(change.notes !== undefined ? { notes: change.notes.trim() } : {}),
      ...(change.assignTo !== undefined ? { userid: change.assignTo } : {}),
    }).where('entryid', '=', row.entryid).where('status', '=', row.status).where('userid', '=', row.userid).executeTakeFirst();
    if (Number(out.numUpdatedRows) === 0) return 0;
    if (change.form) {
      // Checked after the entry is locked, so that no step data slips in between.
      const stored = new Map((await trx.selectFrom('work_log_values').select(['field_revisionid', 'value']).where('entryid', '=', row.entryid).execute())
        .map((v) => [v.field_revisionid, v.value]));
      const empty = [...change.form.fields].filter(([fid, f]) => f.field.required && !fillsRequired(f.field, stored.get(fid)));
      if (empty.length) {
        throw new Refused(empty.map(([fid, f]) => ({
          field: `fields.${fid}`, code: 'missing_field', message: `"${f.field.label}" (step ${f.stepid}) is required${f.field.type === 'checkbox' ? ' to be checked' : ''}.`,
        })));
      }
    }
    await closeTimings(trx, row.entryid, now);
    if (change.to === 'started') await startTiming(trx, row.entryid, change.assignTo ?? row.userid, now);
    await publishStatusChanged(trx, row.entryid, now);
    await audit(trx, {
      action: WORK_LOG_AUDIT[action], actor, time: now, resource_type: 'work_log_entry', resource_id: row.entryid, reason: change.notes?.trim() || null,
      changes: changesOf({ status: row.status, userid: row.userid, notes: row.notes }, { status: change.to, userid: change.assignTo, notes: change.notes?.trim() }),
    });
    // A finished entry completes its performer's course stages on the guide, tied to the revision performed and to the entry.
    if (change.to === 'complete') {
      await completeStagesOnDocument(trx, { now: () => now }, {
        userid: change.assignTo ?? row.userid, doctype: 'guide', docid: row.guideid, doc_revisionid: row.revisionid, via: 'work_log', source: { work_log_entryid: row.entryid }, actor,
      });
    }
    return 1;
  });
}

/**
 * Deletes the entry with its values and timings (false when nothing was deleted).
 * `onlyBy`: unless null, only while it is assigned to and created by that user and no one
 * else entered a value or spent a timing on it.
 */
export function deleteEntry(db: Db, entryid: number, onlyBy: number | null, actor: AuthUser, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    let del = trx.deleteFrom('work_log').where('entryid', '=', entryid);
    // Checked in the DELETE itself: a value or timing another user adds meanwhile keeps the entry.
    if (onlyBy !== null) {
      del = del.where('userid_created', '=', onlyBy).where('userid', '=', onlyBy)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('work_log_values as v').select('v.entryid').where('v.entryid', '=', entryid)
          .where((e) => e.or([e('v.userid', 'is', null), e('v.userid', '!=', onlyBy)])))))
        .where((eb) => eb.not(eb.exists(eb.selectFrom('work_log_timings as t').select('t.entryid').where('t.entryid', '=', entryid)
          .where((e) => e.or([e('t.userid', 'is', null), e('t.userid', '!=', onlyBy)])))));
    }
    const out = await del.executeTakeFirst();
    if (Number(out.numDeletedRows) === 0) return false;
    await trx.deleteFrom('work_log_values').where('entryid', '=', entryid).execute();
    await trx.deleteFrom('work_log_timings').where('entryid', '=', entryid).execute();
    await audit(trx, { action: 'work_log.deleted', actor, time: now, resource_type: 'work_log_entry', resource_id: entryid });
    return true;
  });
}
