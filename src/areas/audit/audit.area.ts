import type { Area } from '../area.js';
import { auditRoutes } from './audit.routes.js';

/** Reading, exporting and verifying the audit log (the log itself: src/audit/). */
export const auditArea: Area = {
  name: 'audit',
  routes: auditRoutes,
};
