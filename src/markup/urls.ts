// Which link targets the renderer emits: http, https, mailto and site-relative paths.
// Anything else (javascript:, data:, vbscript:, protocol-relative //host, a target with
// white space or control characters) is not a link: the construct is rendered as text.

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0020\u007f-\u009f"<>\\\u2028\u2029]/;

export function safeHref(raw: string): string | null {
  const url = raw.trim();
  if (url === '' || url.length > 2048 || FORBIDDEN.test(url)) return null;
  // A script scheme has no place anywhere in a link, not even in a query or after mailto:.
  if (/(java|vb|live)script:|data:text/i.test(url)) return null;
  if (/^https?:\/\/[^/?#@]+/i.test(url)) return url;
  if (/^mailto:[^/]/i.test(url)) return url;
  if (/^\/(?![/\\])/.test(url)) return url;
  return null;
}

/** The `src` of an image or video from a resolver: only http(s) or site-relative. */
export function safeSrc(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const url = safeHref(raw);
  return url && !/^mailto:/i.test(url) ? url : null;
}
