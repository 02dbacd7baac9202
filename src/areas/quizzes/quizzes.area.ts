import type { Area } from '../area.js';
import { seedQuizzesDemo } from './quizzes.demo.js';
import { quizzesRoutes } from './quizzes.routes.js';

export const quizzesArea: Area = {
  name: 'quizzes',
  seedDemo: seedQuizzesDemo,
  routes: quizzesRoutes,
};
