// The database's tables, as Kysely sees them. Each area declares its own tables in
// `<area>.tables.ts`; this interface joins them.
import type { FoundationTables } from './foundation.tables.js';
import type { UsersTables } from '../areas/users/users.tables.js';
import type { TeamsTables } from '../areas/teams/teams.tables.js';
import type { GuidesTables } from '../areas/guides/guides.tables.js';
import type { MediaTables } from '../areas/media/media.tables.js';
import type { WikisTables } from '../areas/wikis/wikis.tables.js';
import type { CommentsTables } from '../areas/comments/comments.tables.js';
import type { ViewHistoryTables } from '../areas/view-history/view-history.tables.js';
import type { SearchTables } from '../areas/search/search.tables.js';
import type { GlossaryTables } from '../areas/translation-glossary/glossary.tables.js';
import type { WorkLogTables } from '../areas/work-log/work-log.tables.js';
import type { ApprovalsTables } from '../areas/approvals/approvals.tables.js';
import type { ReviewTables } from '../areas/periodic-review/review.tables.js';
import type { WebhooksTables } from '../areas/webhooks/webhooks.tables.js';
import type { CoursesTables } from '../areas/courses/courses.tables.js';
import type { TrainingModulesTables } from '../areas/training-modules/modules.tables.js';
import type { QuizzesTables } from '../areas/quizzes/quizzes.tables.js';
import type { SkillsTables } from '../areas/skills/skills.tables.js';
import type { SignoffsTables } from '../areas/sign-offs/signoffs.tables.js';
import type { AuditTables } from '../audit/audit.tables.js';

export interface Database extends FoundationTables, UsersTables, TeamsTables, GuidesTables, MediaTables, WikisTables, CommentsTables, ViewHistoryTables, SearchTables, GlossaryTables, WorkLogTables, ApprovalsTables, WebhooksTables, ReviewTables, CoursesTables, TrainingModulesTables, QuizzesTables, SkillsTables, SignoffsTables, AuditTables {}
