// buildApp({ config, handle, clock }) -> a ready-to-listen Fastify instance: the shared
// HTTP conventions from http/, then every area from areas/index.ts.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Kysely } from 'kysely';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Database } from './db/schema.js';
import { systemClock, type Clock } from './clock.js';
import { registerErrorHandler, errorReply } from './http/errors.js';
import { answerConditionally } from './http/conditional.js';
import { formatOutput } from './http/output.js';
import { caseInsensitiveEnumsOf, digitStringsToIntegers, nulInUrl, registerBodyParsers, registerBodyTextGuard } from './http/body.js';
import { registerAuth } from './http/auth.js';
import { registerNotFound, registerShadowedMethods } from './http/routing.js';
import { registerOpenApi } from './http/openapi.js';
import { registerOps } from './http/ops.js';
import { connectionOptions } from './http/connections.js';
import { RequestLines, requestLogger } from './http/request-logger.js';
import { requestIds } from './http/request-ids.js';
import { serializerCompiler } from './http/serializers.js';
import { addDocumentHeaders, registerResponseHeaders, routerErrorHeaders } from './http/security.js';
import { JobWorker } from './jobs/queue.js';
import { PdfRenderer } from './pdf/pdf.renderer.js';
import { stopAllPrograms } from './process-runner.js';
import { areas } from './areas/index.js';
import { ORPHAN_SWEEP_JOB, orphanSweepJob } from './storage/orphans.js';
import { auditChainKey } from './audit/key.js';
import { noApprovals, noStageAssessmentFields, type GuideApprovals, type StageAssessmentFields } from './areas/area.js';
import { joinBadgeRules, type BadgeRule } from './areas/users/badges.js';
import type { MediaUsageCheck } from './areas/media/media-usage.js';

import { BASE_PATH } from './http/base-path.js';
import { registerLoginAttempts } from './http/login-attempts.js';
import { registerRateLimits } from './http/rate-limits.js';
import { registerDrain } from './http/drain.js';

export { BASE_PATH };

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
    dbHandle: DatabaseHandle;
    config: Config;
    clock: Clock;
    jobs: JobWorker;
    /** The PDF renderer (one worker thread) that every area's PDFs are made in (pdf/pdf.renderer.ts). */
    pdfs: PdfRenderer;
    /** Approvals as the guides area sees them (areas/area.ts). */
    guideApprovals: GuideApprovals;
    /** Every area's `badges` slot, joined (read by the users area). */
    badges: readonly BadgeRule[];
    /** Every area's `mediaUsages` slot, joined (asked by the media area before a delete). */
    mediaUsages: readonly MediaUsageCheck[];
    /** The assessments area's `stageAssessmentFields` slot, or nulls (read by the courses area). */
    stageAssessmentFields: StageAssessmentFields;
  }
}

export interface BuildAppOptions {
  config: Config;
  handle: DatabaseHandle;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(part: 'body' | 'other') {
  // Query strings and paths arrive as text, so they are coerced; bodies are JSON and a
  // wrong type there is the client's mistake, reported as 422 (except ids sent as strings
  // of digits: `digitStringsToIntegers`).
  const ajv = new Ajv({
    coerceTypes: part === 'body' ? false : 'array',
    useDefaults: true,
    removeAdditional: part === 'body' ? false : true,
    allErrors: true,
    strict: false,
    // NaN and Infinity are not numbers a client can mean ("limit=Infinity" is a 422).
    strictNumbers: true,
  });
  addFormats(ajv);
  return ajv;
}

const isInfinite = (x: unknown) => typeof x === 'number' && !Number.isFinite(x);

/** Whether a value of `data` (or of an array in it) is a number that is not finite; allocates nothing (every request's query passes here). */
function hasInfinite(data: Record<string, unknown>): boolean {
  for (const k in data) {
    const v = data[k];
    if (isInfinite(v)) return true;
    if (Array.isArray(v)) for (const x of v) if (isInfinite(x)) return true;
  }
  return false;
}

/**
 * Ajv's coercion turns `1e309` into Infinity and then skips the range check (`?limit=1e309`
 * passed `maximum: 200` and reached the database): a query or path value that coerced to
 * a number that is not finite is refused, naming the parameter.
 */
function withFiniteNumbers(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    let ok = validate(data) as boolean;
    checked.errors = validate.errors;
    if (ok && data && typeof data === 'object' && hasInfinite(data as Record<string, unknown>)) {
      const bad = Object.entries(data).filter(([, v]) => [v].flat().some(isInfinite));
      ok = false;
      checked.errors = bad.map(([k]) => ({ instancePath: `/${k}`, schemaPath: '#/maximum', keyword: 'maximum', params: {}, message: 'must be a finite number' }));
    }
    return ok;
  }) as ValidateFunction;
  return checked;
}

export type App = FastifyInstance & ReturnType<FastifyInstance['withTypeProvider']>;

