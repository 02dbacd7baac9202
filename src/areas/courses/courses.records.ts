// Response records of the courses area, each built with a fixed number of batched queries
// for a whole page (never one per row).
import type { Kysely } from 'kysely';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { toBool } from '../../db/helpers.js';
import { wikiToDoc } from '../../markup/index.js';
import { renderWikiTexts } from '../content/render.js';
import { loadImageObjects } from '../media/image-object.js';
import { STATUS_TEXT } from '../shared/course-status.js';
import { managesCourses } from './courses.access.js';
import { courseUrl, docInfo, docKey, stagesOf, viewUrl, type AssignmentRow, type CourseRow, type StageRow } from './courses.queries.js';
import type { Course, CourseStage, LastCompletion, UserStage, CompletionRow } from './courses.schemas.js';
import type { Selectable } from 'kysely';
import type { CourseAssigneeTable, CourseStageCompletionTable } from './courses.tables.js';

type Db = Kysely<Database>;
type S<T extends TSchema> = Static<T>;
type CompletionDbRow = Selectable<CourseStageCompletionTable>;
export type AssigneeRow = Selectable<CourseAssigneeTable>;

export function lastCompletion(c: CompletionDbRow | undefined): S<typeof LastCompletion> | null {
  if (!c) return null;
  return {
    course_assignment_stage_completionid: c.course_assignment_stage_completionid,
    doctype: c.doctype,
    docid: c.docid,
    course_stage_doc_revisionid: c.doc_revisionid,
    assignee_userid: c.userid,
    manager_override_userid: c.manager_override_userid,
    self_override: c.self_override === 1,
    init_date: Number(c.init_date),
    end_date: c.end_date == null ? null : Number(c.end_date),
    work_log_entryid: c.work_log_entryid,
  };
}

export interface UserStageState {
  status: string;
  expires_date: number | null;
  completion: CompletionDbRow;
}

/** The stage statuses (with their completion rows) of these users on these courses: key `${course_stageid}:${userid}`. */
export async function stageStates(db: Db, wikiids: number[], userids: number[]): Promise<Map<string, UserStageState>> {
  const out = new Map<string, UserStageState>();
  if (!wikiids.length || !userids.length) return out;
  const rows = await db.selectFrom('course_stage_statuses as st')
    .innerJoin('course_stage_completions as c', 'c.course_assignment_stage_completionid', 'st.completionid')
    .selectAll('c').select(['st.status', 'st.expires_date'])
    .where('st.wikiid', 'in', wikiids).where('st.userid', 'in', userids)
    .execute();
  for (const r of rows) {
    const { status, expires_date, ...completion } = r;
    out.set(`${r.course_stageid}:${r.userid}`, { status, expires_date: expires_date == null ? null : Number(expires_date), completion: completion as CompletionDbRow });
  }
  return out;
}

function stageRecord(s: StageRow, info: { title: string; url: string } | undefined, completion: S<typeof LastCompletion> | null): S<typeof CourseStage> {
  return {
    course_stageid: s.course_stageid, docid: s.docid, doctype: s.doctype, doc_url: info?.url ?? '', orderby: s.position, strictness: s.strictness,
    title: info?.title ?? '', frequency_quantity: s.frequency_quantity, frequency_unit: s.frequency_unit as S<typeof CourseStage>['frequency_unit'], completion,
    stage_assessmentid: s.stage_assessmentid, assessmenttype: s.assessmenttype, teamid_signer: s.teamid_signer, quiz_passing_score: s.quiz_passing_score,
    attempts_limit: s.attempts_limit, skills_points_possible: s.skills_points_possible,
  };
}

