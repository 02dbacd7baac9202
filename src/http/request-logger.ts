// A request's logger, made when it first writes a line (Fastify's `childLoggerFactory`).
// Fastify gives every request a child of the server's logger with the request id bound;
// pino's `child` serializes the bindings at once, about a microsecond per request, and at
// the levels a busy server runs at (warn and above) most requests log nothing.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
/** Fastify's logger as pino makes it: it also says whether it writes a level. */
type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;
  constructor(private readonly parent: Logger, private readonly bindings: Bindings, private readonly options: ChildLoggerOptions) {}

  /** The child Fastify would have made: the same bindings, so the same lines. */
  private get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  /** A line at a level the logger writes (the child's once made, else the server's); else nothing, and no child. */
  private line(level: Level, args: unknown[]) {
    const logger = this.#child ?? (this.parent.isLevelEnabled(level) ? this.real : undefined);
    (logger?.[level] as ((...a: unknown[]) => void) | undefined)?.apply(logger, args);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  fatal(...args: unknown[]) { this.line('fatal', args); }
  error(...args: unknown[]) { this.line('error', args); }
  warn(...args: unknown[]) { this.line('warn', args); }
  info(...args: unknown[]) { this.line('info', args); }
  debug(...args: unknown[]) { this.line('debug', args); }
  trace(...args: unknown[]) { this.line('trace', args); }
  silent() {}
}

/**
 * Fastify's `childLoggerFactory`: a lazy child of a pino logger. A route with a level of its
 * own, or a logger that is not pino's (tests may pass another), gets the child at once.
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const pino = logger as Partial<Logger>;
  if (options.level !== undefined || typeof pino.isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Fastify's per-request lines ("incoming request", "request completed") are at info. At a
 * level that does not write info (warn and above; the benchmark's), each still made an
 * object, read the clock and went through the request's logger, on every request: this
 * controller skips them then, and is Fastify's own otherwise. A response that failed on its
 * socket ("request errored") is logged at any level, at error.
 */
export class RequestLines extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (writesInfo(request)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || writesInfo(request)) super.requestCompleted(error, request, reply);
  }
}

const WRITES_INFO = new Set(['info', 'debug', 'trace']);
/** Whether the request's logger writes info lines (its level now: it may be changed at run time). */
const writesInfo = (request: FastifyRequest) => WRITES_INFO.has(request.log.level);