export async function buildApp(options: BuildAppOptions) {
  const { config, handle } = options;
  const applyRouterErrorHeaders = routerErrorHeaders(config.corsOrigins, config.publicUrl);
  const clock = options.clock ?? systemClock;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    logController: new RequestLines(),
    genReqId: requestIds(),
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // request.ip (rate limits, the audit log's client_ip) is the client's behind a load
    // balancer only when its address is trusted; otherwise anyone could name any address.
    trustProxy: config.trustProxy,
    ...connectionOptions(config),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Malformed URLs (bad percent-encoding, an overlong parameter) are refused by the
    // router before any route; they get the one error shape too.
    frameworkErrors: (err: Error, request: any, reply: any) => {
      // These replies skip the hooks: set what they would have set.
      const { status, body } = errorReply(request, err);
      applyRouterErrorHeaders(request.raw, reply.raw);
      return reply.status(status).header('x-request-id', request.id).type('application/json').send(Buffer.from(JSON.stringify(body)));
    },
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>();

  const ajvBody = makeAjv('body');
  const ajvOther = makeAjv('other');
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') {
      const checked = withFiniteNumbers(ajvOther.compile(schema));
      const normalise = caseInsensitiveEnumsOf(schema as Record<string, unknown>);
      if (!normalise) return checked;
      const withCase = (data: unknown) => {
        normalise(data);
        const ok = checked(data);
        withCase.errors = checked.errors;
        return ok;
      };
      withCase.errors = null as typeof checked.errors;
      return withCase;
    }
    const validate = ajvBody.compile(schema);
    // Ids sent as strings of digits are read as the integers the schema takes.
    const withDigits = (data: unknown) => {
      digitStringsToIntegers(schema as Record<string, unknown>, data);
      const ok = validate(data);
      withDigits.errors = validate.errors;
      return ok;
    };
    withDigits.errors = null as typeof validate.errors;
    return withDigits;
  });

  app.setSerializerCompiler(serializerCompiler());

  // The audit log's appends hash with it (db/audit-append.ts); a bad setting stops the start here.
  handle.setAuditChainKey(auditChainKey(config));
  app.decorate('db', handle.db);
  app.decorate('dbHandle', handle);
  app.decorate('config', config);
  app.decorate('clock', clock);
  // Jobs are work outside requests: the database without the requests' statement timeout.
  // JOB_WORKERS=false: this node enqueues jobs but never claims one (`start()` does nothing).
  const jobs = new JobWorker(handle.longWorkDb, clock, app.log, { pollMs: config.jobPollMs, claims: config.jobWorkers, leaseSeconds: config.jobLeaseSeconds, concurrency: config.jobConcurrency });
  app.decorate('jobs', jobs);
  // PDFs (work log entries, approval requests) are made in one worker thread, kept per document.
  const pdfs = new PdfRenderer(config);
  app.decorate('pdfs', pdfs);
  pdfs.start();
  // The areas' slots that other areas read, joined before any area's routes are registered.
  app.decorate('badges', joinBadgeRules(areas.map((a) => a.badges)));
  app.decorate('mediaUsages', areas.flatMap((a) => a.mediaUsages ?? []));

  registerErrorHandler(app);
  registerNotFound(app);
  registerBodyParsers(app, config.bodyLimit);
  registerBodyTextGuard(app);
  // One hook finishes every response: a page's own security headers, the output format,
  // then the tag of the bytes sent. (Callback style: an async hook costs a promise per
  // request, and every request passes here.)
  app.addHook('onSend', (request, reply, payload, done) => {
    let out;
    try {
      addDocumentHeaders(reply);
      out = answerConditionally(request, reply, formatOutput(request, reply, payload), BASE_PATH);
    } catch (err) {
      return done(err as Error);
    }
    done(null, out);
  });
  registerDrain(app);
  registerOps(app, handle, config);
  const startResponse = registerResponseHeaders(app, config.corsOrigins, config.publicUrl);
  registerRateLimits(app, handle.db, clock);
  registerLoginAttempts(app, handle.db, config, clock);
  const authenticate = registerAuth(app, { db: handle.db, clock, basePath: BASE_PATH, config });
  // One onRequest hook, not three (each is a step of Fastify's runner on every request): the
  // response's headers (a preflight is answered there), who calls, then a NUL in the URL.
  app.addHook('onRequest', (request, reply, done) => {
    if (startResponse(request, reply)) return;
    authenticate(request, reply, request.url.includes('%00') ? (err) => done(err ?? nulInUrl(request)) : done);
  });
  await registerOpenApi(app, BASE_PATH, config.publicUrl + BASE_PATH);

  app.decorate('guideApprovals', areas.find((a) => a.guideApprovals)?.guideApprovals ?? noApprovals);
  app.decorate('stageAssessmentFields', areas.find((a) => a.stageAssessmentFields)?.stageAssessmentFields ?? noStageAssessmentFields);
  for (const area of areas) {
    for (const [type, handler] of Object.entries(area.jobs?.(config, clock) ?? {})) jobs.register(type, handler);
    await app.register(area.routes, { prefix: BASE_PATH });
    if (area.publicRoutes) await app.register(area.publicRoutes);
  }
  // Stored files no row references, deleted after MEDIA_ORPHAN_GRACE_S (storage/orphans.ts).
  jobs.register(ORPHAN_SWEEP_JOB, orphanSweepJob(config, clock, areas.flatMap((a) => a.storedFiles ?? [])));
  registerShadowedMethods(app);

  app.addHook('onClose', async () => {
    // Cancels the jobs in hand (their programs are killed with their process groups)...
    await jobs.stop();
    // ...and ends any program still running (none should be), so that nothing is orphaned.
    await stopAllPrograms();
    await pdfs.close();
  });
  return app;
}