/** Course records of `rows` as `viewer` sees them (each stage's `completion`: the viewer's). */
export async function courseRecords(db: Db, config: Config, rows: CourseRow[], viewer: AuthUser | null): Promise<Array<S<typeof Course>>> {
  const ids = rows.map((r) => r.wikiid);
  const stages = await stagesOf(db, ids);
  const [info, states, rendered] = await Promise.all([
    docInfo(db, config, stages),
    viewer ? stageStates(db, ids, [viewer.userid]) : Promise.resolve(new Map<string, UserStageState>()),
    renderWikiTexts(db, config, rows.map((r) => r.contents_raw)),
  ]);
  const canEdit = managesCourses(viewer);
  return rows.map((r, i) => {
    const url = courseUrl(config, r.wikiid);
    return {
      url,
      fullUrl: `${url}?langid=${encodeURIComponent(r.langid)}`,
      editUrl: `${config.publicUrl}/Courses/Edit/${r.wikiid}`,
      wikiid: r.wikiid,
      langid: r.langid,
      namespace: 'COURSE' as const,
      title: r.title,
      revisionid: r.revisionid,
      contents_raw: r.contents_raw,
      contents_json: wikiToDoc(r.contents_raw),
      contents_rendered: rendered[i],
      can_edit: canEdit,
      flags: [],
      image: null,
      documents: [],
      publish_date: r.publish_date == null ? null : Number(r.publish_date),
      created_date: Number(r.created_date),
      modified_date: Number(r.modified_date),
      enabled: r.enabled,
      stages: stages.filter((s) => s.wikiid === r.wikiid).map((s) => stageRecord(s, info.get(docKey(s)), viewer ? lastCompletion(states.get(`${s.course_stageid}:${viewer.userid}`)?.completion) : null)),
      assigneeCount: r.assignee_count,
      assignees: null,
      completionPercent: r.completion_percentage,
      viewUrl: viewUrl(r.wikiid),
    };
  });
}

/** The stored assignee rows of these (course, user) pairs. */
export async function assigneeRows(db: Db, pairs: Array<{ wikiid: number; userid: number }>): Promise<Map<string, AssigneeRow>> {
  const out = new Map<string, AssigneeRow>();
  const wikiids = [...new Set(pairs.map((p) => p.wikiid))];
  const userids = [...new Set(pairs.map((p) => p.userid))];
  if (!wikiids.length) return out;
  const rows = await db.selectFrom('course_assignees').selectAll().where('wikiid', 'in', wikiids).where('userid', 'in', userids).execute();
  for (const r of rows) out.set(`${r.wikiid}:${r.userid}`, r);
  return out;
}

/** Per-user stage entries of each (course, user) pair: key `${wikiid}:${userid}`. */
export async function userStages(db: Db, config: Config, pairs: Array<{ wikiid: number; userid: number }>): Promise<Map<string, Array<S<typeof UserStage> & { wikiid: number; doctype: string; docid: number }>>> {
  const wikiids = [...new Set(pairs.map((p) => p.wikiid))];
  const userids = [...new Set(pairs.map((p) => p.userid))];
  const stages = await stagesOf(db, wikiids);
  const [info, states, assignees] = await Promise.all([docInfo(db, config, stages), stageStates(db, wikiids, userids), assigneeRows(db, pairs)]);
  const out = new Map<string, Array<S<typeof UserStage> & { wikiid: number; doctype: string; docid: number }>>();
  for (const p of pairs) {
    const a = assignees.get(`${p.wikiid}:${p.userid}`);
    out.set(`${p.wikiid}:${p.userid}`, stages.filter((s) => s.wikiid === p.wikiid).map((s) => {
      const st = states.get(`${s.course_stageid}:${p.userid}`);
      const i = info.get(docKey(s));
      return {
        wikiid: s.wikiid,
        doctype: s.doctype,
        docid: s.docid,
        course_stageid: s.course_stageid,
        due_date: st?.status === 'completed' ? st.expires_date : a?.due_date == null ? null : Number(a.due_date),
        doc_url: i?.url ?? '',
        last_completion: lastCompletion(st?.completion),
        manager_override_userid: st?.completion.manager_override_userid ?? null,
        stage: s.position,
        status: (st?.status ?? null) as S<typeof UserStage>['status'],
        title: i?.title ?? '',
      };
    }));
  }
  return out;
}

