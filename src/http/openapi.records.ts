// The records the OpenAPI document names in `components.schemas`. Each schema object
// here is the very one routes use; `nameRecords` gives it a JSON Schema `title` (an
// annotation: validation and serialization ignore it), and the document's transform
// (src/http/openapi.ts) replaces every titled record by a `$ref` to its one definition.
import type { TSchema } from '@sinclair/typebox';
import { ErrorItem, ErrorResponse, ImageObject } from './schemas.js';
import { Comment, CommentAuthor, Post, Reply } from '../areas/comments/comments.schemas.js';
import {
  BulletStyle, CompletionStatus, FavoriteStatus, Flag, FullGuide, GuideDocument, Item, LightGuide, Line, Prerequisite,
  PreviewLine, Release, Step, StepMedia,
} from '../areas/guides/guides.schemas.js';
import { Constraint, DocumentRecord, EmbedRecord, Encoding, ImageDetail, MediaItem, VariantInfo, VideoDetail, VideoMeta } from '../areas/media/media.schemas.js';
import { TeamMember, TeamSummary, TeamWithCode } from '../areas/teams/teams.schemas.js';
import { GlossaryEntry, GlossaryPutResult, GlossaryTranslation } from '../areas/translation-glossary/glossary.schemas.js';
import { Badge, BadgeCounts, UserDetail, UserListItem, UserSelf, UserSummary, UserWithToken } from '../areas/users/users.schemas.js';
import { Hierarchy, Identification, RevisionItem, Supplier, WikiFull, WikiLight, WikiRelease } from '../areas/wikis/wikis.schemas.js';
import { Timing, WorkData, WorkLogEntry } from '../areas/work-log/work-log.schemas.js';
import { AuditEntry, AuditPage, AuditVerifyResult } from '../areas/audit/audit.schemas.js';
import { WebhookEventGroup, WebhookEventItem, WebhookLogRow, WebhookLogs, WebhookRedelivery, WebhookSubscription } from '../areas/webhooks/webhooks.schemas.js';
import {
  ApprovalProcess, ApprovalProcessDetail, ApprovalRequest, ApprovalRequestGuide, ApprovalRequestStage, ApprovalSignature, ApprovalStage, ProcessSearchResult,
} from '../areas/approvals/approvals.schemas.js';
import { DocumentSchedule, DocumentSearchResult, Review, ReviewDocument, ReviewSchedule, ReviewScheduleDetail } from '../areas/periodic-review/review.schemas.js';
import { Quiz, QuizCategory, QuizJson, QuizListEntry, QuizSession, QuizSessionEntry, QuizSubmission } from '../areas/quizzes/quizzes.schemas.js';
import { Signer, Signoff, SignoffRequest, SignoffTeam, SignoffToken } from '../areas/sign-offs/signoffs.schemas.js';
import { CourseAssigneesRatings, GuideAssignee, GuideAssigneesRatings, SkillBreakdown, SkillsMatrix, SkillWeights, SupervisorRating, TeamCourse } from '../areas/skills/skills.schemas.js';
import {
  AssigneeDetail, AssigneeStage, AssigneeTeam, AssigneeUser, AssignmentDetails, AssignmentSource, BulkChange, CompletionDetail, CompletionRow, Course, CourseCreated,
  CourseAssignment, CourseStage, IndividualSummary, LastCompletion, StageChange, StageCompletionResult, TeamSummary as CourseTeamSummary, UserCompletionStatus, UserStage,
} from '../areas/courses/courses.schemas.js';
import { CommitResult, ImportProgress, ModuleImport, ModuleUsage, PlayerData, TrainingModule } from '../areas/training-modules/modules.schemas.js';

/** Name in the document -> the record's schema. */
export const RECORDS: Record<string, TSchema> = {
  Error: ErrorResponse, ErrorItem, ImageObject,
  Guide: FullGuide, GuideLight: LightGuide, Step, StepMedia, Line, PreviewLine, BulletStyle, Prerequisite, Item,
  GuideDocument, Release, Flag, CompletionStatus, FavoriteStatus,
  Image: ImageDetail, Video: VideoDetail, Encoding, VideoMeta, Document: DocumentRecord, Embed: EmbedRecord, MediaItem,
  MediaVariant: VariantInfo, MediaConstraint: Constraint,
  Comment, Reply, CommentAuthor, Post,
  User: UserDetail, UserSummary, UserListItem, UserSelf, UserWithToken, Badge, BadgeCounts,
  Team: TeamSummary, TeamWithCode, TeamMember,
  Wiki: WikiFull, WikiLight, WikiSupplier: Supplier, WikiHierarchy: Hierarchy, WikiIdentification: Identification,
  WikiRevision: RevisionItem, WikiRelease,
  WorkLogEntry, WorkData, WorkTiming: Timing,
  GlossaryEntry, GlossaryTranslation, GlossaryPutResult,
  WebhookSubscription, WebhookEventGroup, WebhookEvent: WebhookEventItem, WebhookLogs, WebhookLogRow, WebhookRedelivery,
  ApprovalProcess, ApprovalProcessDetail, ApprovalStage, ApprovalRequest, ApprovalRequestStage, ApprovalSignature, ApprovalRequestGuide,
  ApprovalProcessSearch: ProcessSearchResult,
  ReviewSchedule, ReviewScheduleDetail, ReviewDocument, Review, DocumentSchedule, ReviewDocumentSearchResult: DocumentSearchResult,
  Quiz, QuizJson, QuizListEntry, QuizCategory, QuizSession, QuizSessionEntry, QuizSubmission,
  Signoff, SignoffRequest, SignoffTeam, Signer, SignoffToken,
  SkillWeights, SupervisorRating, SkillBreakdown, SkillsMatrix, TeamCourse, CourseAssigneesRatings, GuideAssigneesRatings, GuideAssignee,
  Course, CourseCreated, CourseStage, CourseLastCompletion: LastCompletion, CourseUserStage: UserStage, CourseUserCompletionStatus: UserCompletionStatus, CourseAssignment,
  CourseAssigneeUser: AssigneeUser, CourseAssigneeTeam: AssigneeTeam, CourseAssigneeStage: AssigneeStage, CourseAssigneeDetail: AssigneeDetail,
  CourseCompletion: CompletionRow, CourseCompletionDetail: CompletionDetail, CourseStageChange: StageChange, CourseBulkChange: BulkChange,
  CourseStageCompletionResult: StageCompletionResult, CourseIndividualSummary: IndividualSummary, CourseTeamSummary, CourseAssignmentSource: AssignmentSource,
  CourseAssignmentDetails: AssignmentDetails,
  ExternalTrainingModule: TrainingModule, ExternalTrainingModuleImport: ModuleImport, ExternalTrainingModuleImportProgress: ImportProgress,
  ExternalTrainingModuleUsage: ModuleUsage, ExternalTrainingModulePlayer: PlayerData, ScormCommitResult: CommitResult,
  AuditEntry, AuditPage, AuditVerifyResult,
};

/** Titles every record with its name (idempotent; a record keeps a title it already has). */
export function nameRecords() {
  for (const [name, schema] of Object.entries(RECORDS)) {
    if (schema.title !== undefined && schema.title !== name) throw new Error(`record ${name} is already titled ${schema.title}`);
    schema.title = name;
  }
}
