// Reading the work log: rows, who may read them, the form each entry records against,
// and the records (a fixed number of batched queries for a whole page, whatever its size).
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { hasPrivilege, type AuthUser } from '../../http/auth.js';
import { findGuideRow, parseJson } from '../guides/guides.queries.js';
import { guideAccess } from '../guides/guides.access.js';
import type { GuideSnapshot, StepSnapshot } from '../guides/guides.snapshots.js';
import { guideRowReadable } from '../guides/guides.access.js';
import { loadFields, type FormField } from '../guides/guides.fields.js';
import type { WorkLogTable } from './work-log.tables.js';
import type { WorkLogEntry } from './work-log.schemas.js';

export type WorkLogRow = Selectable<WorkLogTable>;
type Db = Kysely<Database>;

export function findEntry(db: Db, entryid: number) {
  return db.selectFrom('work_log').selectAll().where('entryid', '=', entryid).executeTakeFirst();
}

/** Moderators and Admins act on every entry; its assignee on theirs. */
export const actsOnEntry = (user: AuthUser, row: WorkLogRow) => user.userid === row.userid || hasPrivilege(user, 'Moderator');

/**
 * Who reads an entry: its assignee and its creator, Moderators and Admins, and whoever
 * may read its guide in the entry's language (`listableBy` is the same rule as SQL).
 */
export async function readsEntry(db: Db, config: Config, user: AuthUser, row: WorkLogRow): Promise<boolean> {
  if (actsOnEntry(user, row) || user.userid === row.userid_created) return true;
  const guide = await findGuideRow(db, config, row.guideid, row.langid);
  return guide !== undefined && (await guideAccess(db, user, guide)).read;
}

type EntryQuery<O> = SelectQueryBuilder<Database & { w: WorkLogTable }, 'w', O>;

/**
 * `readsEntry` as SQL, for lists: Moderators and Admins see every entry; others the
 * entries assigned to them or started by them, and those whose guide they read in the
 * entry's language (the read rule applies per language, guides.access.ts).
 */
export function listableBy<O>(query: EntryQuery<O>, user: AuthUser): EntryQuery<O> {
  if (hasPrivilege(user, 'Moderator')) return query;
  return query.where((eb) => eb.or([
    eb('w.userid', '=', user.userid),
    eb('w.userid_created', '=', user.userid),
    eb.exists(eb.selectFrom('guides as g').select('g.guideid').whereRef('g.guideid', '=', 'w.guideid').whereRef('g.langid', '=', 'w.langid')
      .where('g.deleted', '=', 0).where(guideRowReadable(user, 'g'))),
  ]));
}

/** A form field of a revision, with the step it is on. */
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
    db.selectFrom('guides').select(['guideid', 'langid', 'title']).where('guideid', 'in', [...new Set(rows.map((r) => r.guideid))]).execute(),
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
