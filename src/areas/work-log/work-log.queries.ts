// Reading the work log: rows, who may read them, and the records (three batched queries
// for a whole page, whatever its size).
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { hasPrivilege, type AuthUser } from '../../http/auth.js';
import { toBool } from '../../db/helpers.js';
import { findGuideRow, guideAccess, parseJson } from '../guides/guides.queries.js';
import type { GuideSnapshot } from '../guides/guides.snapshots.js';
import { guideRowReadable } from '../guides/guides.read-rule.js';
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
 * may read its guide (the guides area's rule: a private guide's entries only for those
 * who read the guide).
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
 * entry's language (the read rule applies per language, guides.read-rule.ts).
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

/** The stepids of a kept guide revision (from its snapshot). */
export async function stepsOfRevision(db: Db, row: Pick<WorkLogRow, 'guideid' | 'langid' | 'revisionid'>): Promise<Set<number>> {
  const rev = await db.selectFrom('guide_revisions').select('snapshot')
    .where('revisionid', '=', row.revisionid).where('guideid', '=', row.guideid).where('langid', '=', row.langid).executeTakeFirst();
  const snap = parseJson<GuideSnapshot | null>(rev?.snapshot, null);
  return new Set((snap?.steps ?? []).map((s) => s.stepid));
}

/** Seconds in progress: the closed periods plus the open one, if any. */
export function durationOf(row: Pick<WorkLogRow, 'active_seconds' | 'active_since'>, now: number): number {
  return Number(row.active_seconds) + (row.active_since !== null ? Math.max(0, now - Number(row.active_since)) : 0);
}

export async function workLogRecords(db: Db, now: number, rows: WorkLogRow[]): Promise<WorkLogEntry[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.entryid);
  const [steps, users, guides] = await Promise.all([
    db.selectFrom('work_log_steps').selectAll().where('entryid', 'in', ids).orderBy('entryid').orderBy('stepid').execute(),
    db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', [...new Set(rows.map((r) => r.userid))]).execute(),
    db.selectFrom('guides').select(['guideid', 'langid', 'title']).where('guideid', 'in', [...new Set(rows.map((r) => r.guideid))]).execute(),
  ]);
  const stepsOf = new Map<number, WorkLogEntry['step_data']>();
  for (const s of steps) {
    stepsOf.set(s.entryid, [...(stepsOf.get(s.entryid) ?? []), {
      stepid: s.stepid, checked: toBool(s.checked), value: s.value, notes: s.notes, modified_date: s.modified_date, userid_modified: s.userid_modified,
    }]);
  }
  const names = new Map(users.map((u) => [u.userid, u.username]));
  const titles = new Map(guides.map((g) => [`${g.guideid}/${g.langid}`, g.title]));
  return rows.map((r) => ({
    entryid: r.entryid,
    guideid: r.guideid,
    langid: r.langid,
    revisionid: r.revisionid,
    guide_title: titles.get(`${r.guideid}/${r.langid}`) ?? '',
    userid: r.userid,
    username: names.get(r.userid) ?? '',
    userid_created: r.userid_created,
    status: r.status,
    notes: r.notes,
    start_date: r.start_date,
    end_date: r.end_date,
    status_date: r.status_date,
    modified_date: r.modified_date,
    duration: durationOf(r, now),
    step_data: stepsOf.get(r.entryid) ?? [],
  }));
}
