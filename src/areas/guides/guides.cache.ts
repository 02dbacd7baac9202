// The read cache of guides: the serialized bytes of full guide records and of pages of
// the guide list, kept per process in bounded LRU maps, so that a read that was already
// answered is neither rebuilt (about fifteen queries and the wiki rendering) nor
// serialized again (about 45 µs for a guide through its response schema).
//
// Correct with several server processes on one database: the database keeps the stamps
// (migration 2026_11_22_1420_guide_cache, triggers on every table a record shows), and a
// cached answer is used only while they are what they were when it was built:
//  - a guide: its row's (revisionid, cache_stamp), read by the lookup every read of a
//    guide does anyway (findGuideRow); a new revision or a bumped stamp misses.
//  - a list page: the `cache_stamps` row 'guides', one primary-key lookup.
// Stamps are read before what they vouch for, so an answer built while a write commits
// is stored under the older stamp and is never served after it.
//
// A record that shows a prerequisite private in some language depends on who reads it:
// it is kept per viewer class (anonymous; Authors and Admins), never for other users.
//
// A guide's record that is not in this process's cache is read from the records stored in
// the database (guides.stored.ts), checked the same way, before it is built; what is built
// is stored for every process.
//
// Writes that are not covered by a trigger call `invalidateGuide(db, guideid)`.
// Entries also expire after GUIDE_CACHE_TTL seconds: what a record shows of other guides
// through links in its text (their titles) is not tracked and is at most that old.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { AuthUser } from '../../http/auth.js';
import type { Database } from '../../db/schema.js';
import type { FullGuide } from './guides.schemas.js';
import type { GuideRow } from './guides.queries.js';
import type { RenderedTexts } from './guides.records.js';
import { storedRecords } from './guides.stored.js';
import { readsEveryGuide } from './guides.access.js';
import { outputRewritesBody } from '../../http/output.js';
import { etagOf } from '../../http/conditional.js';
import { prepared } from '../../db/prepared.js';

interface Entry {
  key: string;
  /** What made it valid: the guide's revisionid and cache_stamp, or the list stamp. */
  revisionid: number;
  stamp: number;
  at: number;
  json: Buffer;
  /** Its ETag, computed once (http/conditional.ts would hash the bytes on every send). */
  etag: string;
}

/** An LRU map bounded by the total size of its buffers. */
export class ByteLru {
  private map = new Map<string, Entry>();
  private size = 0;
  hits = 0;
  misses = 0;
  constructor(private readonly maxBytes: number, private readonly ttlSeconds: number) {}

  get(key: string, revisionid: number, stamp: number, now: number): Buffer | undefined {
    return this.getEntry(key, revisionid, stamp, now)?.json;
  }

  getEntry(key: string, revisionid: number, stamp: number, now: number): Entry | undefined {
    const e = this.map.get(key);
    if (e && e.revisionid === revisionid && e.stamp === stamp && now - e.at < this.ttlSeconds) {
      // most recently used last
      this.map.delete(key);
      this.map.set(key, e);
      this.hits++;
      return e;
    }
    this.misses++;
    return undefined;
  }

  set(key: string, revisionid: number, stamp: number, now: number, json: Buffer): Entry {
    const entry = { key, revisionid, stamp, at: now, json, etag: etagOf(json) };
    if (json.length > this.maxBytes / 4) return entry;
    this.delete(key);
    this.map.set(key, entry);
    this.size += json.length;
    for (const old of this.map.values()) {
      if (this.size <= this.maxBytes) break;
      this.delete(old.key);
    }
    return entry;
  }

  delete(key: string) {
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.size -= e.json.length;
  }

  clear() {
    this.map.clear();
    this.size = 0;
  }

  get entries() {
    return this.map.size;
  }
}

interface Caches { guides: ByteLru; lists: ByteLru }
const caches = new WeakMap<object, Caches>();

/** The caches of one app (tests build several apps in one process). */
export function guideCaches(app: FastifyInstance): Caches {
  let c = caches.get(app.db);
  if (!c) {
    const mb = app.config.guideCacheMb;
    const ttl = app.config.guideCacheTtl;
    c = { guides: new ByteLru(mb * 2 ** 20, ttl), lists: new ByteLru(Math.max(1, mb / 8) * 2 ** 20, ttl) };
    caches.set(app.db, c);
  }
  return c;
}

/** Marks a guide's cached records stale, in every process sharing the database. */
export async function invalidateGuide(db: Kysely<Database>, guideid: number): Promise<void> {
  await db.updateTable('guides').set((eb) => ({ cache_stamp: eb('cache_stamp', '+', 1) })).where('guideid', '=', guideid).execute();
}

/** A `cache_stamps` row's value (-1 when it is missing): one prepared primary-key lookup. */
export async function cacheStamp(db: Kysely<Database>, key: string): Promise<number> {
  const [row] = await stampRow(db, { key });
  return Number(row?.stamp ?? -1);
}
const stampRow = prepared<{ key: string }, { stamp: number }>('cache_stamp', (db, arg) => db.selectFrom('cache_stamps').select('stamp').where('key', '=', arg('key')));

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Kept bytes as the answer: a Buffer, which goes to the socket as it is, with the tag
 * computed when they were kept; as a string when the output hook (http/output.ts)
 * rewrites the body (?pretty, XML), whose tag is then of what it writes.
 */
