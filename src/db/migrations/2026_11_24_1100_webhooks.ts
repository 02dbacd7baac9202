// Frozen in time: never edit a migration that has landed; add a new one.
// Webhooks: an Admin's subscriptions (a URL, a signing key, the event keys it wants), the
// deliveries written by the outbox (one per event and subscription, in the transaction
// of the change) and every attempt to send one (the delivery log).
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('webhook_subscriptions'), 'subscriptionid')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', boolColumn)
    /** The signing key, sealed with the server's key (see webhooks.secrets.ts); never answered. */
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('invocation_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    /** Why the service turned it off (410, too many failures); null when enabled or turned off by an Admin. */
    .addColumn('disabled_reason', 'text')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .execute();

  // The keys a subscription wants: the outbox finds the subscriptions of an event by key.
  await db.schema.createTable('webhook_subscription_events')
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('subscriptionid', 'integer', (c) => c.notNull().references('webhook_subscriptions.subscriptionid').onDelete('cascade'))
    .addPrimaryKeyConstraint('webhook_subscription_events_pk', ['event_key', 'subscriptionid'])
    .execute();
  await db.schema.createIndex('webhook_subscription_events_sub').on('webhook_subscription_events').column('subscriptionid').execute();

  await withId(db, db.schema.createTable('webhook_deliveries'), 'deliveryid')
    .addColumn('subscriptionid', 'integer', (c) => c.notNull().references('webhook_subscriptions.subscriptionid').onDelete('cascade'))
    .addColumn('event_key', 'text', (c) => c.notNull())
    /** JSON {title, description, data} as the change saw it. */
    .addColumn('event', 'text', (c) => c.notNull())
    /** The exact body sent, fixed at the first attempt (retries send the same bytes). */
    .addColumn('request_body', 'text')
    /** pending | delivered | failed | cancelled */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_sub').on('webhook_deliveries').columns(['subscriptionid', 'deliveryid']).execute();

  await withId(db, db.schema.createTable('webhook_attempts'), 'attemptid')
    .addColumn('deliveryid', 'integer', (c) => c.notNull().references('webhook_deliveries.deliveryid').onDelete('cascade'))
    .addColumn('subscriptionid', 'integer', (c) => c.notNull().references('webhook_subscriptions.subscriptionid').onDelete('cascade'))
    /** event (first attempt) | retry | manual */
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error_message', 'text')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_sub').on('webhook_attempts').columns(['subscriptionid', 'attemptid']).execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('deliveryid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_subscription_events', 'webhook_subscriptions']) await db.schema.dropTable(t).ifExists().execute();
}