/** Completion rows (stored assignee rows with the course title and username). */
export async function completionRows(db: Db, rows: AssigneeRow[]): Promise<Array<S<typeof CompletionRow>>> {
  const wikiids = [...new Set(rows.map((r) => r.wikiid))];
  const userids = [...new Set(rows.map((r) => r.userid))];
  const [courses, users] = await Promise.all([
    wikiids.length ? db.selectFrom('courses').select(['wikiid', 'title']).where('wikiid', 'in', wikiids).execute() : [],
    userids.length ? db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', userids).execute() : [],
  ]);
  const titles = new Map(courses.map((c) => [c.wikiid, c.title]));
  const names = new Map(users.map((u) => [u.userid, u.username]));
  return rows.map((r) => ({
    wikiid: r.wikiid,
    course_title: titles.get(r.wikiid) ?? '',
    userid: r.userid,
    username: names.get(r.userid) ?? '',
    status: STATUS_TEXT[r.status] ?? 'Not Started',
    completed_stages: r.completed_stages,
    total_stages: r.total_stages,
    assignment_date: Number(r.assignment_date),
    due_date: r.due_date == null ? null : Number(r.due_date),
    overdue: toBool(r.overdue),
    course_completion_date: r.course_completion_date == null ? null : Number(r.course_completion_date),
    recurrence_date: r.recurrence_date == null ? null : Number(r.recurrence_date),
  }));
}

/** Avatar URLs (thumbnail) of users. */
export async function avatars(db: Db, config: Config, userids: number[]): Promise<Map<number, { name: string; avatar: string | null }>> {
  const ids = [...new Set(userids)];
  if (!ids.length) return new Map();
  const users = await db.selectFrom('users').select(['userid', 'username', 'imageid']).where('userid', 'in', ids).execute();
  const images = await loadImageObjects(db, config, users.map((u) => u.imageid));
  return new Map(users.map((u) => [u.userid, { name: u.username, avatar: u.imageid ? images.get(u.imageid)?.thumbnail ?? images.get(u.imageid)?.original ?? null : null }]));
}

/** Course assignment records. */
export async function assignmentRecords(db: Db, config: Config, rows: AssignmentRow[], viewer: AuthUser | null) {
  const courseRows = rows.length ? await db.selectFrom('courses').selectAll().where('wikiid', 'in', [...new Set(rows.map((r) => r.wikiid))]).execute() : [];
  const courses = new Map((await courseRecords(db, config, courseRows, viewer)).map((c) => [c.wikiid, c]));
  const teamids = rows.map((r) => r.assignee_teamid).filter((x): x is number => x != null);
  const [teams, members] = await Promise.all([
    teamids.length ? db.selectFrom('teams').select(['teamid', 'name']).where('teamid', 'in', teamids).execute() : [],
    teamids.length ? db.selectFrom('team_members').select(['teamid', 'userid']).where('teamid', 'in', teamids).orderBy('userid').execute() : [],
  ]);
  const teamNames = new Map(teams.map((t) => [t.teamid, t.name]));
  const usersOf = (r: AssignmentRow) => (r.assignee_userid != null ? [r.assignee_userid] : members.filter((m) => m.teamid === r.assignee_teamid).map((m) => m.userid));
  const pairs = rows.flatMap((r) => usersOf(r).map((userid) => ({ wikiid: r.wikiid, userid })));
  const [stages, people] = await Promise.all([userStages(db, config, pairs), avatars(db, config, rows.map((r) => r.assignee_userid).filter((x): x is number => x != null))]);
  const strip = (list: Array<Record<string, unknown>> | undefined) => (list ?? []).map(({ wikiid: _w, doctype: _d, docid: _i, ...s }) => s) as Array<S<typeof UserStage>>;
  return rows.map((r) => ({
    course_assignmentid: r.course_assignmentid,
    wikiid: r.wikiid,
    assignee_userid: r.assignee_userid,
    assignee_teamid: r.assignee_teamid,
    assignee_name: r.assignee_userid != null ? people.get(r.assignee_userid)?.name ?? '' : teamNames.get(r.assignee_teamid!) ?? '',
    assignee_url: r.assignee_userid != null ? `${config.publicUrl}/User/${r.assignee_userid}` : `${config.publicUrl}/Team/${r.assignee_teamid}`,
    completion_status: usersOf(r).map((userid) => ({ userid, stages: strip(stages.get(`${r.wikiid}:${userid}`)) })),
    user_completion_status: r.assignee_userid != null ? strip(stages.get(`${r.wikiid}:${r.assignee_userid}`)) : null,
    due_within: r.due_within == null ? null : Number(r.due_within),
    created_date: Number(r.created_date),
    cancelled: r.cancelled,
    course: courses.get(r.wikiid)!,
  }));
}
