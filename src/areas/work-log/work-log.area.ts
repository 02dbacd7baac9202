import type { Area } from '../area.js';
import { workLogRoutes } from './work-log.routes.js';
import { seedWorkLogDemo } from './work-log.demo.js';

export const workLogArea: Area = {
  name: 'work_log',
  routes: workLogRoutes,
  seedDemo: seedWorkLogDemo,
};
