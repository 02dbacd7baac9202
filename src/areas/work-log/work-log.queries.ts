// Reading the work log: rows, the form each entry records against,
// and the records (a fixed number of batched queries for a whole page, whatever its size).
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { parseJson } from '../guides/guides.queries.js';
import type { GuideSnapshot, StepSnapshot } from '../guides/guides.snapshots.js';
import { loadFields, type FormField } from '../guides/guides.fields.js';
import type { WorkLogTable } from './work-log.tables.js';
import type { WorkLogEntry } from './work-log.schemas.js';
import { listableBy } from './work-log.access.js';
import { asReadersSee } from '../shared/guide-reader.js';

export type WorkLogRow = Selectable<WorkLogTable>;
type Db = Kysely<Database>;

export function findEntry(db: Db, entryid: number) {
  return db.selectFrom('work_log').selectAll().where('entryid', '=', entryid).executeTakeFirst();
}

/** One page of the entries `user` may list, with the list's filters. */
export function listEntries(db: Db, user: AuthUser, q: { offset: number; limit: number; order?: string; userid?: number; guideid?: number; workorderid?: string; status?: string; langid?: string }) {
  let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user);
  if (q.userid !== undefined) query = query.where('w.userid', '=', q.userid);
  if (q.guideid !== undefined) query = query.where('w.guideid', '=', q.guideid);
  if (q.workorderid !== undefined) query = query.where('w.workorderid', '=', q.workorderid);
  if (q.status !== undefined) query = query.where('w.status', '=', q.status);
  if (q.langid !== undefined) query = query.where('w.langid', '=', q.langid);
  return query.orderBy('w.entryid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
}

/** One page of a guide's suspended entries that `user` may list, optionally in one language. */
export function suspendedEntries(db: Db, user: AuthUser, guideid: number, q: { offset: number; limit: number; langid?: string }) {
  let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user).where('w.guideid', '=', guideid).where('w.status', '=', 'suspended');
  if (q.langid) query = query.where('w.langid', '=', q.langid);
  return query.orderBy('w.entryid').limit(q.limit).offset(q.offset).execute();
}

/** The user an entry may be assigned to, with what the read rule needs. */
export function findAssignee(db: Db, userid: number) {
  return db.selectFrom('users').select(['userid', 'username', 'enabled', 'privileges']).where('userid', '=', userid).executeTakeFirst();
}

/** The id of a kept revision of the guide in one language (undefined when it is not one). */
export async function guideRevisionId(db: Db, guideid: number, langid: string, revisionid: number): Promise<number | undefined> {
  const rev = await db.selectFrom('guide_revisions').select('revisionid').where('revisionid', '=', revisionid)
    .where('guideid', '=', guideid).where('langid', '=', langid).executeTakeFirst();
  return rev?.revisionid;
}

export interface RevisionField { field: FormField; stepid: number }

/** The form of a guide revision: its fields in step and field order. */
export interface RevisionForm {
  fields: Map<number, RevisionField>;
  /** The highest field_revisionid (0 without fields). */
  max: number;
}

/** The forms of kept guide revisions (from their snapshots): three queries for any number of revisions. */
export async function formsOfRevisions(db: Db, revisionids: number[]): Promise<Map<number, RevisionForm>> {
  const out = new Map<number, RevisionForm>();
  const ids = [...new Set(revisionids)];
  if (ids.length === 0) return out;
  const revs = await db.selectFrom('guide_revisions').select(['revisionid', 'snapshot']).where('revisionid', 'in', ids).execute();
  const stepsOf = new Map(revs.map((r) => [r.revisionid, parseJson<GuideSnapshot | null>(r.snapshot, null)?.steps ?? []]));
  const stepRevIds = [...new Set([...stepsOf.values()].flat().map((s) => s.revisionid))];
  const stepRevs = stepRevIds.length ? await db.selectFrom('guide_step_revisions').select(['revisionid', 'snapshot']).where('revisionid', 'in', stepRevIds).execute() : [];
  const fieldIdsOf = new Map(stepRevs.map((s) => [s.revisionid, parseJson<StepSnapshot | null>(s.snapshot, null)?.fields ?? []]));
  const fields = await loadFields(db, [...fieldIdsOf.values()].flat());
  for (const id of ids) {
    const form: RevisionForm = { fields: new Map(), max: 0 };
    for (const step of stepsOf.get(id) ?? []) {
      for (const fid of fieldIdsOf.get(step.revisionid) ?? []) {
        const field = fields.get(fid);
        if (!field) continue;
        form.fields.set(fid, { field, stepid: step.stepid });
        form.max = Math.max(form.max, fid);
      }
    }
    out.set(id, form);
  }
  return out;
}

