// Row loaders of the webhooks area.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { WebhookSubscriptionTable } from './webhooks.tables.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionTable>;

export function findSubscription(db: Kysely<Database>, id: number) {
  return db.selectFrom('webhook_subscriptions').selectAll().where('subscriptionid', '=', id).executeTakeFirst();
}

export function listSubscriptions(db: Kysely<Database>, offset: number, limit: number) {
  return db.selectFrom('webhook_subscriptions').selectAll().orderBy('subscriptionid').offset(offset).limit(limit).execute();
}

/** The event keys of these subscriptions, by subscription (one query). */
export async function eventKeysOf(db: Kysely<Database>, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await db.selectFrom('webhook_subscription_events').select(['subscriptionid', 'event_key']).where('subscriptionid', 'in', ids).orderBy('event_key').execute();
  for (const r of rows) out.get(r.subscriptionid)?.push(r.event_key);
  return out;
}

/** A page of a subscription's delivery log, newest first, and the count. */
export async function attemptsOf(db: Kysely<Database>, subscriptionid: number, offset: number, limit: number) {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.deliveryid', 'a.deliveryid')
    .select(['a.attemptid', 'a.deliveryid', 'd.event_key', 'a.created_date', 'a.status_code', 'a.error_message', 'a.trigger_type', 'd.request_body'])
    .where('a.subscriptionid', '=', subscriptionid)
    .orderBy('a.attemptid', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  const { n } = await db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).where('subscriptionid', '=', subscriptionid).executeTakeFirstOrThrow();
  return { count: Number(n), rows };
}

export function findAttempt(db: Kysely<Database>, subscriptionid: number, attemptid: number) {
  return db.selectFrom('webhook_attempts').select(['attemptid', 'deliveryid']).where('subscriptionid', '=', subscriptionid).where('attemptid', '=', attemptid).executeTakeFirst();
}
