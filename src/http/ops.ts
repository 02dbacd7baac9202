// For operators, outside /api/2.0: liveness, readiness and Prometheus metrics.
import { createHash, timingSafeEqual } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { LabelledHistogram, type HistogramSeries } from './histogram.js';
import { labelsOfStatement, registerOperatorMetrics } from './operator-metrics.js';
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import { isMigrated } from '../db/migrate.js';
import { isDatabaseBusy } from '../db/helpers.js';
import { forbidden, unauthorized } from './errors.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may read /metrics (login and upload counts, memory, handles): with METRICS_TOKEN
 * set, whoever sends `Authorization: Bearer <token>`; without it, callers on the loopback
 * interface only (the server listens on every interface by default).
 */
export function checkMetricsAccess(request: FastifyRequest, token: string) {
  if (token) {
    const m = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
    if (!m || !timingSafeEqual(digest(m[1]), digest(token))) throw unauthorized('/metrics needs `Authorization: Bearer <METRICS_TOKEN>`.');
    return;
  }
  // The socket's address: X-Forwarded-For is not trusted.
  if (!LOOPBACK.test(request.socket.remoteAddress ?? '')) throw forbidden('/metrics is served to the loopback interface only; set METRICS_TOKEN to read it from elsewhere.');
}

type Readiness = 'ready' | 'migrations pending' | 'database busy' | 'database unreachable' | 'low disk space';

/**
 * The database's part of /readyz: a connection of the requests' pool (waiting in its queue
 * like any request), `select 1` and the migrations, within `timeoutMs` of the wall clock.
 * Past it, "database busy": the check goes on and gives its connection back when done, and
 * the probes meanwhile share it rather than queue one more waiter each.
 */
function databaseReadiness(db: Kysely<Database>, timeoutMs: number): () => Promise<Readiness> {
  let running: Promise<Readiness> | null = null;
  // Once every migration has run, none is undone under a running server: asked until then.
  let migrated = false;
  const check = async (): Promise<Readiness> => {
    try {
      await db.connection().execute(async (conn) => {
        await sql`select 1`.execute(conn);
        migrated ||= await isMigrated(conn);
      });
      return migrated ? 'ready' : 'migrations pending';
    } catch (err) {
      return isDatabaseBusy(err) ? 'database busy' : 'database unreachable';
    }
  };
  return async () => {
    const current = (running ??= check().finally(() => { running = null; }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Readiness>((resolve) => { timer = setTimeout(() => resolve('database busy'), timeoutMs); });
    try {
      return await Promise.race([current, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** How often the free space is looked at again, at most (wall clock). */
const DISK_CHECK_INTERVAL_MS = 1000;

/**
 * Whether a folder the server writes to (the data directory; the SQLite file's) has less
 * than `minFreeMb` free: `statfs`, asked again at most once a second. A folder that cannot
 * be asked (missing yet) does not count.
 */
function lowDiskSpace(dirs: string[], minFreeMb: number): () => Promise<boolean> {
  let checkedAt = -Infinity;
  let low = false;
  const free = async (dir: string) => {
    try {
      const s = await statfs(dir);
      return s.bavail * s.bsize;
    } catch {
      return Infinity;
    }
  };
  return async () => {
    if (minFreeMb <= 0) return false;
    const now = Date.now();
    if (now - checkedAt < DISK_CHECK_INTERVAL_MS) return low;
    checkedAt = now;
    low = (await Promise.all(dirs.map(free))).some((bytes) => bytes < minFreeMb * 1024 * 1024);
    return low;
  };
}

export function registerOps(app: FastifyInstance, handle: DatabaseHandle, config: Pick<Config, 'metricsToken' | 'readyzTimeoutMs' | 'diskMinFreeMb' | 'dataDir'>) {
  const { metricsToken } = config;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new LabelledHistogram('http_request_duration_seconds', 'HTTP request latency by route', [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registry);
  const errors = new Counter({ name: 'http_errors_total', help: 'Responses with status >= 400', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const queries = new LabelledHistogram('db_query_duration_seconds', 'Database query latency', [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registry);
  // Labelled by operation (select, insert, ..., begin, commit, rollback) and table where the
  // statement names one plainly; a failed statement as operation "error".
  const failed = { operation: 'error', table: '' };
  handle.setQueryListener?.((event) => {
    const labels = event.level === 'error' ? failed : labelsOfStatement(event.query.sql);
    queries.series(`${labels.operation} ${labels.table}`, () => labels).observe(event.queryDurationMillis / 1000);
  });
  registerOperatorMetrics(registry, handle.longWorkDb, (type) => app.jobs.laneOf(type));

  // The series of a (method, route, status) is looked up once and kept (routes are
  // patterns: a bounded set).
  const children = new Map<string, { duration: HistogramSeries; errors: ReturnType<typeof errors.labels> | null }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unknown';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      child = { duration: requests.series(key, () => labels), errors: reply.statusCode >= 400 ? errors.labels(labels) : null };
      children.set(key, child);
    }
    child.duration.observe(reply.elapsedTime / 1000);
    child.errors?.inc();
    done();
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  const sqliteDir = handle.dialect === 'sqlite' && handle.location !== ':memory:' ? [dirname(handle.location)] : [];
  const diskLow = lowDiskSpace([...new Set([config.dataDir, ...sqliteDir])], config.diskMinFreeMb);
  const databaseState = databaseReadiness(handle.db, config.readyzTimeoutMs);
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    // Draining before a shutdown (http/drain.ts): still serving, but out of rotation.
    if (app.drain?.draining) return reply.status(503).send({ status: 'draining' });
    const status: Readiness = (await diskLow()) ? 'low disk space' : await databaseState();
    return status === 'ready' ? { status } : reply.status(503).send({ status });
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkMetricsAccess(request, metricsToken);
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
