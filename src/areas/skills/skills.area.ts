import type { Area } from '../area.js';
import { skillsRoutes } from './skills.routes.js';

export const skillsArea: Area = {
  name: 'skills',
  routes: skillsRoutes,
};
