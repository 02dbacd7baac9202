// The explicit list of areas, in one place. Order matters only for the demo seed.
import type { Area } from './area.js';
import { usersArea } from './users/users.area.js';
import { teamsArea } from './teams/teams.area.js';
import { guidesArea } from './guides/guides.area.js';
import { mediaArea } from './media/media.area.js';
import { wikisArea } from './wikis/wikis.area.js';
import { commentsArea } from './comments/comments.area.js';
import { viewHistoryArea } from './view-history/view-history.area.js';
import { searchArea } from './search/search.area.js';
import { glossaryArea } from './translation-glossary/glossary.area.js';
import { workLogArea } from './work-log/work-log.area.js';
import { webhooksArea } from './webhooks/webhooks.area.js';
import { approvalsArea } from './approvals/approvals.area.js';
import { periodicReviewArea } from './periodic-review/review.area.js';
import { coursesArea } from './courses/courses.area.js';
import { trainingModulesArea } from './training-modules/modules.area.js';
import { quizzesArea } from './quizzes/quizzes.area.js';
import { signoffsArea } from './sign-offs/signoffs.area.js';
import { skillsArea } from './skills/skills.area.js';
import { auditArea } from './audit/audit.area.js';

// Media seeds its images before the guides use them; guides seed bare CATEGORY rows
// that the wikis seeder fills in. Courses seed before what builds on them: the modules'
// demo adds a stage to the demo course, the assessments fill its quiz and sign-off stages.
export const areas: Area[] = [usersArea, teamsArea, mediaArea, guidesArea, wikisArea, commentsArea, viewHistoryArea, searchArea, glossaryArea, workLogArea, webhooksArea, approvalsArea, periodicReviewArea, coursesArea, trainingModulesArea, quizzesArea, signoffsArea, skillsArea, auditArea];
