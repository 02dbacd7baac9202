import type { Area } from '../area.js';
import { mailJobHandler, MAIL_JOB } from '../../jobs/mail.js';
import { authRoutes } from './auth.routes.js';
import { loginRoutes } from './login.routes.js';
import { usersRoutes } from './users.routes.js';
import { seedUsersDemo } from './users.demo.js';
import { foundationBadges } from './badges.js';

export const usersArea: Area = {
  name: 'users',
  async routes(app) {
    await authRoutes(app);
    await usersRoutes(app);
  },
  publicRoutes: loginRoutes,
  seedDemo: seedUsersDemo,
  jobs: (config) => ({ [MAIL_JOB]: mailJobHandler(config) }),
  badges: foundationBadges,
};
