import type { Area } from '../area.js';
import { searchRoutes } from './search.routes.js';

export const searchArea: Area = {
  name: 'suggest',
  routes: searchRoutes,
};
