// Frozen in time: never edit a migration that has landed; add a new one.
// Courses (issue 14): courses (the COURSE namespace, kept in their own table so that the
// six wiki namespaces, /wikis lists and suggest never see them) with their revisions and
// ordered stages (a guide, a wiki or an external training module, with the assessment
// columns the assessments area fills); assignments of a course to a user or a team; one
// stored row per (course, user) reached by an assignment, holding the status, progress
// and dates every assignee list sorts by (an index per orderby); per-user stage statuses
// and the history of stage completions, each tied to the document revision it was made on
// and to what made it (a work log entry, a quiz session, a sign-off, a module attempt, a
// manager's override).
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('courses'), 'wikiid')
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('title_lower', 'text', (c) => c.notNull())
    .addColumn('contents_raw', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('publish_date', 'bigint')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    /** Soft delete: a deleted course keeps its assignments and completions (the training record). */
    .addColumn('deleted', 'integer', boolColumn)
    .addColumn('revisionid', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    /** Stored for GET /courses orderby, recomputed with the assignee rows. */
    .addColumn('stages_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assignee_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completion_percentage', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const col of ['title_lower', 'modified_date', 'stages_count', 'assignee_count', 'completion_percentage', 'enabled']) {
    await db.schema.createIndex(`courses_${col}`).on('courses').columns(['deleted', col, 'wikiid']).execute();
  }

  await withId(db, db.schema.createTable('course_wiki_revisions'), 'revisionid')
    .addColumn('wikiid', 'integer', (c) => c.notNull().references('courses.wikiid').onDelete('cascade'))
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    /** JSON: the course's fields and its stage list at that revision. */
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('course_wiki_revisions_course').on('course_wiki_revisions').columns(['wikiid', 'revisionid']).execute();

  await withId(db, db.schema.createTable('course_stages'), 'course_stageid')
    .addColumn('wikiid', 'integer', (c) => c.notNull().references('courses.wikiid').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    /** guide | wiki | external_training_module */
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    /** major | minor | null */
    .addColumn('strictness', 'text')
    .addColumn('frequency_quantity', 'integer')
    /** day | week | month | year | null */
    .addColumn('frequency_unit', 'text')
    .addColumn('stage_assessmentid', 'integer')
    /** signoff | quiz | null */
    .addColumn('assessmenttype', 'text')
    .addColumn('teamid_signer', 'integer')
    .addColumn('quiz_passing_score', 'integer')
    /** null: unlimited */
    .addColumn('attempts_limit', 'integer')
    .addColumn('skills_points_possible', 'integer')
    /** 0 once removed from the course: its completions stay. */
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('course_stages_course').on('course_stages').columns(['wikiid', 'active', 'position']).execute();
  await db.schema.createIndex('course_stages_doc').on('course_stages').columns(['doctype', 'docid', 'active']).execute();
  await db.schema.createIndex('course_stages_assessment').on('course_stages').columns(['stage_assessmentid']).execute();

  await withId(db, db.schema.createTable('course_assignments'), 'course_assignmentid')
    .addColumn('wikiid', 'integer', (c) => c.notNull().references('courses.wikiid').onDelete('cascade'))
    .addColumn('assignee_userid', 'integer', (c) => c.references('users.userid').onDelete('cascade'))
    .addColumn('assignee_teamid', 'integer', (c) => c.references('teams.teamid').onDelete('cascade'))
    .addColumn('userid_assigner', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    /** Seconds from the assignment to its due date; null: no due date. */
    .addColumn('due_within', 'bigint')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('cancelled', 'integer', boolColumn)
    .addColumn('cancelled_date', 'bigint')
    .execute();
  await db.schema.createIndex('course_assignments_course').on('course_assignments').columns(['wikiid', 'cancelled', 'course_assignmentid']).execute();
  await db.schema.createIndex('course_assignments_user').on('course_assignments').columns(['assignee_userid', 'cancelled']).execute();
  await db.schema.createIndex('course_assignments_team').on('course_assignments').columns(['assignee_teamid', 'cancelled']).execute();

  // One row per (course, user) an active assignment reaches (directly or through a team);
  // `active` 0 once none does any more. Status, progress and dates are stored and kept
  // current by every completion, invalidation, membership sync and the expiry job.
  await withId(db, db.schema.createTable('course_assignees'), 'course_assigneeid')
    .addColumn('wikiid', 'integer', (c) => c.notNull().references('courses.wikiid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    /** The earliest active assignment reaching the user (the source of assignment_date and due_date). */
    .addColumn('course_assignmentid', 'integer')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    /** Lower-cased copy of the username, for orderby username and search. */
    .addColumn('username', 'text', (c) => c.notNull())
    /** 0 not_started | 1 in_progress | 2 completed */
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_stages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_stages', 'integer', (c) => c.notNull().defaultTo(0))
    /** completed_stages / total_stages in ten-thousandths. */
    .addColumn('stage_progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assignment_date', 'bigint', (c) => c.notNull())
    .addColumn('due_date', 'bigint')
    .addColumn('course_completion_date', 'bigint')
    /** The earliest date a completed stage's recurrence expires it. */
    .addColumn('recurrence_date', 'bigint')
    /** 1 once the due date passed before the course was completed. */
    .addColumn('overdue', 'integer', boolColumn)
    /** When the expiry job must look at the row next (min of the open due date and recurrence_date). */
    .addColumn('next_check_date', 'bigint')
    .addUniqueConstraint('course_assignees_user_course', ['wikiid', 'userid'])
    .execute();
  for (const col of ['username', 'status', 'stage_progress', 'assignment_date', 'due_date', 'course_completion_date', 'recurrence_date']) {
    await db.schema.createIndex(`course_assignees_${col}`).on('course_assignees').columns(['wikiid', 'active', col, 'userid']).execute();
  }
  await db.schema.createIndex('course_assignees_user').on('course_assignees').columns(['userid', 'active', 'wikiid']).execute();
  await db.schema.createIndex('course_assignees_check').on('course_assignees').columns(['next_check_date']).execute();

  // The current status of one stage for one user (started, completed, expired, invalidated).
  await db.schema.createTable('course_stage_statuses')
    .addColumn('course_stageid', 'integer', (c) => c.notNull().references('course_stages.course_stageid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    /** The completion row this status comes from. */
    .addColumn('completionid', 'integer', (c) => c.notNull())
    /** When a completed stage's recurrence expires it; null: never. */
    .addColumn('expires_date', 'bigint')
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('course_stage_statuses_pk', ['course_stageid', 'userid'])
    .execute();
  await db.schema.createIndex('course_stage_statuses_user').on('course_stage_statuses').columns(['userid', 'wikiid']).execute();
  await db.schema.createIndex('course_stage_statuses_course').on('course_stage_statuses').columns(['wikiid', 'userid']).execute();
  await db.schema.createIndex('course_stage_statuses_expiry').on('course_stage_statuses').columns(['status', 'expires_date']).execute();

  // Every start and completion, kept for the audit: a row is never deleted; invalidation
  // and expiry mark it.
  await withId(db, db.schema.createTable('course_stage_completions'), 'course_assignment_stage_completionid')
    .addColumn('course_stageid', 'integer', (c) => c.notNull().references('course_stages.course_stageid').onDelete('cascade'))
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    /** The document revision the completion was made on (guide/wiki revisionid, module version). */
    .addColumn('doc_revisionid', 'integer')
    /** explicit | guide_completed | work_log | quiz | signoff | module | manager | bulk */
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('init_date', 'bigint', (c) => c.notNull())
    /** null while started. */
    .addColumn('end_date', 'bigint')
    .addColumn('work_log_entryid', 'integer')
    .addColumn('quiz_sessionid', 'integer')
    .addColumn('signoff_requestid', 'integer')
    .addColumn('module_attemptid', 'integer')
    .addColumn('manager_override_userid', 'integer')
    /** When a release or a manager invalidated it, or its recurrence expired it. */
    .addColumn('invalidated_date', 'bigint')
    .addColumn('expired_date', 'bigint')
    .execute();
  await db.schema.createIndex('course_stage_completions_user').on('course_stage_completions').columns(['userid', 'course_stageid', 'course_assignment_stage_completionid']).execute();
  await db.schema.createIndex('course_stage_completions_stage').on('course_stage_completions').columns(['course_stageid', 'userid']).execute();
  await db.schema.createIndex('course_stage_completions_work_log').on('course_stage_completions').columns(['work_log_entryid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['course_stage_completions', 'course_stage_statuses', 'course_assignees', 'course_assignments', 'course_stages', 'course_wiki_revisions', 'courses']) await db.schema.dropTable(t).ifExists().execute();
}
