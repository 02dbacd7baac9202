import type { Area } from '../area.js';
import { wikisRoutes } from './wikis.routes.js';
import { seedWikisDemo } from './wikis.demo.js';

export const wikisArea: Area = {
  name: 'wikis',
  routes: wikisRoutes,
  seedDemo: seedWikisDemo,
};
