// What /metrics shows operators beyond requests and queries: the job queue per lane, the
// webhook outbox, the caches and the image queue's rejections. Counts kept in memory are
// this process's; the queue and the outbox are read from the database at each scrape
// (grouped counts served by indexes), so every process reports the same totals for them.
import { Gauge, Histogram, type Registry } from 'prom-client';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Lane } from '../jobs/queue.js';

/** Counters of this process that a module bumps where the event happens. */
export const operatorCounts = { imageQueueRejections: 0 };

interface CacheStats { hits: number; misses: number; readonly bytes: number }

// Caches are made per app (tests build many): held weakly, summed by name at each scrape.
const caches = new Map<string, Set<WeakRef<CacheStats>>>();

/** Makes a cache visible on /metrics under `name`. */
export function watchCache(name: string, cache: CacheStats) {
  let set = caches.get(name);
  if (!set) caches.set(name, (set = new Set()));
  set.add(new WeakRef(cache));
}

function cacheTotals(): Array<{ name: string; hits: number; misses: number; bytes: number }> {
  const out = [];
  for (const [name, set] of caches) {
    const total = { name, hits: 0, misses: 0, bytes: 0 };
    for (const ref of set) {
      const cache = ref.deref();
      if (!cache) { set.delete(ref); continue; }
      total.hits += cache.hits;
      total.misses += cache.misses;
      total.bytes += cache.bytes;
    }
    out.push(total);
  }
  return out;
}

/** Seconds from a webhook event to its delivery (observed by the delivery job). */
let deliveryLatency: Histogram | null = null;
export function observeWebhookDelivery(seconds: number) {
  deliveryLatency?.observe(Math.max(0, seconds));
}

/**
 * The statement's operation and, where the statement names it plainly, its table: a label
 * set bounded by the schema (remembered per statement text, which Kysely builds from a
 * bounded set of shapes; at most 2 000 kept).
 */
const statementLabels = new Map<string, { operation: string; table: string }>();
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'begin', 'commit', 'rollback', 'savepoint', 'release', 'with', 'pragma', 'create', 'alter', 'drop', 'vacuum', 'analyze', 'copy']);
const TABLE_AFTER = /^\s*(?:insert\s+into|update|delete\s+from|select\b[^;]*?\bfrom)\s+"?([a-z_][a-z0-9_]*)"?/i;
export function labelsOfStatement(text: string): { operation: string; table: string } {
  let labels = statementLabels.get(text);
  if (labels) return labels;
  const word = /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? '';
  const operation = OPERATIONS.has(word) ? word : 'other';
  // Only the first 400 characters are looked at: the regular expression stays linear and cheap.
  const table = ['select', 'insert', 'update', 'delete'].includes(operation) ? (TABLE_AFTER.exec(text.slice(0, 400))?.[1]?.toLowerCase() ?? '') : '';
  labels = { operation, table };
  if (statementLabels.size < 2000) statementLabels.set(text, labels);
  return labels;
}

export function registerOperatorMetrics(registry: Registry, db: Kysely<Database>, laneOf: (type: string) => Lane) {
  new Gauge({ name: 'jobs', help: 'Jobs by lane and state (waiting: due or scheduled, not yet claimed; running; failed: given up; retrying: waiting after a failed attempt)', labelNames: ['lane', 'state'], registers: [registry],
    async collect() {
      this.reset();
      const rows = await db.selectFrom('jobs').select(['type', 'status', sql<number>`count(*)`.as('n'), sql<number>`sum(case when attempts > 0 then 1 else 0 end)`.as('retrying')])
        .where('status', 'in', ['pending', 'running', 'failed']).groupBy(['type', 'status']).execute();
      for (const r of rows) {
        const lane = laneOf(r.type);
        this.inc({ lane, state: r.status === 'pending' ? 'waiting' : r.status }, Number(r.n));
        if (r.status === 'pending') this.inc({ lane, state: 'retrying' }, Number(r.retrying));
      }
    },
  });
  // Its own read: a registry collects its metrics side by side, not in order.
  new Gauge({ name: 'jobs_oldest_waiting_seconds', help: 'Age of the oldest waiting job of a lane, from when it became due (wall clock)', labelNames: ['lane'], registers: [registry],
    async collect() {
      this.reset();
      const rows = await db.selectFrom('jobs').select(['type', sql<number>`min(run_at)`.as('oldest')]).where('status', '=', 'pending').groupBy('type').execute();
      const oldest = new Map<Lane, number>();
      for (const r of rows) oldest.set(laneOf(r.type), Math.min(oldest.get(laneOf(r.type)) ?? Infinity, Number(r.oldest)));
      const now = Math.floor(Date.now() / 1000);
      for (const [lane, at] of oldest) this.set({ lane }, Math.max(0, now - at));
    },
  });
  new Gauge({ name: 'webhook_deliveries', help: 'Webhook deliveries pending (to be attempted or retried) and failed (given up)', labelNames: ['state'], registers: [registry],
    async collect() {
      this.reset();
      const rows = await db.selectFrom('webhook_deliveries').select(['status', sql<number>`count(*)`.as('n')]).where('status', 'in', ['pending', 'failed']).groupBy('status').execute();
      this.set({ state: 'pending' }, 0);
      this.set({ state: 'failed' }, 0);
      for (const r of rows) this.set({ state: r.status }, Number(r.n));
    },
  });
  deliveryLatency = new Histogram({ name: 'webhook_delivery_latency_seconds', help: 'From a webhook event to its successful delivery', buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 86400], registers: [registry] });
  const cacheGauge = (metric: string, help: string, pick: (t: ReturnType<typeof cacheTotals>[number]) => number) => new Gauge({ name: metric, help, labelNames: ['cache'], registers: [registry],
    collect() {
      this.reset();
      for (const t of cacheTotals()) this.set({ cache: t.name }, pick(t));
    },
  });
  cacheGauge('cache_hits', 'Reads answered from a cache of this process, since it started', (t) => t.hits);
  cacheGauge('cache_misses', 'Reads a cache of this process did not hold, since it started', (t) => t.misses);
  cacheGauge('cache_bytes', 'Bytes a cache of this process holds now', (t) => t.bytes);
  new Gauge({ name: 'image_queue_rejections', help: 'Image tasks refused with 429 busy because the image queue was full, since the process started', registers: [registry],
    collect() { this.set(operatorCounts.imageQueueRejections); },
  });
}
