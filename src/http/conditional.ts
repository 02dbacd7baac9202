// Conditional reads: every successful GET of the API answers an `ETag`, and a request
// whose `If-None-Match` names it gets a 304 without a body, so a client that syncs stops
// downloading what it already has. The tag is a digest of the bytes sent (after the
// output format: JSON, `?pretty` and XML differ), so it changes exactly when what this
// caller sees changes, whatever made it change (an edit, a permission, a translation):
// no rule of any area has to be repeated here. The handler still runs, so a 304 of a
// guide counts as a view. Responses that set their own tag (media files, kept bytes) keep it.
import * as crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

// Small answers repeat (an empty page, a record polled, a suggestion of nothing), and in a
// busy server their digest costs about 3 µs, more than the rest of such a request's own
// work. Their tags are kept by the text itself (compared whole: no collision), oldest out
// first: at most 512 bodies of at most 1 024 characters.
const SMALL_BODY = 1024;
const SMALL_TAGS_KEPT = 512;
const smallTags = new Map<string, string>();

/** The weak tag of a body: same bytes, same tag (weak: the content, not its encoding on the wire). */
export function etagOf(body: string | Buffer): string {
  if (typeof body !== 'string' || body.length > SMALL_BODY) return `W/"${sha1(body)}"`;
  let tag = smallTags.get(body);
  if (tag === undefined) {
    tag = `W/"${sha1(body)}"`;
    if (smallTags.size >= SMALL_TAGS_KEPT) smallTags.delete(smallTags.keys().next().value!);
    smallTags.set(body, tag);
  }
  return tag;
}

// crypto.hash (Node 20.12+) digests in one call: no Hash object per answer, about 1 µs less
// for a small one (every answer that carries no tag of its own is digested once).
/** The SHA-1 of `body`, base64url: answers' tags, and what kept answers are checked by (byte-cache.ts). */
export const sha1: (body: string | Buffer) => string = typeof crypto.hash === 'function'
  ? (body) => crypto.hash('sha1', body, 'base64url')
  : (body) => crypto.createHash('sha1').update(body).digest('base64url');

/** Whether `If-None-Match` (a comma list, or `*`) names `tag`, compared weakly (RFC 9110 13.1.2). */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const bare = tag.replace(/^W\//, '');
  for (const part of header.split(',')) {
    const candidate = part.trim();
    if (candidate === '*' || candidate.replace(/^W\//, '') === bare) return true;
  }
  return false;
}

const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';

/**
 * The tag of a successful API read, and a 304 without a body when the request names it
 * (called by the one onSend hook, app.ts, after the output format). A tag the route set
 * (kept bytes carry theirs: guides.cache.ts) is used as it is.
 */
export function answerConditionally(request: FastifyRequest, reply: FastifyReply, payload: unknown, basePath: string): unknown {
  if (!isRead(request) || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  if (!request.url.startsWith(basePath + '/')) return payload;
  let tag = reply.getHeader('etag');
  if (typeof tag !== 'string') reply.header('etag', (tag = etagOf(payload)));
  if (!matchesIfNoneMatch(request.headers['if-none-match'], tag)) return payload;
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  // No body to decode (kept bytes go out gzipped to who accepts it: byte-cache.ts).
  reply.removeHeader('content-encoding');
  return '';
}

/** Vary of answers that differ by caller (who may edit what they show: areas/shared/guide-reader.ts). */
export const BY_CALLER_VARY = 'Authorization, Cookie';

/**
 * Marks an answer that differs by caller: `Cache-Control: private` (no shared cache keeps
 * it, so no cache hands one caller's answer, a draft, to another) and `Vary: Authorization, Cookie`.
 */
export function privateAnswer(reply: FastifyReply): void {
  reply.header('cache-control', 'private');
  reply.header('vary', withVary(reply.getHeader('vary'), BY_CALLER_VARY));
}

/** A Vary header with `more` added (each name once). */
export function withVary(current: unknown, more: string): string {
  const names = [...(typeof current === 'string' && current ? current.split(',') : []), ...more.split(',')].map((n) => n.trim()).filter(Boolean);
  return [...new Map(names.map((n) => [n.toLowerCase(), n])).values()].join(', ');
}
