import type { Area } from '../area.js';
import { reviewRoutes } from './review.routes.js';
import { seedReviewDemo } from './review.demo.js';
import { REMINDER_JOB, reminderJob } from './review.jobs.js';
// The release slot (a guide released with "reviewed": true counts as a review) is
// registered when the service module loads.
import './review.service.js';

export const periodicReviewArea: Area = {
  name: 'periodic_review',
  routes: reviewRoutes,
  seedDemo: seedReviewDemo,
  jobs: (config, clock) => ({ [REMINDER_JOB]: reminderJob(config, clock) }),
};
