// The webhook outbox. A change that emits an event calls `publishEvent` inside its own
// transaction: a `webhook_deliveries` row and a delivery job (a row of the jobs table) are
// written for every enabled subscription that wants the event's key. They commit with the
// change or not at all: no event without the change, and none lost when the process dies
// before sending (the job waits in the table for any worker). Delivery itself
// (webhooks.delivery.ts) runs later, from the job worker.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import { enqueueJob } from '../../jobs/queue.js';
import { isWebhookEventKey, type WebhookEventKey } from './webhooks.events.js';

export { WEBHOOK_EVENT_GROUPS, WEBHOOK_EVENT_KEYS, isWebhookEventKey, type WebhookEventKey } from './webhooks.events.js';

/** The job type of one delivery attempt; payload `DeliveryJob`. */
export const WEBHOOK_DELIVERY_JOB = 'webhooks.deliver';
export interface DeliveryJob {
  deliveryid: number;
  /** What caused this attempt: the event itself, a scheduled retry, or an Admin's redelivery. */
  trigger: 'event' | 'retry' | 'manual';
}
/** Crash retries of one attempt (a process that died mid-send); HTTP failures are retried on the webhook schedule instead. */
export const DELIVERY_JOB_ATTEMPTS = 3;

export interface WebhookEvent {
  key: WebhookEventKey;
  /** e.g. "Approval Request Submitted" */
  title: string;
  description: string;
  /** What the matching GET answers for the thing that changed (JSON). */
  data: unknown;
}

/**
 * Writes `event` into the outbox with `trx`, the caller's transaction (a `Kysely` works
 * too, as its own statement). Nothing is written when no enabled subscription wants the key.
 */
export async function publishEvent(trx: Kysely<Database>, clock: Clock, event: WebhookEvent): Promise<void> {
  if (!isWebhookEventKey(event.key)) throw new Error(`unknown webhook event key ${String(event.key)}`);
  const subscriptions = await trx
    .selectFrom('webhook_subscription_events as e')
    .innerJoin('webhook_subscriptions as s', 's.subscriptionid', 'e.subscriptionid')
    .select('s.subscriptionid')
    .where('e.event_key', '=', event.key)
    .where('s.enabled', '=', 1)
    .orderBy('s.subscriptionid')
    .execute();
  if (!subscriptions.length) return;
  const now = clock.now();
  const stored = JSON.stringify({ title: event.title, description: event.description, data: event.data ?? null });
  for (const { subscriptionid } of subscriptions) {
    const { deliveryid } = await trx
      .insertInto('webhook_deliveries')
      .values({ subscriptionid, event_key: event.key, event: stored, request_body: null, status: 'pending', attempts: 0, created_date: now, modified_date: now })
      .returning('deliveryid')
      .executeTakeFirstOrThrow();
    const job: DeliveryJob = { deliveryid, trigger: 'event' };
    await enqueueJob(trx, clock, WEBHOOK_DELIVERY_JOB, job, { maxAttempts: DELIVERY_JOB_ATTEMPTS });
  }
}
