import type { Area } from '../area.js';
import { viewHistoryRoutes } from './view-history.routes.js';

export const viewHistoryArea: Area = {
  name: 'user_view_history',
  routes: viewHistoryRoutes,
};
