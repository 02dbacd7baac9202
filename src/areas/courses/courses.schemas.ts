// Course payloads. The course record, course stage, course assignment, per-user stage entry
// and last completion, and the course assignee responses, are the specification's; the
// /courses endpoints are documented extensions; payloads the specification does not show
// (start, complete, invalidate, summaries, completion views, sources, details) follow the
// style of the documented ones and are named in src/http/openapi.records.ts.
import { Type, type Static } from '@sinclair/typebox';
import { CaseInsensitiveEnum, Id, Nullable, StringEnum, Timestamp, TimestampParam } from '../../http/schemas.js';
import { GuideDocument, Flag } from '../guides/guides.schemas.js';
import { ImageObject } from '../../http/schemas.js';
import { FREQUENCY_UNITS } from '../shared/course-status.js';

export const COURSE_DOCTYPES = ['guide', 'wiki', 'external_training_module'] as const;
export const STAGE_STATUSES = ['started', 'completed', 'expired', 'invalidated'] as const;
export const ASSIGNEE_ORDERBY = ['username', 'status', 'stage_progress', 'assignment_date', 'due_date', 'course_completion_date', 'recurrence_date'] as const;
export const COURSE_ORDERBY = ['title', 'status', 'stages_count', 'modified_date', 'assignee_count', 'completion_percentage'] as const;
export const MAX_STAGES = 100;
export const MAX_LIST = 100;

const Doctype = CaseInsensitiveEnum(COURSE_DOCTYPES, { description: 'guide, wiki or external_training_module.' });
const StatusText = StringEnum(['Not Started', 'In Progress', 'Completed'] as const);

export const LastCompletion = Type.Object({
  course_assignment_stage_completionid: Type.Integer(),
  doctype: Type.String(),
  docid: Type.Integer(),
  course_stage_doc_revisionid: Nullable(Type.Integer({ description: 'The document revision the completion was made on.' })),
  assignee_userid: Type.Integer(),
  manager_override_userid: Nullable(Type.Integer()),
  self_override: Type.Boolean({ description: 'A manager\'s completion or invalidation an Admin made on their own account (only Admins act on their own account).' }),
  init_date: Timestamp,
  end_date: Nullable(Timestamp),
  work_log_entryid: Nullable(Type.Integer()),
}, { description: 'A user\'s last start or completion of a course stage.' });

const assessment = {
  stage_assessmentid: Nullable(Type.Integer()),
  assessmenttype: Nullable(StringEnum(['signoff', 'quiz'] as const)),
  teamid_signer: Nullable(Type.Integer({ description: 'sign-off: the team whose members sign.' })),
  quiz_passing_score: Nullable(Type.Integer()),
  attempts_limit: Nullable(Type.Integer({ description: 'null: unlimited.' })),
  skills_points_possible: Nullable(Type.Integer()),
};

export const CourseStage = Type.Object({
  course_stageid: Type.Integer(),
  docid: Type.Integer(),
  doctype: Doctype,
  doc_url: Type.String(),
  orderby: Type.Integer({ description: 'Position, from 0.' }),
  strictness: Nullable(StringEnum(['major', 'minor'] as const, { description: 'major: a new major release invalidates completions; minor: any release does; null: none.' })),
  title: Type.String(),
  frequency_quantity: Nullable(Type.Integer()),
  frequency_unit: Nullable(StringEnum(FREQUENCY_UNITS)),
  completion: Nullable(LastCompletion),
  ...assessment,
}, { description: 'A course stage; `completion` is the caller\'s last completion of it.' });

