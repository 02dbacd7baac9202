import type { Area } from '../area.js';
import { moduleRoutes } from './modules.routes.js';
import { playerRoutes } from './modules.player.js';
import { IMPORT_JOB, importJob } from './modules.service.js';
import { seedModulesDemo } from './modules.demo.js';
import { moduleStoredFiles } from './modules.stored-files.js';

export const trainingModulesArea: Area = {
  name: 'external_training_modules',
  routes: moduleRoutes,
  publicRoutes: playerRoutes,
  seedDemo: seedModulesDemo,
  jobs: (config, clock) => ({ [IMPORT_JOB]: importJob(config, clock) }),
  storedFiles: [moduleStoredFiles],
};
