import type { Area } from '../area.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { deliveryJobType } from './webhooks.delivery.js';
import { WEBHOOK_DELIVERY_JOB } from './webhooks.outbox.js';

export const webhooksArea: Area = {
  name: 'webhooks',
  routes: webhooksRoutes,
  jobs: (config) => ({ [WEBHOOK_DELIVERY_JOB]: deliveryJobType(config) }),
};
