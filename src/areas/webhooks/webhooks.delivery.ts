// Delivering the outbox: the job `webhooks.deliver` sends one delivery once, through the
// outgoing guard, and records the attempt (the delivery log) with what follows from it,
// in one transaction: a 2xx delivers it; a 410 disables the subscription; any other
// answer or failure counts against the subscription (WEBHOOK_MAX_FAILURES in a row
// disable it) and schedules the next attempt on a growing schedule, never sooner than the
// receiver's `Retry-After`. Scheduling reads the app's clock; signatures the wall clock.
// At least once: the attempt is recorded only after the answer, so a process that dies
// mid-send leaves its job to be claimed again (the queue's lease), and it is sent again.
import { observeWebhookDelivery } from '../../http/operator-metrics.js';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../clock.js';
import { enqueueJob, type JobContext, type JobType } from '../../jobs/queue.js';
import { outgoingRequest, OutgoingRequestError } from '../../net/outgoing.js';
import { DELIVERY_JOB_ATTEMPTS, WEBHOOK_DELIVERY_JOB, type DeliveryJob } from './webhooks.outbox.js';
import { openSecret } from './webhooks.secrets.js';
import { signedHeaders } from './webhooks.signing.js';

/** Seconds before the next attempt after the nth failed one (the last repeats): seconds, minutes, hours, up to a day. */
export const RETRY_SCHEDULE = [10, 60, 300, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 24 * 3600] as const;
/** Attempts of one delivery before it is given up (the first and each retry). */
export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE.length + 1;
const MAX_RETRY_AFTER = 24 * 3600;
const MAX_ANSWER_BYTES = 64 * 1024;

/** The body sent: the original's shape, and `event`, the event's key (receivers tell events apart by it, not by the title). */
export function deliveryBody(config: Config, eventKey: string, event: { title: string; description: string; data: unknown }): string {
  return JSON.stringify({ title: event.title, description: event.description, siteName: config.siteName, siteDomain: new URL(config.publicUrl).host, data: event.data ?? null, event: eventKey });
}

/** `Retry-After` as seconds from now (delta-seconds or an HTTP date, against the wall clock), or null. */
export function retryAfterSeconds(value: string | string[] | undefined): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER, Number(text));
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(MAX_RETRY_AFTER, Math.max(0, Math.ceil((at - Date.now()) / 1000)));
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  retryAfter: number | null;
}

async function send(config: Config, url: string, secret: string | null, deliveryid: number, eventKey: string, body: string): Promise<Outcome> {
  if (secret === null) return { statusCode: null, error: 'The signing key cannot be read (the server key changed): set the subscription\'s secretKey again.', retryAfter: null };
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'ContentPlatform-Webhooks/1.0',
    // A routing hint; the signed copy is the body's `event`.
    'webhook-event': eventKey,
    ...signedHeaders(secret, String(deliveryid), body, Math.floor(Date.now() / 1000)),
  };
  try {
    const res = await outgoingRequest(config, url, { method: 'POST', headers, body, timeoutMs: config.webhookTimeoutMs, maxBytes: MAX_ANSWER_BYTES });
    if (res.status >= 200 && res.status < 300) return { statusCode: res.status, error: null, retryAfter: null };
    const why = res.status >= 300 && res.status < 400 ? `redirect to ${String(res.headers.location ?? '?')} not followed` : res.body.toString('utf8').slice(0, 300);
    return { statusCode: res.status, error: `HTTP ${res.status}${why ? `: ${why}` : ''}`, retryAfter: retryAfterSeconds(res.headers['retry-after']) };
  } catch (err) {
    const message = err instanceof OutgoingRequestError ? `${err.code}: ${err.message}` : String((err as Error)?.message ?? err);
    return { statusCode: null, error: message.slice(0, 1000), retryAfter: null };
  }
}

