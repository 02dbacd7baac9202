import type { FastifyInstance } from 'fastify';
import type { Area } from '../area.js';
import { coursesRoutes } from './courses.routes.js';
import { assignmentsRoutes } from './assignments.routes.js';
import { assigneesRoutes } from './assignees.routes.js';
import { seedCoursesDemo } from './courses.demo.js';
import { EXPIRY_JOB, expiryJob } from './courses.jobs.js';
// The release slot (a released guide invalidates completions by strictness) is
// registered when the service module loads.
import './courses.service.js';

export const coursesArea: Area = {
  name: 'courses',
  routes: async (app: FastifyInstance) => {
    await coursesRoutes(app);
    await assignmentsRoutes(app);
    await assigneesRoutes(app);
  },
  seedDemo: seedCoursesDemo,
  jobs: (config, clock) => ({ [EXPIRY_JOB]: expiryJob(config, clock) }),
};