export const Course = Type.Object({
  url: Type.String(),
  fullUrl: Type.String(),
  editUrl: Type.String(),
  wikiid: Type.Integer(),
  langid: Type.String(),
  namespace: Type.Literal('COURSE'),
  title: Type.String(),
  revisionid: Type.Integer(),
  contents_raw: Type.String(),
  contents_json: Type.Unknown({ description: 'The contents as a document tree.' }),
  contents_rendered: Type.String(),
  can_edit: Type.Boolean(),
  flags: Type.Array(Flag),
  image: Nullable(ImageObject),
  documents: Type.Array(GuideDocument),
  publish_date: Nullable(Timestamp),
  created_date: Timestamp,
  modified_date: Timestamp,
  enabled: Type.Integer({ description: '0 or 1.' }),
  stages: Type.Array(CourseStage),
  assigneeCount: Type.Integer(),
  assignees: Type.Null(),
  completionPercent: Type.Integer({ description: 'Share of the active assignees who completed it, 0 to 100.' }),
  viewUrl: Type.String(),
}, { description: 'A course (namespace COURSE).' });

/** POST /courses answers the course with `courseid` too: the name some clients read the id by. */
export const CourseCreated = Type.Object({
  ...Course.properties,
  courseid: Type.Integer({ description: 'Equal to `wikiid`.' }),
}, { description: 'The course created, with `courseid` (equal to `wikiid`).' });

export const UserStage = Type.Object({
  course_stageid: Type.Integer(),
  due_date: Nullable(Timestamp),
  doc_url: Type.String(),
  last_completion: Nullable(LastCompletion),
  manager_override_userid: Nullable(Type.Integer()),
  stage: Type.Integer({ description: 'The stage\'s position, from 0.' }),
  status: Nullable(StringEnum(STAGE_STATUSES, { description: 'null: not started.' })),
  title: Type.String(),
}, { description: 'A per-user stage entry.' });

export const UserCompletionStatus = Type.Object({ userid: Type.Integer(), stages: Type.Array(UserStage) });

export const CourseAssignment = Type.Object({
  course_assignmentid: Type.Integer(),
  wikiid: Type.Integer(),
  assignee_userid: Nullable(Type.Integer()),
  assignee_teamid: Nullable(Type.Integer()),
  assignee_name: Type.String(),
  assignee_url: Type.String(),
  completion_status: Type.Array(UserCompletionStatus),
  user_completion_status: Nullable(Type.Array(UserStage)),
  due_within: Nullable(Type.Integer({ description: 'Seconds.' })),
  created_date: Timestamp,
  cancelled: Type.Integer({ description: '0 or 1.' }),
  course: Course,
}, { description: 'A course assignment to a user or a team.' });

export const AssigneeUser = Type.Object({
  userid: Type.Integer(),
  total_stages: Type.Integer(),
  username: Type.String(),
  user_avatar: Nullable(Type.String()),
  completed_stages: Type.Integer(),
  status: StatusText,
  course_completion_date: Nullable(Timestamp),
  assignment_date: Timestamp,
  recurrent_date: Nullable(Timestamp),
  due_date: Nullable(Timestamp),
}, { description: 'An assignee of a course.' });

export const AssigneeTeam = Type.Object({
  teamid: Type.Integer(),
  team_name: Type.String(),
  time_allotted: Nullable(Type.Integer()),
  team_assignment_date: Timestamp,
  members_count: Type.Integer(),
  members_completed: Type.Integer(),
  avatar: Nullable(Type.String()),
  completion_percentage: Type.Integer(),
  total_stages: Type.Integer(),
  completed_stages: Type.Integer(),
  status: StatusText,
}, { description: 'A team a course is assigned to.' });

const Person = Type.Object({ userid: Nullable(Type.Integer()), name: Type.String(), avatar: Nullable(Type.String()) });
const Obj = (d: string) => Nullable(Type.Object({}, { additionalProperties: true, description: d }));

export const AssigneeStage = Type.Object({
  course_stageid: Type.Integer(),
  doc_title: Type.String(),
  doc_url: Type.String(),
  docid: Type.Integer(),
  doctype: Doctype,
  completion_status: Nullable(StringEnum(STAGE_STATUSES)),
  completion_date: Nullable(Timestamp),
  due_date: Nullable(Timestamp),
  work_log_entry_pdf_url: Nullable(Type.String()),
  work_log_completion_date: Nullable(Timestamp),
  attached_quiz: Obj('The quiz attached to the stage (assessments).'),
  quiz_session: Obj('The user\'s last quiz session (assessments).'),
  quiz_attempts_remaining: Nullable(Type.Integer()),
  signoff: Obj('The stage\'s sign-off (assessments).'),
}, { description: 'A stage in the course assignee user view.' });