/** Runs one attempt of a delivery. */
export async function deliverOnce(db: Kysely<Database>, clock: Clock, config: Config, job: DeliveryJob): Promise<void> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.subscriptionid', 'd.subscriptionid')
    .select(['d.deliveryid', 'd.subscriptionid', 'd.event_key', 'd.event', 'd.request_body', 'd.status', 'd.attempts', 'd.created_date', 's.url', 's.enabled', 's.secret_sealed'])
    .where('d.deliveryid', '=', job.deliveryid)
    .executeTakeFirst();
  if (!row) return; // its subscription was deleted
  // A retry of a delivery already settled (delivered, given up, cancelled) has nothing to do; an Admin's redelivery sends again.
  if (job.trigger !== 'manual' && row.status !== 'pending') return;
  if (!row.enabled) {
    if (row.status === 'pending') await db.updateTable('webhook_deliveries').set({ status: 'cancelled', modified_date: clock.now() }).where('deliveryid', '=', row.deliveryid).where('status', '=', 'pending').execute();
    return;
  }
  // A delivery sent before is sent again as it was (and stays logged so).
  const body = row.request_body ?? deliveryBody(config, row.event_key, JSON.parse(row.event));
  const outcome = await send(config, row.url, openSecret(config, row.secret_sealed), row.deliveryid, row.event_key, body);
  const ok = outcome.error === null;
  const gone = outcome.statusCode === 410;

  await db.transaction().execute(async (trx) => {
    const now = clock.now();
    await trx.insertInto('webhook_attempts').values({
      deliveryid: row.deliveryid, subscriptionid: row.subscriptionid, trigger_type: job.trigger, status_code: outcome.statusCode, error_message: outcome.error, created_date: now,
    }).execute();
    const sub = await trx.updateTable('webhook_subscriptions')
      .set((eb) => ({
        invocation_count: eb('invocation_count', '+', 1),
        consecutive_failures: ok ? 0 : eb('consecutive_failures', '+', 1),
      }))
      .where('subscriptionid', '=', row.subscriptionid)
      .returning(['consecutive_failures', 'enabled'])
      .executeTakeFirst();
    if (!sub) return;
    const tooMany = !ok && sub.consecutive_failures >= config.webhookMaxFailures;
    if ((gone || tooMany) && sub.enabled) {
      const reason = gone ? 'The receiver answered 410 Gone.' : `${sub.consecutive_failures} deliveries failed in a row.`;
      await trx.updateTable('webhook_subscriptions').set({ enabled: 0, disabled_reason: reason, modified_date: now }).where('subscriptionid', '=', row.subscriptionid).execute();
    }
    const attempts = row.attempts + 1;
    // What becomes of the delivery: an Admin's redelivery that fails leaves it as it was (its own retries, if any, go on).
    const retry = !ok && !gone && !tooMany && job.trigger !== 'manual' && attempts < MAX_DELIVERY_ATTEMPTS;
    const status = ok ? 'delivered' : job.trigger === 'manual' ? row.status : retry ? 'pending' : 'failed';
    if (ok && row.status !== 'delivered') observeWebhookDelivery(now - row.created_date);
    await trx.updateTable('webhook_deliveries')
      .set({ status, attempts, request_body: body, modified_date: now })
      .where('deliveryid', '=', row.deliveryid)
      .execute();
    if (retry) {
      const scheduled = RETRY_SCHEDULE[Math.min(attempts, RETRY_SCHEDULE.length) - 1];
      const delay = Math.max(scheduled, outcome.retryAfter ?? 0);
      const next: DeliveryJob = { deliveryid: row.deliveryid, trigger: 'retry' };
      await enqueueJob(trx, clock, WEBHOOK_DELIVERY_JOB, next, { runAt: now + delay, maxAttempts: DELIVERY_JOB_ATTEMPTS });
    }
  });
}

export function deliveryJobType(config: Config): JobType {
  return {
    run: (payload: DeliveryJob, ctx: JobContext) => deliverOnce(ctx.db, ctx.clock, config, payload),
  };
}
