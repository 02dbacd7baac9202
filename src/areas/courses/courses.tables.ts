// Tables of the courses area (migration 2026_11_25_0100_courses). The assessments and
// modules areas read and fill the stage's assessment columns and the completion's source
// columns; these declarations are the contract they code against.
import type { Generated } from 'kysely';

export type CourseDoctype = 'guide' | 'wiki' | 'external_training_module';
export type AssessmentType = 'signoff' | 'quiz';
export type StageStatus = 'started' | 'completed' | 'expired' | 'invalidated';
export type CompletionVia = 'explicit' | 'guide_completed' | 'work_log' | 'quiz' | 'signoff' | 'module' | 'manager' | 'bulk';

export interface CourseTable {
  wikiid: Generated<number>;
  langid: string;
  title: string;
  title_lower: string;
  contents_raw: Generated<string>;
  publish_date: number | null;
  enabled: Generated<number>;
  deleted: Generated<number>;
  revisionid: Generated<number>;
  userid: number | null;
  created_date: number;
  modified_date: number;
  stages_count: Generated<number>;
  assignee_count: Generated<number>;
  completion_percentage: Generated<number>;
}

export interface CourseRevisionTable {
  revisionid: Generated<number>;
  wikiid: number;
  userid: number | null;
  date: number;
  snapshot: string;
}

export interface CourseStageTable {
  course_stageid: Generated<number>;
  wikiid: number;
  position: number;
  doctype: CourseDoctype;
  docid: number;
  strictness: 'major' | 'minor' | null;
  frequency_quantity: number | null;
  frequency_unit: string | null;
  stage_assessmentid: number | null;
  assessmenttype: AssessmentType | null;
  teamid_signer: number | null;
  quiz_passing_score: number | null;
  attempts_limit: number | null;
  skills_points_possible: number | null;
  active: Generated<number>;
}

export interface CourseAssignmentTable {
  course_assignmentid: Generated<number>;
  wikiid: number;
  assignee_userid: number | null;
  assignee_teamid: number | null;
  userid_assigner: number | null;
  due_within: number | null;
  created_date: number;
  cancelled: Generated<number>;
  cancelled_date: number | null;
}

/** 0 not_started | 1 in_progress | 2 completed */
export type AssigneeStatusRank = 0 | 1 | 2;

export interface CourseAssigneeTable {
  course_assigneeid: Generated<number>;
  wikiid: number;
  userid: number;
  course_assignmentid: number | null;
  active: Generated<number>;
  username: string;
  status: Generated<number>;
  total_stages: Generated<number>;
  completed_stages: Generated<number>;
  stage_progress: Generated<number>;
  assignment_date: number;
  due_date: number | null;
  course_completion_date: number | null;
  recurrence_date: number | null;
  overdue: Generated<number>;
  next_check_date: number | null;
}

export interface CourseStageStatusTable {
  course_stageid: number;
  userid: number;
  wikiid: number;
  status: StageStatus;
  completionid: number;
  expires_date: number | null;
  modified_date: number;
}

export interface CourseStageCompletionTable {
  course_assignment_stage_completionid: Generated<number>;
  course_stageid: number;
  wikiid: number;
  userid: number;
  doctype: CourseDoctype;
  docid: number;
  doc_revisionid: number | null;
  via: CompletionVia;
  init_date: number;
  end_date: number | null;
  work_log_entryid: number | null;
  quiz_sessionid: number | null;
  signoff_requestid: number | null;
  module_attemptid: number | null;
  manager_override_userid: number | null;
  /** 1: an Admin's override on their own account (shared/oversight.ts). */
  self_override: Generated<number>;
  invalidated_date: number | null;
  expired_date: number | null;
}

/** Migration 2026_12_04_1600_course_ids: a renumbered course's old id (shared/course-aliases.ts). */
export interface CourseIdAliasTable {
  old_wikiid: number;
  new_wikiid: number;
}

export interface CoursesTables {
  courses: CourseTable;
  course_wiki_revisions: CourseRevisionTable;
  course_stages: CourseStageTable;
  course_assignments: CourseAssignmentTable;
  course_assignees: CourseAssigneeTable;
  course_stage_statuses: CourseStageStatusTable;
  course_stage_completions: CourseStageCompletionTable;
  course_id_aliases: CourseIdAliasTable;
}
