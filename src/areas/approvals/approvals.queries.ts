// Row loaders of the approvals area: processes, their stages, the process that applies to
// a guide (nearest category up its tree, else the site default of its era), requests.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { prepared } from '../../db/prepared.js';
import type { ApprovalProcessStageTable, ApprovalProcessTable, ApprovalRequestStageTable, ApprovalRequestTable } from './approvals.tables.js';

type Db = Kysely<Database>;
export type ProcessRow = Selectable<ApprovalProcessTable>;
export type StageRow = Selectable<ApprovalProcessStageTable>;
export type RequestRow = Selectable<ApprovalRequestTable>;
export type RequestStageRow = Selectable<ApprovalRequestStageTable>;

export function findProcess(db: Db, approval_processid: number) {
  return db.selectFrom('approval_processes').selectAll().where('approval_processid', '=', approval_processid).executeTakeFirst();
}

export function findRequest(db: Db, approval_requestid: number) {
  return db.selectFrom('approval_requests').selectAll().where('approval_requestid', '=', approval_requestid).executeTakeFirst();
}

/** The current stages of processes, in order, in one query. */
export async function activeStages(db: Db, processids: number[]): Promise<Map<number, StageRow[]>> {
  const out = new Map<number, StageRow[]>();
  if (processids.length === 0) return out;
  const rows = await db.selectFrom('approval_process_stages').selectAll().where('approval_processid', 'in', [...new Set(processids)]).where('active', '=', 1)
    .orderBy('approval_processid').orderBy('orderby').execute();
  for (const r of rows) {
    const list = out.get(r.approval_processid) ?? [];
    list.push(r);
    out.set(r.approval_processid, list);
  }
  return out;
}

/** The stages requests started with, in order, in one query. */
export async function requestStages(db: Db, requestids: number[]): Promise<Map<number, RequestStageRow[]>> {
  const out = new Map<number, RequestStageRow[]>();
  if (requestids.length === 0) return out;
  const rows = await db.selectFrom('approval_request_stages').selectAll().where('approval_requestid', 'in', [...new Set(requestids)])
    .orderBy('approval_requestid').orderBy('orderby').execute();
  for (const r of rows) {
    const list = out.get(r.approval_requestid) ?? [];
    list.push(r);
    out.set(r.approval_requestid, list);
  }
  return out;
}

/** The process now default for new guides, if any. */
export async function currentDefault(db: Db): Promise<number | null> {
  const row = await db.selectFrom('approval_defaults').select('approval_processid').orderBy('from_guideid', 'desc').orderBy('defaultid', 'desc').limit(1).executeTakeFirst();
  return row?.approval_processid ?? null;
}

/** The default of the era a guide was created in (guides created before a default was set are unaffected by it). */
export async function defaultForGuide(db: Db, guideid: number): Promise<number | null> {
  const row = await db.selectFrom('approval_defaults').select('approval_processid').where('from_guideid', '<=', guideid)
    .orderBy('from_guideid', 'desc').orderBy('defaultid', 'desc').limit(1).executeTakeFirst();
  return row?.approval_processid ?? null;
}

/** The CATEGORY wiki's id by title. */
export async function categoryId(db: Db, title: string): Promise<number | null> {
  if (!title) return null;
  const row = await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', title).executeTakeFirst();
  return row?.wikiid ?? null;
}

/** The process attached to the nearest category from `wikiid` up (bounded: a corrupt loop cannot hang). */
export async function categoryProcess(db: Db, wikiid: number | null): Promise<number | null> {
  const seen = new Set<number>();
  let current = wikiid;
  while (current !== null && !seen.has(current) && seen.size < 1000) {
    seen.add(current);
    const row = await db.selectFrom('wikis as w').leftJoin('approval_category_processes as a', 'a.wikiid', 'w.wikiid')
      .select(['w.parentid', 'a.approval_processid']).where('w.wikiid', '=', current).executeTakeFirst();
    if (!row) return null;
    if (row.approval_processid != null) return row.approval_processid;
    current = row.parentid;
  }
  return null;
}

/** Whether any process exists (when none does, guides need no look-up at all). */
export async function anyProcess(db: Db): Promise<boolean> {
  return (await someProcess(db, {})).length > 0;
}
const someProcess = prepared<Record<string, never>, { approval_processid: number }>('any_approval_process', (db) =>
  db.selectFrom('approval_processes').select('approval_processid').limit(1));

/** The process that applies to a guide: its category's nearest attached process, else the default of its era. */
export async function processForGuide(db: Db, guide: { guideid: number; category: string }): Promise<number | null> {
  if (!(await anyProcess(db))) return null;
  return (await categoryProcess(db, await categoryId(db, guide.category))) ?? (await defaultForGuide(db, guide.guideid));
}

/** Enabled, unbanned users among `userids`. */
export async function enabledUsers(db: Db, userids: number[]): Promise<Set<number>> {
  if (userids.length === 0) return new Set();
  const rows = await db.selectFrom('users').select('userid').where('userid', 'in', [...new Set(userids)]).where('enabled', '=', 1).where('banned', '=', 0).execute();
  return new Set(rows.map((r) => r.userid));
}

/** The enabled, unbanned members of teams, in one query. */
export async function enabledMembers(db: Db, teamids: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (teamids.length === 0) return out;
  const rows = await db.selectFrom('team_members as m').innerJoin('users as u', 'u.userid', 'm.userid').select(['m.teamid', 'm.userid'])
    .where('m.teamid', 'in', [...new Set(teamids)]).where('u.enabled', '=', 1).where('u.banned', '=', 0).orderBy('m.teamid').orderBy('m.userid').execute();
  for (const r of rows) {
    const list = out.get(r.teamid) ?? [];
    list.push(r.userid);
    out.set(r.teamid, list);
  }
  return out;
}

/** What the people of a set of stages amount to: enabled users and enabled team members. */
export async function stagePeople(db: Db, stages: Array<{ userid: number | null; teamid: number | null }>) {
  const [users, members] = await Promise.all([
    enabledUsers(db, stages.flatMap((s) => (s.userid != null ? [s.userid] : []))),
    enabledMembers(db, stages.flatMap((s) => (s.teamid != null ? [s.teamid] : []))),
  ]);
  return { users, members };
}
export type StagePeople = Awaited<ReturnType<typeof stagePeople>>;

/** Who may sign a stage: its user when enabled; the enabled members of its team. */
export function candidatesOf(stage: { userid: number | null; teamid: number | null }, people: StagePeople): number[] {
  if (stage.userid != null) return people.users.has(stage.userid) ? [stage.userid] : [];
  if (stage.teamid != null) return people.members.get(stage.teamid) ?? [];
  return [];
}
