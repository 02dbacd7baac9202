// The login page of a private site's HTML pages (docs/security.md, "Private sites"): a plain
// form, no script, posting to `POST /login` (src/areas/users/login.routes.ts), which sets the
// session cookie and sends the browser back to the page it came from: a path of this site
// only, so the page cannot be used to send someone elsewhere.
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../markup/index.js';

export const LOGIN_PATH = '/login';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#1f2328}label{display:block;margin-top:1rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1.2rem;padding:.4rem 1.2rem}.error{color:#cf222e}';

/**
 * Where a login may send the browser back to: a path of this site (`/Guide/x/1?lang=de`),
 * or `/` for anything else: an absolute URL, a scheme, `//host` and `/\host` (which browsers
 * read as another host), control characters.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  try {
    const base = 'http://this.site';
    const u = new URL(next, base);
    return u.origin === base ? u.pathname + u.search + u.hash : '/';
  } catch {
    return '/';
  }
}

export function loginPageHtml(o: { next: string; error?: string; login?: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in</title><style>${STYLE}</style></head>
<body><main><h1>Log in</h1><p>This site is private: log in to read it.</p>
${o.error ? `<p class="error" role="alert">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="${LOGIN_PATH}">
<input type="hidden" name="next" value="${escapeHtml(safeNext(o.next))}">
<label for="login">E-mail or username</label><input id="login" name="login" type="text" autocomplete="username" required value="${escapeHtml(o.login ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form></main></body></html>`;
}

/** Answers the login page (401 where a page needed a session; 200 for the page itself). */
export function sendLoginPage(reply: FastifyReply, status: number, o: { next: string; error?: string; login?: string }) {
  return reply.status(status).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP)
    // A browser sends `Origin: null` with a form posted from a no-referrer page (every other
    // answer's policy); the form's handler must see this site's origin.
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store').send(loginPageHtml(o));
}
