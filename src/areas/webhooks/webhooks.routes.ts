// Webhooks: extension endpoints under /webhooks, Admin only (the specification names the
// Events part but shows no endpoints; these follow the original's records).
import { requireUser } from '../../http/auth.js';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses } from '../../http/schemas.js';
import { invalidField, notFound } from '../../http/errors.js';
import { addressPolicy } from '../../net/outgoing.js';
import {
  ListQuery, LogParam, SubscriptionParam, WebhookEventGroup, WebhookLogs, WebhookRedelivery, WebhookSubscription, WebhookSubscriptionCreate,
  WebhookSubscriptionPatch,
} from './webhooks.schemas.js';
import { attemptsOf, findAttempt, findSubscription, listSubscriptions } from './webhooks.queries.js';
import { subscriptionRecords } from './webhooks.records.js';
import { createSubscription, deleteSubscription, queueRedelivery, updateSubscription } from './webhooks.service.js';
import { WEBHOOK_EVENT_GROUPS } from './webhooks.events.js';

const TAG = ['Webhooks (extension)'];
const ADMIN = 'Admin only.';

export async function webhooksRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  /** An http(s) URL; a literal address the outgoing guard would refuse is refused now. */
  function checkUrl(url: string) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalidField('url', 'url is not a URL.');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidField('url', 'url must be an http or https URL.');
    const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    if (isIP(host) && !addressPolicy(config.outgoingAllow).permits(host)) throw invalidField('url', `${host} is not an address deliveries may reach (OUTGOING_ALLOW).`, 'address_not_allowed');
  }

  async function existing(id: number) {
    const row = await findSubscription(db, id);
    if (!row) throw notFound('Webhook subscription');
    return row;
  }
  const record = async (id: number) => (await subscriptionRecords(db, [await existing(id)]))[0];

  app.get('/webhooks/events', {
    config: { auth: 'admin' },
    schema: { tags: TAG, summary: 'The event catalog (extension)', description: `${ADMIN} Every event a subscription may receive, by group. Each delivery is a POST of \`{title, description, siteName, siteDomain, data}\` where \`data\` is what the matching GET answers.`, response: { 200: Type.Array(WebhookEventGroup), ...errorResponses(401, 403) } },
  }, async () => WEBHOOK_EVENT_GROUPS.map((g) => ({ id: g.id, name: g.name, events: g.events.map((e) => ({ ...e })) })));

  app.get('/webhooks/subscriptions', {
    config: { auth: 'admin' },
    schema: { tags: TAG, summary: 'List webhook subscriptions (extension)', description: `${ADMIN} Ordered by id.`, querystring: ListQuery, response: { 200: Type.Array(WebhookSubscription), ...errorResponses(401, 403, 422) } },
  }, async (request) => subscriptionRecords(db, await listSubscriptions(db, request.query.offset, request.query.limit)));

  app.post('/webhooks/subscriptions', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Create a webhook subscription (extension)',
      description: `${ADMIN} \`secretKey\` (8 to 256 printable ASCII characters) signs every delivery: the \`x-webhook-secret\` JWT (HS256) and the Standard Webhooks \`webhook-signature\`. It is stored sealed with the server's key (a signing key must be usable, so it cannot be hashed) and never answered.`,
      body: WebhookSubscriptionCreate,
      response: { 201: WebhookSubscription, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const b = request.body;
    if (!b.title.trim()) throw invalidField('title', 'title must not be blank.');
    checkUrl(b.url);
    const id = await createSubscription(db, config, clock, requireUser(request), b);
    return reply.status(201).send(await record(id));
  });

  app.get('/webhooks/subscriptions/:id', {
    config: { auth: 'admin' },
    schema: { tags: TAG, summary: 'A webhook subscription (extension)', description: ADMIN, params: SubscriptionParam, response: { 200: WebhookSubscription, ...errorResponses(401, 403, 404, 422) } },
  }, async (request) => record(request.params.id));

  app.patch('/webhooks/subscriptions/:id', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Change a webhook subscription (extension)',
      description: `${ADMIN} Only the fields sent change; \`secretKey\` replaces the signing key; \`enabled: true\` turns a disabled subscription on again and clears its failure count.`,
      params: SubscriptionParam,
      body: WebhookSubscriptionPatch,
      response: { 200: WebhookSubscription, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await existing(request.params.id);
    const b = request.body;
    if (b.title !== undefined && !b.title.trim()) throw invalidField('title', 'title must not be blank.');
    if (b.url !== undefined) checkUrl(b.url);
    await updateSubscription(db, config, clock, requireUser(request), row, b);
    return record(row.subscriptionid);
  });

  app.delete('/webhooks/subscriptions/:id', {
    config: { auth: 'admin' },
    schema: { tags: TAG, summary: 'Delete a webhook subscription (extension)', description: `${ADMIN} Its deliveries and log go with it; nothing more is sent.`, params: SubscriptionParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    await deleteSubscription(db, requireUser(request), clock.now(), (await existing(request.params.id)).subscriptionid);
    return reply.status(204).send(null);
  });

  app.get('/webhooks/subscriptions/:id/logs', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'The delivery log of a subscription (extension)',
      description: `${ADMIN} One row per attempt, newest first: the status the receiver answered, the body sent, the error, and what triggered it.`,
      params: SubscriptionParam,
      querystring: ListQuery,
      response: { 200: WebhookLogs, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const sub = await existing(request.params.id);
    const { count, rows } = await attemptsOf(db, sub.subscriptionid, request.query.offset, request.query.limit);
    return {
      count,
      rows: rows.map((r) => ({
        id: r.attemptid, deliveryId: r.deliveryid, eventKey: r.event_key, createdAt: Number(r.created_date), statusCode: r.status_code,
        requestBody: r.request_body, errorMessage: r.error_message, triggerType: r.trigger_type as 'event' | 'retry' | 'manual',
      })),
    };
  });

  app.post('/webhooks/subscriptions/:id/logs/:logid/redeliver', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Send a logged delivery again (extension)',
      description: `${ADMIN} Queues the delivery of log row \`logid\` to be sent again now, with the same body and \`webhook-id\` (fresh signatures); its attempt is logged with \`triggerType: manual\`. A disabled subscription is a 422 (enable it first).`,
      params: LogParam,
      response: { 202: WebhookRedelivery, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const sub = await existing(request.params.id);
    const attempt = await findAttempt(db, sub.subscriptionid, request.params.logid);
    if (!attempt) throw notFound('Delivery log row');
    if (!sub.enabled) throw invalidField('id', 'The subscription is disabled: enable it before redelivering.', 'subscription_disabled');
    const runAt = await queueRedelivery(db, clock, attempt.deliveryid);
    return reply.status(202).send({ deliveryId: attempt.deliveryid, runAt });
  });
}
