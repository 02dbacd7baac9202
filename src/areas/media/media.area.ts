import type { Area } from '../area.js';
import { mediaRoutes } from './media.routes.js';
import { mediaFileRoutes } from './media.files.js';
import { seedMediaDemo } from './media.demo.js';
import { videoJob, VIDEO_JOB } from './videos.js';
import { purgeJobHandler, PURGE_JOB } from './media.service.js';
import { foundationMediaUses } from './media-usage.js';
import { mediaStoredFiles } from './media.stored-files.js';

export const mediaArea: Area = {
  name: 'media',
  routes: mediaRoutes,
  publicRoutes: mediaFileRoutes,
  seedDemo: seedMediaDemo,
  jobs: (config) => ({ [VIDEO_JOB]: videoJob(config), [PURGE_JOB]: purgeJobHandler(config) }),
  mediaUsages: [foundationMediaUses],
  storedFiles: [mediaStoredFiles],
};
