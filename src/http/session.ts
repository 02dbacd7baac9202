// The browser session (docs/security.md, "The session cookie"). A login (`POST /user/token`,
// the login page) may also set `session_cp`: a random secret of its own, tied to the token
// the login issued (tokens.session_hash keeps its SHA-256, as tokens.token_hash keeps the
// token's), so the cookie works exactly while that token does: `tokenWorks` in auth.ts
// decides for both. A browser sends it by itself, so a request that changes something and
// is authenticated by the cookie alone must come from this site's own origin (CSRF).
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'session_cp';

/** The `session_cp` cookie's value, or undefined. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header || !header.includes(SESSION_COOKIE)) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      // Values this server sets are base64url; anything else was not set by it.
      return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** Host-only (no Domain), whole site, not readable by scripts, not sent on cross-site subrequests or POSTs; Secure behind https. */
function attributes(publicUrl: string): string {
  return `Path=/; HttpOnly; SameSite=Lax${/^https:/i.test(publicUrl) ? '; Secure' : ''}`;
}

export function setSessionCookie(reply: FastifyReply, publicUrl: string, value: string, maxAgeSeconds: number) {
  reply.header('set-cookie', `${SESSION_COOKIE}=${value}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; ${attributes(publicUrl)}`);
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string) {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(publicUrl)}`);
}

/** The origin (scheme://host[:port]) of a URL, lower-cased; null when it is not an absolute http(s) URL. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Methods that change nothing: the cookie authenticates them from anywhere (SameSite=Lax sends it only on top-level navigations across sites). */
export const isSafeMethod = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/**
 * Where the request says it comes from: its Origin, or without one its Referer's origin;
 * undefined when it says neither (a program, not a browser page).
 */
export function requestOrigin(request: FastifyRequest): string | null | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== '') return origin === 'null' ? null : originOf(origin);
  const referer = request.headers.referer;
  if (referer !== undefined && referer !== '') return originOf(referer);
  return undefined;
}

/** The CSRF rule: whether a request authenticated by the cookie alone may change something (its Origin, or Referer, is the site's own). */
export function fromOwnOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const from = requestOrigin(request);
  return typeof from === 'string' && from === originOf(publicUrl);
}

/** Whether a login may set the cookie: not when a page of another origin sent it (that page's site would be logged in to this one). */
export function mayStartSession(request: FastifyRequest, publicUrl: string): boolean {
  const from = requestOrigin(request);
  return from === undefined || from === originOf(publicUrl);
}
