import type { FastifyInstance } from 'fastify';
import type { Area } from '../area.js';
import { coursesRoutes } from './courses.routes.js';
import { assignmentsRoutes } from './assignments.routes.js';
import { assigneesRoutes } from './assignees.routes.js';
import { seedCoursesDemo } from './courses.demo.js';
import { courseAliasHook } from '../shared/course-aliases.js';
import { EXPIRY_JOB, expiryJob } from './courses.jobs.js';
// The release slot (a released guide invalidates completions by strictness) is
// registered when the service module loads.
import './courses.service.js';

export const coursesArea: Area = {
  name: 'courses',
  routes: async (app: FastifyInstance) => {
    // Old (renumbered) course ids still work on every course route, with a Deprecation header.
    app.addHook('preValidation', courseAliasHook(app.db, app.config.publicUrl));
    await coursesRoutes(app);
    await assignmentsRoutes(app);
    await assigneesRoutes(app);
  },
  seedDemo: seedCoursesDemo,
  jobs: (config, clock) => ({ [EXPIRY_JOB]: expiryJob(config, clock) }),
};
