import type { Generated } from 'kysely';

export interface WebhookSubscriptionTable {
  subscriptionid: Generated<number>;
  title: string;
  description: string;
  url: string;
  enabled: number;
  /** The signing key sealed with the server's key (webhooks.secrets.ts). */
  secret_sealed: string;
  invocation_count: number;
  consecutive_failures: number;
  disabled_reason: string | null;
  created_date: number;
  modified_date: number;
}

export interface WebhookSubscriptionEventTable {
  event_key: string;
  subscriptionid: number;
}

export interface WebhookDeliveryTable {
  deliveryid: Generated<number>;
  subscriptionid: number;
  event_key: string;
  /** JSON {title, description, data} */
  event: string;
  request_body: string | null;
  /** pending | delivered | failed | cancelled */
  status: string;
  attempts: number;
  created_date: number;
  modified_date: number;
}

export interface WebhookAttemptTable {
  attemptid: Generated<number>;
  deliveryid: number;
  subscriptionid: number;
  /** event | retry | manual */
  trigger_type: string;
  status_code: number | null;
  error_message: string | null;
  created_date: number;
}

export interface WebhooksTables {
  webhook_subscriptions: WebhookSubscriptionTable;
  webhook_subscription_events: WebhookSubscriptionEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
}
