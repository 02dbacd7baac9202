// Security headers (helmet's): on every response those an API answer needs, on pages the
// rest too. API responses are JSON that no browser should render or frame: a CSP that
// allows nothing. The reference page at /api/2.0/docs sets its own CSP (scripts and styles
// from this server only; see openapi.ts). CORS is unaffected: Cross-Origin-Resource-Policy
// is cross-origin so browser clients on other origins can read responses that CORS allows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { allowedOriginHeaders, applyCors, CORS_HEADERS, originAllowed, registerPreflightRoute } from './cors.js';

export const API_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
};

export const helmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
  crossOriginEmbedderPolicy: false,
  // DENY, as the CSP's frame-ancestors 'none' says (helmet's default is SAMEORIGIN, which
  // contradicted it for browsers that read only the older header); a page that its own
  // origin may frame says SAMEORIGIN (addDocumentHeaders).
  xFrameOptions: { action: 'deny' as const },
  // Referrer-Policy no-referrer, X-Content-Type-Options nosniff, HSTS and the rest: helmet's
  // defaults.
};

/**
 * Helmet's headers, computed once. They depend on nothing in the request (no nonces), and
 * @fastify/helmet rebuilt the whole middleware for every request: parsing the CSP and
 * dashifying option names cost about 6 % of a request that does no other work.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => { headers[name.toLowerCase()] = String(value); },
    removeHeader: (name: string) => { delete headers[name.toLowerCase()]; },
  };
  helmet(helmetOptions as HelmetOptions)({} as IncomingMessage, res as unknown as ServerResponse, () => {});
  return Object.freeze(headers);
})();

/**
 * Helmet's headers that only a document a browser renders can use: opener isolation, agent
 * clusters, DNS prefetching of its links, IE8's open-in-place, Flash's and Acrobat's policy
 * files, the retired XSS auditor. A JSON answer has no window, links or scripts to govern, so
 * only pages (HTML, SVG: the reference page, a guide's page, a module's player) carry them.
 * Each header line costs the server about a microsecond (Node writes and validates it) and
 * the client its parsing: a bare Node server answering 16 lines spent 20 µs more CPU per
 * request than answering 1.
 */
const DOCUMENT_ONLY = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection'];

/**
 * What every answer carries, as OWASP's REST Security Cheat Sheet lists for an API: the
 * strict CSP, nosniff, frame options, referrer policy, HSTS (over HTTPS only:
 * `apiSecurityHeaders`), and the resource policy that lets the clients CORS allows read it.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(SECURITY_HEADERS).filter(([name]) => !DOCUMENT_ONLY.includes(name))),
);

/**
 * The API's lines for a site whose clients reach it at `publicUrl`. HSTS only where that is
 * HTTPS: RFC 6797 (7.2) says a host must not send it over plain HTTP, and the server speaks
 * plain HTTP itself, so an https PUBLIC_URL is what says a proxy in front ends TLS for it.
 */
export function apiSecurityHeaders(publicUrl: string): Readonly<Record<string, string>> {
  if (/^https:/i.test(publicUrl)) return API_SECURITY_HEADERS;
  const { 'strict-transport-security': _hsts, ...plain } = API_SECURITY_HEADERS;
  return Object.freeze(plain);
}

/** The rest of helmet's headers, added to pages by `addDocumentHeaders`. */
export const DOCUMENT_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(SECURITY_HEADERS).filter(([name]) => DOCUMENT_ONLY.includes(name))),
);

const DOCUMENT_TYPE = /^(?:text\/html|image\/svg\+xml|application\/xhtml\+xml)\b/i;

/** A CSP that lets pages of the same origin frame the document (and no one else). */
const FRAMED_BY_SELF = /(?:^|;)\s*frame-ancestors\s+'self'\s*(?:;|$)/i;

/**
 * A page's answer gets the document-only headers (called by the one onSend hook, app.ts),
 * and an X-Frame-Options that agrees with its CSP: SAMEORIGIN where the page's own
 * frame-ancestors is 'self' (a guide's page, the module player), DENY otherwise.
 */
export function addDocumentHeaders(reply: FastifyReply) {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !DOCUMENT_TYPE.test(type)) return;
  reply.headers(DOCUMENT_SECURITY_HEADERS);
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp === 'string' && FRAMED_BY_SELF.test(csp)) reply.header('x-frame-options', 'SAMEORIGIN');
}

/**
 * What every response gets first, in the one onRequest hook (app.ts): the security headers,
 * the CORS headers (cors.ts: a preflight is answered here) and the request id, from objects
 * built once. Routes may override a header, as the reference page does its CSP. The
 * function returned sets them and says whether it answered the request (a preflight).
 */
export function registerResponseHeaders(app: FastifyInstance, corsOrigins: readonly string[] | '*', publicUrl: string): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const fixed = Object.freeze({ ...apiSecurityHeaders(publicUrl), ...CORS_HEADERS });
  const allows = originAllowed(corsOrigins);
  registerPreflightRoute(app);
  return (request, reply) => {
    reply.headers(fixed);
    reply.header('x-request-id', request.id);
    return applyCors(request, reply, allows);
  };
}

/**
 * The same headers, for responses written outside the request lifecycle (router errors:
 * a malformed URL), CORS's included, so that a browser client on an allowed origin can read
 * the error too.
 */
export function routerErrorHeaders(corsOrigins: readonly string[] | '*', publicUrl: string): (req: IncomingMessage, res: ServerResponse) => void {
  const fixed = Object.entries({ ...apiSecurityHeaders(publicUrl), ...CORS_HEADERS });
  const allows = originAllowed(corsOrigins);
  return (req, res) => {
    for (const [name, value] of fixed) res.setHeader(name, value);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== '' && allows(origin)) for (const [name, value] of Object.entries(allowedOriginHeaders(origin))) res.setHeader(name, value);
  };
}

/**
 * The reference page's CSP, from the one @fastify/swagger-ui builds: no
 * `upgrade-insecure-requests` (it breaks the page on a plain-HTTP deployment that is not
 * localhost), nothing from other hosts, and inline styles allowed (Swagger UI injects
 * <style> elements at run time; scripts stay 'self' only). Checked in a real browser by
 * test/reliability/browser.test.ts.
 */
export function docsCsp(header: string): string {
  return header
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && d !== 'upgrade-insecure-requests')
    .map((d) => d.replace(/(?<!\s)\s+(?:https:|validator\.swagger\.io)(?=\s|$)/g, ''))
    .map((d) => (d.startsWith('style-src ') ? `style-src 'self' 'unsafe-inline'` : d))
    .join('; ');
}