export function sendKept(reply: FastifyReply, entry: Pick<Entry, 'json' | 'etag'>) {
  reply.header('content-type', JSON_TYPE);
  if (outputRewritesBody(reply.request)) return reply.send(entry.json.toString());
  return reply.header('etag', entry.etag).send(entry.json);
}

/**
 * Whom a cached answer that depends on the viewer (a private prerequisite) may be given
 * to: anonymous callers, or those who read every guide (Authors, Admins). What they
 * see depends only on `public` flags, which the stamps follow. What another user sees
 * also depends on collaborations and contributions, which no stamp follows: such
 * answers are built for them and not kept.
 */
function viewerClass(user: AuthUser | null): 'anonymous' | 'every guide' | null {
  if (!user) return 'anonymous';
  return readsEveryGuide(user) ? 'every guide' : null;
}

/** Where a guide's bytes are also stored in the database (guides.stored.ts). */
interface StoredAt { guideid: number; langid: string; released: boolean }

/**
 * The bytes cached under `key`: kept for anyone when they do not depend on the viewer,
 * else under `key` and the viewer's class (guides.access.ts). With `stored`, a miss
 * reads the stored record (the same rule for who gets which bytes) before building, and
 * what is built is stored.
 */
async function cachedOrBuilt<T>(cache: ByteLru, reply: FastifyReply, user: AuthUser | null, key: string, revisionid: number, stamp: number, build: () => Promise<{ value: T; dependsOnViewer: boolean; builtAt?: number }>, stored?: StoredAt) {
  // Entries age on the app's clock (seconds), like everything else that expires.
  const app = reply.server;
  const now = app.clock.now();
  const cls = viewerClass(user);
  const hit = cache.getEntry(key, revisionid, stamp, now) ?? (cls !== null ? cache.getEntry(`${key} for ${cls}`, revisionid, stamp, now) : undefined);
  if (hit !== undefined) return sendKept(reply, hit);
  const base = stored?.released ? 'released' : '';
  const classVariant = cls === null ? null : `${base ? `${base} ` : ''}${cls}`;
  if (stored) {
    const found = await storedRecords(app).get(stored.guideid, stored.langid, classVariant === null ? [base] : [base, classVariant], revisionid, stamp, now, app.config.guideCacheTtl);
    // Aged from when it was built, not from now: what it shows of untracked rows is no older than the TTL.
    if (found) return sendKept(reply, cache.set(found.variant === base ? key : `${key} for ${cls}`, revisionid, stamp, found.builtAt, found.body));
  }
  const { value, dependsOnViewer, builtAt: oldest } = await build();
  if (dependsOnViewer && cls === null) return value;
  const json = Buffer.from(reply.serializeInput(value as unknown as Record<string, unknown>, '200') as string);
  // Built from texts rendered earlier (guides.stored.ts): as old as the oldest of them.
  const builtAt = Math.min(now, oldest ?? now);
  const entry = cache.set(dependsOnViewer ? `${key} for ${cls}` : key, revisionid, stamp, builtAt, json);
  if (stored) {
    const store = storedRecords(app);
    store.put({ ...stored, variant: dependsOnViewer ? classVariant! : base, revisionid, stamp, builtAt, builtBy: store.builtBy, body: json });
  }
  return sendKept(reply, entry);
}

/**
 * Answers the current full record of the guide in `row` as `user` sees it (a row just
 * read, whose revisionid and cache_stamp vouch for the cached bytes): from the cache,
 * or built with `build`, serialized through the route's response schema and kept.
 * `atRevision`: the record of that kept revision instead (what readers see under an
 * approval process), cached under it with the row's cache_stamp.
 */
export async function sendCachedGuide(app: FastifyInstance, reply: FastifyReply, row: GuideRow, user: AuthUser | null, build: (rendered?: RenderedTexts) => Promise<{ record: FullGuide; dependsOnViewer: boolean; builtAt?: number }>, atRevision?: number) {
  if (app.config.guideCacheMb <= 0) return (await build()).record;
  const rendered = storedRecords(app).renderedTexts(app.clock.now(), app.config.guideCacheTtl);
  const key = atRevision === undefined ? `${row.guideid}:${row.langid}` : `${row.guideid}:${row.langid}@${atRevision}`;
  return cachedOrBuilt(guideCaches(app).guides, reply, user, key, atRevision ?? row.revisionid, row.cache_stamp, async () => {
    const { record, dependsOnViewer, builtAt } = await build(rendered);
    return { value: record, dependsOnViewer, builtAt };
  }, { guideid: row.guideid, langid: row.langid, released: atRevision !== undefined });
}

/**
 * Answers a page of the guide list as `user` sees it from the cache when no guide
 * changed since it was built (the 'guides' stamp), else builds, serializes and keeps it.
 * `key` names the page (every query parameter that shapes it).
 */
export async function sendCachedList<T>(app: FastifyInstance, reply: FastifyReply, user: AuthUser | null, key: string, build: () => Promise<{ records: T[]; dependsOnViewer: boolean }>): Promise<T[] | FastifyReply> {
  if (app.config.guideCacheMb <= 0) return (await build()).records;
  const stamp = await cacheStamp(app.db, 'guides');
  return cachedOrBuilt(guideCaches(app).lists, reply, user, key, 0, stamp, async () => {
    const { records, dependsOnViewer } = await build();
    return { value: records, dependsOnViewer };
  });
}
