import type { Area } from '../area.js';
import { seedSignoffsDemo } from './signoffs.demo.js';
import { signoffsRoutes } from './signoffs.routes.js';
import { stageAssessmentFields } from './assessment-fields.js';

export const signoffsArea: Area = {
  name: 'course_sign_offs',
  seedDemo: seedSignoffsDemo,
  routes: signoffsRoutes,
  /** The quiz and sign-off fields of the course assignee user view. */
  stageAssessmentFields,
};
