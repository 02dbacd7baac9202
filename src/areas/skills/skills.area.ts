import type { Area } from '../area.js';
import { seedSkillsDemo } from './skills.demo.js';
import { skillsRoutes } from './skills.routes.js';

export const skillsArea: Area = {
  name: 'skills',
  seedDemo: seedSkillsDemo,
  routes: skillsRoutes,
};
