import type { Area } from '../area.js';
import { commentsRoutes } from './comments.routes.js';
import { postsRoutes } from './posts.routes.js';
import { seedCommentsDemo } from './comments.demo.js';

export const commentsArea: Area = {
  name: 'comments',
  async routes(app) {
    await commentsRoutes(app);
    await postsRoutes(app);
  },
  seedDemo: seedCommentsDemo,
};
