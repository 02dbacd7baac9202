// Webhooks (extension endpoints under /webhooks, Admin only): subscriptions, the event
// catalog, delivery logs and redelivery, in the shapes of the original's.
import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, OffsetLimit, StringEnum, Timestamp } from '../../http/schemas.js';
import { WEBHOOK_EVENT_KEYS } from './webhooks.events.js';

export const EventKey = StringEnum(WEBHOOK_EVENT_KEYS, { description: 'An event key of the catalog (GET /webhooks/events).' });

const SecretKey = Type.String({
  minLength: 8,
  maxLength: 256,
  pattern: '^[\\x20-\\x7E]+$',
  description: 'The signing key: 8 to 256 printable ASCII characters (its bytes key both signatures). Write-only: never answered.',
});
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'An http or https URL; deliveries go through the outgoing guard (no private addresses unless OUTGOING_ALLOW allows them).' });
const EventKeys = Type.Array(EventKey, { maxItems: 50, uniqueItems: true, description: 'The events it receives.' });

export const WebhookSubscription = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean({ description: 'Deliveries are sent only while enabled; the service disables a subscription whose receiver answers 410 or fails WEBHOOK_MAX_FAILURES times in a row.' }),
  eventKeys: Type.Array(Type.String()),
  invocationCount: Type.Integer({ description: 'Delivery attempts made so far.' }),
  disabledReason: Nullable(Type.String({ description: 'Why the service disabled it; null when enabled or disabled by an Admin (extension).' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}, { description: 'A webhook subscription. The signing key (`secretKey`) is written, never read back.' });

export const WebhookSubscriptionCreate = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  url: Url,
  enabled: Type.Optional(Type.Boolean({ default: true })),
  eventKeys: EventKeys,
  secretKey: SecretKey,
});

export const WebhookSubscriptionPatch = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  url: Type.Optional(Url),
  enabled: Type.Optional(Type.Boolean({ description: 'Enabling again clears the failure count.' })),
  eventKeys: Type.Optional(EventKeys),
  secretKey: Type.Optional(SecretKey),
});

export const WebhookEventItem = Type.Object({
  id: Type.Integer(),
  key: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
});

export const WebhookEventGroup = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  events: Type.Array(WebhookEventItem),
});

export const WebhookLogRow = Type.Object({
  id: Type.Integer({ description: 'The attempt.' }),
  deliveryId: Type.Integer({ description: 'The delivery it attempted (its `webhook-id` and JWT `jti`), the same on every retry (extension).' }),
  eventKey: Type.String({ description: 'The event delivered (extension).' }),
  createdAt: Timestamp,
  statusCode: Nullable(Type.Integer({ description: 'The receiver\'s HTTP status; null when no answer came (refused address, timeout, network).' })),
  requestBody: Nullable(Type.String({ description: 'The exact body sent.' })),
  errorMessage: Nullable(Type.String({ description: 'null when the receiver answered 2xx.' })),
  triggerType: StringEnum(['event', 'retry', 'manual'] as const, { description: 'event: the first attempt; retry: a scheduled retry; manual: an Admin\'s redelivery.' }),
});

export const WebhookLogs = Type.Object({
  count: Type.Integer({ description: 'Attempts logged for the subscription.' }),
  rows: Type.Array(WebhookLogRow, { description: 'Newest first.' }),
});

export const WebhookRedelivery = Type.Object({
  deliveryId: Type.Integer(),
  runAt: Timestamp,
}, { description: 'The redelivery queued.' });

export const SubscriptionParam = Type.Object({ id: Id() });
export const LogParam = Type.Object({ id: Id(), logid: Id() });
export const ListQuery = Type.Object({ ...OffsetLimit });

export type WebhookSubscription = Static<typeof WebhookSubscription>;
export type WebhookSubscriptionCreate = Static<typeof WebhookSubscriptionCreate>;
export type WebhookSubscriptionPatch = Static<typeof WebhookSubscriptionPatch>;
