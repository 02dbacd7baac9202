// Writes of the webhooks area, each one transaction. Callers validate first.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { fromBool } from '../../db/helpers.js';
import { enqueueJob } from '../../jobs/queue.js';
import { DELIVERY_JOB_ATTEMPTS, WEBHOOK_DELIVERY_JOB, type DeliveryJob } from './webhooks.outbox.js';
import { sealSecret } from './webhooks.secrets.js';
import type { WebhookSubscriptionTable } from './webhooks.tables.js';
import type { WebhookSubscriptionCreate, WebhookSubscriptionPatch } from './webhooks.schemas.js';
import type { AuthUser } from '../../http/auth.js';
import { audit, changesOf, type AuditChanges } from '../../audit/audit.js';
import type { AuditAction } from '../../audit/actions.js';

type Db = Kysely<Database>;

/**
 * Never recorded as values: the signing key (sealed or not) and the URL (it may carry a
 * token of the receiver's); both are named when they change.
 */
const HIDDEN = ['url', 'secret_sealed'];

async function auditSubscription(trx: Db, actor: AuthUser, now: number, action: AuditAction, subscriptionid: number, changes: AuditChanges | null = null) {
  await audit(trx, { action, actor, time: now, resource_type: 'webhook', resource_id: subscriptionid, changes });
}

async function setEventKeys(trx: Db, subscriptionid: number, keys: string[]) {
  await trx.deleteFrom('webhook_subscription_events').where('subscriptionid', '=', subscriptionid).execute();
  if (keys.length) await trx.insertInto('webhook_subscription_events').values(keys.map((event_key) => ({ event_key, subscriptionid }))).execute();
}

export function createSubscription(db: Db, config: Config, clock: Clock, actor: AuthUser, b: WebhookSubscriptionCreate): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    const { subscriptionid } = await trx.insertInto('webhook_subscriptions').values({
      title: b.title.trim(), description: b.description ?? '', url: b.url, enabled: fromBool(b.enabled ?? true), secret_sealed: sealSecret(config, b.secretKey),
      invocation_count: 0, consecutive_failures: 0, disabled_reason: null, created_date: now, modified_date: now,
    }).returning('subscriptionid').executeTakeFirstOrThrow();
    await setEventKeys(trx, subscriptionid, b.eventKeys);
    await auditSubscription(trx, actor, now, 'webhook.created', subscriptionid, changesOf(null, { title: b.title.trim(), url: b.url, enabled: b.enabled ?? true, event_keys: b.eventKeys }, HIDDEN));
    return subscriptionid;
  });
}

export function updateSubscription(db: Db, config: Config, clock: Clock, actor: AuthUser, before: Selectable<WebhookSubscriptionTable>, b: WebhookSubscriptionPatch): Promise<void> {
  const id = before.subscriptionid;
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    const set: Updateable<WebhookSubscriptionTable> = { modified_date: now };
    if (b.title !== undefined) set.title = b.title.trim();
    if (b.description !== undefined) set.description = b.description;
    if (b.url !== undefined) set.url = b.url;
    if (b.secretKey !== undefined) set.secret_sealed = sealSecret(config, b.secretKey);
    if (b.enabled !== undefined) {
      set.enabled = fromBool(b.enabled);
      // Turned on (again) by an Admin: the failures that disabled it are forgiven; turned off: by the Admin, no reason.
      set.consecutive_failures = 0;
      set.disabled_reason = null;
    }
    await trx.updateTable('webhook_subscriptions').set(set).where('subscriptionid', '=', id).execute();
    if (b.eventKeys !== undefined) await setEventKeys(trx, id, b.eventKeys);
    // The signing key's change is an entry of its own (never its value); the rest, one entry naming what changed.
    if (b.secretKey !== undefined) await auditSubscription(trx, actor, now, 'webhook.secret_changed', id, { secretKey: {} });
    const { title, description, url, enabled, consecutive_failures, disabled_reason } = set;
    const changes = changesOf(before as unknown as Record<string, unknown>, { title, description, url, enabled, consecutive_failures, disabled_reason }, HIDDEN);
    const keys = b.eventKeys !== undefined ? { event_keys: {} } : null;
    if (changes || keys) await auditSubscription(trx, actor, now, 'webhook.edited', id, { ...changes, ...keys });
  });
}

export async function deleteSubscription(db: Db, actor: AuthUser, now: number, id: number): Promise<void> {
  // Deliveries and attempts go with it (foreign keys cascade); their pending jobs find nothing and end.
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('webhook_attempts').where('subscriptionid', '=', id).execute();
    await trx.deleteFrom('webhook_deliveries').where('subscriptionid', '=', id).execute();
    await trx.deleteFrom('webhook_subscription_events').where('subscriptionid', '=', id).execute();
    await trx.deleteFrom('webhook_subscriptions').where('subscriptionid', '=', id).execute();
    await auditSubscription(trx, actor, now, 'webhook.deleted', id);
  });
}

/** Queues an Admin's redelivery of a delivery (sent again now, whatever became of it). */
export async function queueRedelivery(db: Db, clock: Clock, deliveryid: number): Promise<number> {
  const job: DeliveryJob = { deliveryid, trigger: 'manual' };
  const runAt = clock.now();
  await db.transaction().execute((trx) => enqueueJob(trx, clock, WEBHOOK_DELIVERY_JOB, job, { runAt, maxAttempts: DELIVERY_JOB_ATTEMPTS }));
  return runAt;
}
