import type { Area } from '../area.js';
import { approvalsRoutes } from './approvals.routes.js';
import { seedApprovalsDemo } from './approvals.demo.js';
import { guideApprovals } from './approvals.guides.js';

export const approvalsArea: Area = { name: 'approvals', routes: approvalsRoutes, seedDemo: seedApprovalsDemo, guideApprovals };