/** The form of the revision an entry performs. */
export async function formOf(db: Db, row: Pick<WorkLogRow, 'revisionid'>): Promise<RevisionForm> {
  return (await formsOfRevisions(db, [row.revisionid])).get(row.revisionid) ?? { fields: new Map(), max: 0 };
}

/** Seconds started: the closed periods plus the open one, if any. */
export function durationOf(row: Pick<WorkLogRow, 'active_seconds' | 'active_since'>, now: number): number {
  return Number(row.active_seconds) + (row.active_since !== null ? Math.max(0, now - Number(row.active_since)) : 0);
}

export async function workLogRecords(db: Db, now: number, rows: WorkLogRow[]): Promise<WorkLogEntry[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.entryid);
  const [values, timings, users, guides, forms] = await Promise.all([
    db.selectFrom('work_log_values').selectAll().where('entryid', 'in', ids).execute(),
    db.selectFrom('work_log_timings').selectAll().where('entryid', 'in', ids).orderBy('timingid').execute(),
    db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', [...new Set(rows.map((r) => r.userid))]).execute(),
    // Titles as readers see them (areas/shared/guide-reader.ts).
    db.selectFrom('guides').select(['guideid', 'langid', 'title', 'revisionid', 'reader_view', 'reader_revisionid']).where('guideid', 'in', [...new Set(rows.map((r) => r.guideid))]).execute().then((g) => asReadersSee(db, g)),
    formsOfRevisions(db, rows.map((r) => r.revisionid)),
  ]);
  const valuesOf = new Map<number, Map<number, (typeof values)[number]>>();
  for (const v of values) valuesOf.set(v.entryid, (valuesOf.get(v.entryid) ?? new Map()).set(v.field_revisionid, v));
  const timingsOf = new Map<number, typeof timings>();
  for (const t of timings) timingsOf.set(t.entryid, [...(timingsOf.get(t.entryid) ?? []), t]);
  const names = new Map(users.map((u) => [u.userid, u.username]));
  const titles = new Map(guides.map((g) => [`${g.guideid}/${g.langid}`, g.title]));
  return rows.map((r) => {
    const form = forms.get(r.revisionid) ?? { fields: new Map(), max: 0 };
    const stored = valuesOf.get(r.entryid) ?? new Map();
    const work_data: WorkLogEntry['work_data'] = [];
    for (const [fid, { field, stepid }] of form.fields) {
      const v = stored.get(fid);
      if (v) work_data.push({ label: field.label, value: v.value, field_revisionid: fid, stepid, userid: v.userid, modified_date: v.modified_date });
    }
    const own = timingsOf.get(r.entryid) ?? [];
    return {
      entryid: r.entryid,
      guideid: r.guideid,
      userid: r.userid,
      workorderid: r.workorderid,
      starttime: r.start_date,
      endtime: r.end_date,
      max_form_revisionid: form.max,
      guide_revisionid: r.revisionid,
      cancelled: r.status === 'cancelled' ? 1 : 0,
      duration: durationOf(r, now),
      status: r.status,
      work_data,
      timingid: own.find((t) => t.end_date === null)?.timingid ?? null,
      langid: r.langid,
      guide_title: titles.get(`${r.guideid}/${r.langid}`) ?? '',
      username: names.get(r.userid) ?? '',
      userid_created: r.userid_created,
      notes: r.notes,
      status_date: r.status_date,
      modified_date: r.modified_date,
      timings: own.map((t) => ({ timingid: t.timingid, stepid: t.stepid, userid: t.userid, starttime: t.start_date, endtime: t.end_date })),
    };
  });
}
