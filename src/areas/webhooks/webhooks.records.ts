// Response records of the webhooks area. The signing key is never part of one.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toBool } from '../../db/helpers.js';
import { eventKeysOf, type SubscriptionRow } from './webhooks.queries.js';
import type { WebhookSubscription } from './webhooks.schemas.js';

export async function subscriptionRecords(db: Kysely<Database>, rows: SubscriptionRow[]): Promise<WebhookSubscription[]> {
  const keys = await eventKeysOf(db, rows.map((r) => r.subscriptionid));
  return rows.map((r) => ({
    id: r.subscriptionid,
    title: r.title,
    description: r.description,
    url: r.url,
    enabled: toBool(r.enabled),
    eventKeys: keys.get(r.subscriptionid) ?? [],
    invocationCount: Number(r.invocation_count),
    disabledReason: r.disabled_reason,
    createdAt: Number(r.created_date),
    updatedAt: Number(r.modified_date),
  }));
}
