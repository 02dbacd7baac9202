import type { Area } from '../area.js';
import { quizzesRoutes } from './quizzes.routes.js';

export const quizzesArea: Area = {
  name: 'quizzes',
  routes: quizzesRoutes,
};