export const AssigneeDetail = Type.Object({
  assigner: Person,
  assignee: Person,
  created_date: Timestamp,
  due_date: Nullable(Timestamp),
  course_assignmentid: Type.Integer(),
  completion_date: Nullable(Timestamp),
  completion_status: StatusText,
  total_stages_complete: Type.Integer(),
  stages: Type.Array(AssigneeStage),
}, { description: 'One assignee of a course, with its stages.' });

export const CompletionRow = Type.Object({
  wikiid: Type.Integer(),
  course_title: Type.String(),
  userid: Type.Integer(),
  username: Type.String(),
  status: StatusText,
  completed_stages: Type.Integer(),
  total_stages: Type.Integer(),
  assignment_date: Timestamp,
  due_date: Nullable(Timestamp),
  overdue: Type.Boolean(),
  course_completion_date: Nullable(Timestamp),
  recurrence_date: Nullable(Timestamp),
}, { description: 'Where one user stands on one course (stored, kept current).' });

export const CompletionDetail = Type.Object({ ...CompletionRow.properties, stages: Type.Array(UserStage) }, { description: 'One user on one course, with the per-user stage entries.' });

export const StageChange = Type.Object({
  userid: Type.Integer(),
  doctype: Doctype,
  docid: Type.Integer(),
  changed: Type.Integer({ description: 'How many stages moved.' }),
  stages: Type.Array(Type.Object({ wikiid: Type.Integer(), ...UserStage.properties })),
}, { description: 'The user\'s stages on a document after a start, complete or invalidate.' });

export const BulkChange = Type.Object({ users: Type.Integer(), changed: Type.Integer({ description: 'Stages that moved.' }) }, { description: 'What a manager\'s complete-all or invalidate-all moved.' });

export const StageCompletionResult = Type.Object({
  userid: Type.Integer(), course_stageid: Type.Integer(), wikiid: Type.Integer(), status: StringEnum(STAGE_STATUSES), changed: Type.Boolean(),
}, { description: 'One stage completion of a bulk request.' });

export const IndividualSummary = Type.Object({
  userid: Type.Integer(), username: Type.String(), courses_assigned: Type.Integer(), courses_completed: Type.Integer(),
  courses_in_progress: Type.Integer(), courses_not_started: Type.Integer(), courses_overdue: Type.Integer(),
}, { description: 'A user\'s courses by status.' });

export const TeamSummary = Type.Object({
  teamid: Type.Integer(), team_name: Type.String(), members_count: Type.Integer(), courses_assigned: Type.Integer(),
  assignees: Type.Integer({ description: 'Member-course pairs.' }), completed: Type.Integer(), in_progress: Type.Integer(), not_started: Type.Integer(), overdue: Type.Integer(),
  completion_percentage: Type.Integer(),
}, { description: 'A team\'s course progress (its members on every course reaching them).' });

export const AssignmentSource = Type.Object({
  course_assignmentid: Type.Integer(), wikiid: Type.Integer(), course_title: Type.String(), via: StringEnum(['user', 'team'] as const),
  teamid: Nullable(Type.Integer()), team_name: Nullable(Type.String()), created_date: Timestamp, due_within: Nullable(Type.Integer()),
}, { description: 'An active assignment reaching a user or team, and through what.' });

export const AssignmentDetails = Type.Object({
  course_assignmentid: Type.Integer(), wikiid: Type.Integer(), course_title: Type.String(),
  assignee_userid: Nullable(Type.Integer()), assignee_teamid: Nullable(Type.Integer()), assignee_name: Type.String(),
  assigner: Person, due_within: Nullable(Type.Integer()), created_date: Timestamp, cancelled: Type.Integer(),
  users: Type.Integer(), completed: Type.Integer(), in_progress: Type.Integer(), not_started: Type.Integer(),
}, { description: 'An assignment with the progress of the users it reaches.' });

// ---- requests

