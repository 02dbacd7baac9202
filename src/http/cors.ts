// CORS for browser clients on other origins (CORS_ORIGINS: `*` or a list). The rules are
// those of @fastify/cors with the options this server used, but one: an allowed Origin is
// reflected, every response says `Vary: Origin`, and a preflight (OPTIONS with Origin and
// Access-Control-Request-Method) is answered 204 before any other hook, authentication
// included (a browser sends no credentials with it). Which headers a script may read is
// said only to a request whose Origin is allowed: a browser reads that header only on a
// CORS answer (Fetch, "CORS check"), and every other caller paid a header line for it.
// What does not depend on the request is computed once: @fastify/cors merged its options
// object and parsed the Vary header on every request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-App-Id, Accept, X-Requested-With';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Allow, Deprecation, Location, ETag';
const MAX_AGE_SECONDS = '600';

/** The header every response carries for CORS, whatever the request (caches keep answers apart by Origin). */
export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });

/** What an answer to an allowed Origin carries besides: the origin reflected, and the headers its script may read. */
export function allowedOriginHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS };
}

/** Whether a request's Origin may read the answer: any, or one of the configured origins. */
export function originAllowed(origins: readonly string[] | '*'): (origin: string) => boolean {
  if (origins === '*') return () => true;
  const allowed = new Set(origins);
  return (origin) => allowed.has(origin);
}

/**
 * The CORS part of the one onRequest hook (security.ts, app.ts): the allowed origin
 * reflected, and a preflight answered. Returns true when it answered the request (the hook
 * then stops).
 */
export function applyCors(request: FastifyRequest, reply: FastifyReply, allows: (origin: string) => boolean): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== '' && allows(origin)) reply.headers(allowedOriginHeaders(origin));
  if (request.raw.method !== 'OPTIONS') return false;
  if (!origin || !request.headers['access-control-request-method']) {
    reply.status(400).type('text/plain').send('Invalid Preflight Request');
    return true;
  }
  reply
    .header('access-control-allow-methods', METHODS)
    .header('access-control-allow-headers', ALLOWED_HEADERS)
    .header('access-control-max-age', MAX_AGE_SECONDS)
    // Some browsers wait for a body on a 204 without a length.
    .header('content-length', '0')
    .code(204)
    .send();
  return true;
}

/** The router must match an OPTIONS request for the hook to see it: one route for every path. */
export function registerPreflightRoute(app: FastifyInstance) {
  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    // The hook answers every OPTIONS request; this is only reached if it did not.
    reply.callNotFound();
  });
}
