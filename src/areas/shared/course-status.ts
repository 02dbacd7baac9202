// What a user's course stages are and where they stand: the reads every area that completes
// a course stage asks (guides, the work log, assessments, modules), below the areas so that
// none of them imports the courses area. See "Courses" in docs/ARCHITECTURE.md.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CourseDoctype, CourseStageTable, StageStatus } from '../courses/courses.tables.js';

type Db = Kysely<Database>;

export const STAGE_COLUMNS = [
  'course_stageid', 'wikiid', 'position', 'doctype', 'docid', 'strictness', 'frequency_quantity', 'frequency_unit',
  'stage_assessmentid', 'assessmenttype', 'teamid_signer', 'quiz_passing_score', 'attempts_limit', 'skills_points_possible',
] as const;

/** A stage as the completing areas read it: the columns above of its table row. */
export type AssignedStage = Pick<Selectable<CourseStageTable>, (typeof STAGE_COLUMNS)[number]>;

/**
 * SQL: the courses (wikiids) an active assignment reaches `userid` in, directly or through
 * a team the user is a member of now (a team assignment reaches later members and stops
 * for those who left). Deleted courses reach no one.
 */
export function coursesReaching(db: Db, userid: number) {
  return db.selectFrom('course_assignments as ca')
    .innerJoin('courses as cc', 'cc.wikiid', 'ca.wikiid')
    .select('ca.wikiid')
    .where('ca.cancelled', '=', 0)
    .where('cc.deleted', '=', 0)
    .where((eb) => eb.or([
      eb('ca.assignee_userid', '=', userid),
      eb('ca.assignee_teamid', 'in', eb.selectFrom('team_members').select('team_members.teamid').where('team_members.userid', '=', userid)),
    ]));
}

/**
 * The active stages on document (`doctype`, `docid`) of the courses an active assignment
 * reaches `userid` in, ordered by course and position.
 */
export async function assignedStages(db: Db, userid: number, doc: { doctype: CourseDoctype | string; docid: number }): Promise<AssignedStage[]> {
  const rows = await db.selectFrom('course_stages as s')
    .select(STAGE_COLUMNS.map((c) => `s.${c}` as const))
    .where('s.doctype', '=', doc.doctype as CourseDoctype)
    .where('s.docid', '=', doc.docid)
    .where('s.active', '=', 1)
    .where('s.wikiid', 'in', coursesReaching(db, userid))
    .orderBy('s.wikiid').orderBy('s.position')
    .execute();
  return rows;
}

export interface StageStatusOf {
  course_stageid: number;
  userid: number;
  status: StageStatus;
  expires_date: number | null;
  completion: {
    course_assignment_stage_completionid: number;
    doc_revisionid: number | null;
    via: string;
    init_date: number;
    end_date: number | null;
    work_log_entryid: number | null;
    quiz_sessionid: number | null;
    signoff_requestid: number | null;
    module_attemptid: number | null;
    manager_override_userid: number | null;
  };
}

/** Where `userid` stands on one stage (its stored status and the completion row it comes from), or null when never started. */
export async function stageStatusOf(db: Db, userid: number, course_stageid: number): Promise<StageStatusOf | null> {
  const row = await db.selectFrom('course_stage_statuses as st')
    .innerJoin('course_stage_completions as c', 'c.course_assignment_stage_completionid', 'st.completionid')
    .select(['st.course_stageid', 'st.userid', 'st.status', 'st.expires_date',
      'c.course_assignment_stage_completionid', 'c.doc_revisionid', 'c.via', 'c.init_date', 'c.end_date', 'c.work_log_entryid',
      'c.quiz_sessionid', 'c.signoff_requestid', 'c.module_attemptid', 'c.manager_override_userid'])
    .where('st.course_stageid', '=', course_stageid)
    .where('st.userid', '=', userid)
    .executeTakeFirst();
  if (!row) return null;
  const { course_stageid: sid, userid: uid, status, expires_date, ...completion } = row;
  return { course_stageid: sid, userid: uid, status, expires_date, completion };
}

/** The `seconds` after `from` that a recurrence of `quantity` `unit`s ends (calendar months and years, UTC). */
export function recurrenceEnd(from: number, quantity: number | null, unit: string | null): number | null {
  if (!quantity || !unit) return null;
  const d = new Date(from * 1000);
  switch (unit) {
    case 'day': return from + quantity * 86_400;
    case 'week': return from + quantity * 604_800;
    case 'month': d.setUTCMonth(d.getUTCMonth() + quantity); return Math.floor(d.getTime() / 1000);
    case 'year': d.setUTCFullYear(d.getUTCFullYear() + quantity); return Math.floor(d.getTime() / 1000);
    default: return null;
  }
}

/** A stored 0/1/2 assignee status as the lists show it. */
export const STATUS_TEXT = ['Not Started', 'In Progress', 'Completed'] as const;
export const STATUS_KEYS = ['not_started', 'in_progress', 'completed'] as const;
export const FREQUENCY_UNITS = ['day', 'week', 'month', 'year'] as const;

/** The assignee's status from its stage counts: all completed, some touched, none. */
export function assigneeStatus(total: number, completed: number, touched: number): 0 | 1 | 2 {
  if (total > 0 && completed >= total) return 2;
  return touched > 0 ? 1 : 0;
}