const StageInput = Type.Object({
  course_stageid: Type.Optional(Id({ description: 'An existing stage to keep (its completions stay); without it a new stage.' })),
  doctype: Doctype,
  docid: Id(),
  strictness: Type.Optional(Nullable(StringEnum(['major', 'minor'] as const))),
  frequency_quantity: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
  frequency_unit: Type.Optional(Nullable(StringEnum(FREQUENCY_UNITS))),
  stage_assessmentid: Type.Optional(Nullable(Id())),
  assessmenttype: Type.Optional(Nullable(StringEnum(['signoff', 'quiz'] as const))),
  teamid_signer: Type.Optional(Nullable(Id())),
  quiz_passing_score: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100 }))),
  attempts_limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
  skills_points_possible: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }))),
}, { additionalProperties: false });
export type StageInput = Static<typeof StageInput>;

export const CourseCreate = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  contents: Type.String({ maxLength: 1_000_000, description: 'Wiki syntax.' }),
  publish_date: Type.Optional(Nullable(TimestampParam())),
  enabled: Type.Optional(Type.Boolean()),
  stages: Type.Optional(Type.Array(StageInput, { maxItems: MAX_STAGES })),
}, { additionalProperties: false });

export const RevisionQuery = Type.Object({ revisionid: Id({ description: 'The course\'s current revisionid (409 with the current course otherwise).' }) });

export const CoursePatch = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  contents: Type.Optional(Type.String({ maxLength: 1_000_000 })),
  publish_date: Type.Optional(Nullable(TimestampParam())),
  enabled: Type.Optional(Type.Boolean()),
  stages: Type.Optional(Type.Array(StageInput, { maxItems: MAX_STAGES, description: 'The whole ordered stage list: stages named by course_stageid are kept (and changed), others added; stages left out are removed (their completions stay).' })),
}, { additionalProperties: false });

export const CourseListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 30 }),
  direction: StringEnum(['ASC', 'DESC'] as const, { default: 'ASC' }),
  orderby: StringEnum(COURSE_ORDERBY, { default: 'title' }),
  query: Type.Optional(Type.String({ maxLength: 200 })),
  disabledOkay: Type.Optional(Type.Boolean()),
  userid: Type.Optional(Id({ description: 'Only courses assigned to this user.' })),
});

export const AssignmentCreate = Type.Object({
  wikiid: Id(),
  assignee_userid: Type.Optional(Id()),
  assignee_teamid: Type.Optional(Id()),
  due_within: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100 * 365 * 86_400, description: 'Seconds after the assignment the course is due.' }))),
}, { additionalProperties: false, description: 'Exactly one of assignee_userid and assignee_teamid.' });

export const AssigneeQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  direction: StringEnum(['ASC', 'DESC'] as const, { default: 'ASC' }),
  orderby: StringEnum(ASSIGNEE_ORDERBY, { default: 'username' }),
  status: Type.Optional(Type.String({ maxLength: 100, pattern: '^(not_started|in_progress|completed)(,(not_started|in_progress|completed))*$', description: 'not_started, in_progress, completed, or a comma list of them.' })),
  search: Type.Optional(Type.String({ maxLength: 100 })),
});

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
});

export const CompleteBody = Type.Object({
  course_stageid: Type.Optional(Id({ description: 'Only this stage.' })),
  revisionid: Type.Optional(Id({ description: 'The document revision completed (default: the current one).' })),
}, { additionalProperties: false });

export const ScopeBody = Type.Object({ wikiid: Type.Optional(Id({ description: 'Only this course.' })) }, { additionalProperties: false });

export const StageCompletionsBody = Type.Object({
  completions: Type.Array(Type.Object({ userid: Id(), course_stageid: Id() }, { additionalProperties: false }), { minItems: 1, maxItems: MAX_LIST }),
}, { additionalProperties: false });

export const IdsBody = (name: string) => Type.Object({ [name]: Type.Array(Id(), { minItems: 1, maxItems: MAX_LIST }) }, { additionalProperties: false });

export const DocParams = Type.Object({ doctype: Doctype, docid: Id() });
