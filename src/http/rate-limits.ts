// Rate limits counted in the database (the table rate_limit_counts), so that every server
// process and every node on one database enforce one limit: each counted request is one
// statement, an upsert that starts the key's window (a fixed window opened by its first
// attempt) or adds one to it, and answers the count. Times are the app's clock. Rows whose
// window has ended are pruned whenever a key opens a new window.
//
// Routes declare `config.rateLimit: { max, timeWindow }` (timeWindow in ms): each such route
// counts per client address on its own, answering 429 `rate_limited` with Retry-After past
// `max` in the window. The login routes share one count instead (login-attempts.ts).
import { sql, type Kysely } from 'kysely';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { HttpError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Attempts per client address on this route: at most `max` in `timeWindow` ms (rate-limits.ts). */
    rateLimit?: { max: number; timeWindow: number };
  }
}

export const tooMany = (code: string, message: string, retryAfter: number) =>
  new HttpError(429, code, message, undefined, undefined, { 'retry-after': String(Math.max(1, retryAfter)) });

/** The address an attempt is counted for: an IPv6 client by its /64 (one host holds a whole one). */
export function addressKey(ip: string): string {
  if (!ip.includes(':') || ip.startsWith('::ffff:')) return ip.replace(/^::ffff:/, '');
  const groups = ip.split('::')[0].split(':');
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/**
 * Counts one attempt for `key` in a window of `windowSeconds`: answers the attempts in the
 * current window (this one included) and the seconds until it ends. One statement.
 */
export async function countAttempt(db: Kysely<Database>, key: string, windowSeconds: number, now: number): Promise<{ count: number; retryAfter: number }> {
  const ends = now + windowSeconds;
  const expired = sql<boolean>`rate_limit_counts.expires_at <= ${now}`;
  const row = await db.insertInto('rate_limit_counts')
    .values({ key, window_start: now, count: 1, expires_at: ends })
    .onConflict((oc) => oc.column('key').doUpdateSet({
      count: sql<number>`case when ${expired} then 1 else rate_limit_counts.count + 1 end`,
      window_start: sql<number>`case when ${expired} then ${now} else rate_limit_counts.window_start end`,
      expires_at: sql<number>`case when ${expired} then ${ends} else rate_limit_counts.expires_at end`,
    }))
    .returning(['count', 'expires_at'])
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  // A new window: rows whose window has ended go (an indexed range, rarely more than a few).
  if (count === 1) await db.deleteFrom('rate_limit_counts').where('expires_at', '<=', now).execute();
  return { count, retryAfter: Number(row.expires_at) - now };
}

/** Counts an attempt for `key`; 429 `rate_limited` with Retry-After past `max` in the window. */
export async function limitAttempts(db: Kysely<Database>, clock: Clock, key: string, max: number, windowSeconds: number): Promise<void> {
  const { count, retryAfter } = await countAttempt(db, key, windowSeconds, clock.now());
  if (count > max) throw tooMany('rate_limited', `Too many attempts; try again in ${retryAfter} seconds.`, retryAfter);
}

/**
 * The per-route limiter: every route that declares `config.rateLimit` counts each request
 * per client address in a route-level onRequest hook (before validation, and before its
 * access is checked, see auth.ts). Registered before the routes.
 */
export function registerRateLimits(app: FastifyInstance, db: Kysely<Database>, clock: Clock): void {
  app.addHook('onRoute', (route) => {
    const limit = route.config?.rateLimit;
    if (!limit) return;
    const windowSeconds = Math.max(1, Math.ceil(limit.timeWindow / 1000));
    const name = `route:${[route.method].flat().join(',')} ${route.url}`;
    const count = async (request: FastifyRequest) => limitAttempts(db, clock, `${name}:${addressKey(request.ip)}`, limit.max, windowSeconds);
    route.onRequest = [...[route.onRequest ?? []].flat(), count];
  });
}
