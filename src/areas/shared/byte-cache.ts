// Serialized answers kept per process in bounded LRU maps, valid under stamps the
// database keeps (cache_stamps, per-row stamps): the machinery of the guides' read cache
// (areas/guides/guides.cache.ts, which says how the stamps keep it correct) and of the
// answers other areas keep the same way (suggestions, pages of comments).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { outputRewritesBody } from '../../http/output.js';
import { etagOf, withVary } from '../../http/conditional.js';
import { acceptsGzip } from '../../http/encoding.js';
import { prepared } from '../../db/prepared.js';
import { keptWhileUnchanged } from '../../db/kept-reads.js';
import { sharedReads } from '../../db/shared-reads.js';
import { readsEveryGuide } from './guide-access.js';
import { perDatabase } from './per-database.js';
import { withArrayBytes } from './json-bytes.js';
import { watchCache } from '../../http/operator-metrics.js';
import type { Lent } from './stored-bytes.js';

export interface Entry {
  key: string;
  /** What made it valid: the guide's revisionid and cache_stamp, or the list stamp (a wiki's: wikis.cache.ts). */
  revisionid: number;
  stamp: number | string;
  at: number;
  json: Buffer;
  /** Its ETag, computed once (http/conditional.ts would hash the bytes on every send). */
  etag: string;
  /** What vouches for the bytes besides the stamps, when the build said (Built.check): see `renewedIfUnchanged`. */
  check?: string;
  /** Reads `check` again as it is now, when the entry's own (sendCachedAnswerUnder). */
  recheck?: () => Promise<string>;
  /**
   * The same bytes as a gzip member, on an entry read from a lower level that stores them
   * so and not kept here (`keptOrBuilt`): sent as they are to a client that accepts gzip,
   * and `json` inflated only for one that does not.
   */
  gzip?: Buffer;
  /** On the same entries: `json` in a buffer lent for one answer (stored-bytes.ts `lendUnpacked`), or undefined. */
  lend?: () => Lent | undefined;
}

/**
 * Builds under way, by what they build: a caller that misses what another is already
 * building waits for that build instead of building it again (after a write, every
 * concurrent reader of a list page or a guide missed it, and each built it). A caller
 * whose shared build fails builds for itself.
 */
export class Builds<T> {
  private running = new Map<string, Promise<T>>();
  shared = 0;

  async run(key: string, build: () => Promise<T>): Promise<T> {
    const under = this.running.get(key);
    if (under) {
      this.shared++;
      return under.catch(build);
    }
    const started = build();
    this.running.set(key, started);
    const done = () => { this.running.delete(key); };
    started.then(done, done);
    return started;
  }
}

/** Keys a cache remembers having been offered from below and not kept (about 70 bytes each). */
const DOORKEEPER_KEYS = 16_384;
/** The offer from below that is kept: the third in a while (see `admitsFromBelow`). */
export const ADMITTED_AT_OFFER = 3;

/** An LRU map bounded by the total size of its buffers. */
export class ByteLru {
  private map = new Map<string, Entry>();
  private size = 0;
  /** Keys offered from a lower level and not kept, with how many times (`admitsFromBelow`), oldest first. */
  private offered = new Map<string, number>();
  hits = 0;
  misses = 0;
  /** Misses being built (keptOrBuilt, sendCachedAnswerUnder). */
  readonly builds = new Builds<Entry | { value: unknown }>();
  /** Checks of entries kept under older stamps being read (renewedIfUnchanged). */
  readonly checks = new Builds<string>();
  /** `name`: what /metrics calls it (cache_hits{cache="..."}): every cache of that name is summed. */
  constructor(private readonly maxBytes: number, private readonly ttlSeconds: number, name = 'other') {
    watchCache(name, this);
  }

  /** Bytes of the buffers kept now. */
  get bytes(): number {
    return this.size;
  }

  get(key: string, revisionid: number, stamp: number | string, now: number): Buffer | undefined {
    return this.getEntry(key, revisionid, stamp, now)?.json;
  }

  /** The entry under `key` valid at (revisionid, stamp), without counting a hit or a miss nor making it recent. */
  peek(key: string, revisionid: number, stamp: number | string, now: number): Entry | undefined {
    const e = this.map.get(key);
    return e && e.revisionid === revisionid && e.stamp === stamp && now - e.at < this.ttlSeconds ? e : undefined;
  }

  /** The entry under `key` whatever its stamps, unless it is too old (not counted, not made recent). */
  peekAny(key: string, now: number): Entry | undefined {
    const e = this.map.get(key);
    return e && now - e.at < this.ttlSeconds ? e : undefined;
  }

  getEntry(key: string, revisionid: number, stamp: number | string, now: number): Entry | undefined {
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

  /** Keeps `json` under `key` (unless `keep` is false); `etag`: its tag when known already (stored with it), else computed. */
  set(key: string, revisionid: number, stamp: number | string, now: number, json: Buffer, etag?: string | null, keep = true): Entry {
    const entry = { key, revisionid, stamp, at: now, json, etag: etag ?? etagOf(json) };
    if (!keep || json.length > this.maxBytes / 4) return entry;
    this.delete(key);
    this.map.set(key, entry);
    this.size += json.length;
    for (const old of this.map.values()) {
      if (this.size <= this.maxBytes) break;
      this.delete(old.key);
    }
    return entry;
  }

  /**
   * Whether bytes found in a lower level (stored records) under `key` are worth keeping:
   * only the third time in a while (the last DOORKEEPER_KEYS keys offered). A read of any of
   * 100 000 guides is rarely repeated soon; kept, each pushed a hot entry out, and the
   * entry pushed out held its 30 to 40 KB until the next full collection (kept entries
   * outlive the young generation, and V8 counts the bytes of buffers allocated since the
   * last full collection against the old generation's limit): the collector ran full marks
   * for bytes nobody read again. Of uniform reads over 95 000 guides, the second offer in a
   * while kept one in six by chance, the third keeps about one in seventy-five (BENCHMARKS.md,
   * run of 2026-11-28 09:19). Bytes built here are always kept (they cost a build).
   */
  admitsFromBelow(key: string): boolean {
    if (this.map.has(key)) return true;
    const offers = (this.offered.get(key) ?? 0) + 1;
    if (offers >= ADMITTED_AT_OFFER) {
      this.offered.delete(key);
      return true;
    }
    this.offered.set(key, offers);
    if (this.offered.size > DOORKEEPER_KEYS) this.offered.delete(this.offered.keys().next().value!);
    return false;
  }

  delete(key: string) {
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.size -= e.json.length;
  }

  clear() {
    this.map.clear();
    this.offered.clear();
    this.size = 0;
  }

  get entries() {
    return this.map.size;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Kept bytes as the answer: a Buffer, which goes to the socket as it is, with the tag
 * computed when they were kept; as a string when the output hook (http/output.ts)
 * rewrites the body (?pretty, XML), whose tag is then of what it writes.
 */
export function sendKept(reply: FastifyReply, entry: Pick<Entry, 'json' | 'etag' | 'gzip' | 'lend'>) {
  reply.header('content-type', JSON_TYPE);
  if (outputRewritesBody(reply.request)) return reply.send(entry.json.toString());
  reply.header('etag', entry.etag);
  // The tag is weak (http/conditional.ts): the same for both codings of the same bytes.
  if (entry.gzip !== undefined && acceptsGzip(reply.request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').header('vary', withVary(reply.getHeader('vary'), GZIP_VARY)).send(entry.gzip);
  }
  // Bytes only sent, not kept: lent, and given back once written (a response that never
  // finishes, its client gone, leaves its buffer to the collector).
  const lent = entry.lend?.();
  if (lent !== undefined) {
    reply.raw.once('finish', lent.release);
    return reply.send(lent.bytes);
  }
  return reply.send(entry.json);
}

/**
 * What a gzip answer varies by: the Origin (cors.ts, every answer) and the coding. An answer
 * in identity says only Origin: any client takes it, so a shared cache may give it to any.
 */
const GZIP_VARY = 'Origin, Accept-Encoding';

/** An entry of bytes from a lower level, not kept: `json` inflated from `bytes` when first asked for, or lent to an answer that only sends them. */
function unkeptStored(key: string, revisionid: number, stamp: number | string, at: number, etag: string, bytes: () => Buffer, gzip: Buffer, lend?: () => Lent | undefined): Entry {
  let json: Buffer | undefined;
  return { key, revisionid, stamp, at, etag, gzip, lend, get json() { return (json ??= bytes()); } };
}

/**
 * Whom a cached answer that depends on the viewer (a private prerequisite) may be given
 * to: anonymous callers, or those who read every guide (Authors, Admins). What they
 * see depends only on `public` flags, which the stamps follow. What another user sees
 * also depends on collaborations and contributions, which no stamp follows: such
 * answers are built for them and not kept.
 */
export function viewerClass(user: AuthUser | null): ViewerClass | null {
  if (!user) return 'anonymous';
  return readsEveryGuide(user) ? 'every guide' : null;
}

export type ViewerClass = 'anonymous' | 'every guide';
const VIEWER_CLASSES: ViewerClass[] = ['anonymous', 'every guide'];

/** The key of an entry kept for a viewer class, beside the one for anyone under `key`. */
const classKey = (key: string, cls: ViewerClass) => `${key} for ${cls}`;

/**
 * The entries kept under `key` at any stamps that `user` could be answered from: the one
 * for anyone and the one for the caller's viewer class (undefined where none is kept).
 */
function keptForCaller(cache: ByteLru, key: string, user: AuthUser | null, now: number): [Entry | undefined, Entry | undefined] {
  const cls = viewerClass(user);
  return [cache.peekAny(key, now), cls === null ? undefined : cache.peekAny(classKey(key, cls), now)];
}

/** Whether the cache keeps, at any stamps, an entry under `key` that could answer `user` (guides.cache.ts `readAhead`). */
export function keepsForCaller(cache: ByteLru, key: string, user: AuthUser | null, now: number): boolean {
  return keptForCaller(cache, key, user, now).some((e) => e !== undefined);
}

/**
 * Bytes kept under `key` at (revisionid, stamp) for anyone or for any viewer class: for
 * callers that take from them only what is the same for every viewer (guides.changes.ts:
 * a guide's steps).
 */
export function keptForAnyViewer(cache: ByteLru, key: string, revisionid: number, stamp: number | string, now: number): Entry | undefined {
  return cache.peek(key, revisionid, stamp, now) ?? VIEWER_CLASSES.map((cls) => cache.peek(classKey(key, cls), revisionid, stamp, now)).find((e) => e !== undefined);
}

/**
 * A level under the process cache (guide records stored in the database: guides.stored.ts),
 * valid under the same stamps: asked on a miss, for bytes kept for anyone or for the
 * caller's class (null: a caller of no class, who may only get bytes kept for anyone),
 * and given what was built, with the class it was built for (null: for anyone). The tag
 * of the bytes goes with them both ways (null when the level has none: computed then).
 */
export interface LowerLevel {
  /**
   * `bytes` unpacks them (a cost: called only when they are sent as they are or kept);
   * `lend`, into a buffer lent for one answer that only sends them; `gzip`, the stored bytes
   * when they are a gzip member.
   */
  get(cls: ViewerClass | null): Promise<{ bytes: () => Buffer; lend?: () => Lent | undefined; gzip?: Buffer; forClass: boolean; etag: string | null } | undefined>;
  put(json: Buffer, cls: ViewerClass | null, builtAt: number, etag: string): void;
}

/**
 * What a build answers: the value, whether it depends on the viewer, and how old its parts
 * are: `builtAt`, made from parts stored earlier (their media URLs were signed then);
 * `keptSince`, made from parts of an entry this process kept since then (ByteLru.peek).
 */
export interface Built<T> {
  value: T;
  dependsOnViewer: boolean;
  builtAt?: number;
  keptSince?: number;
  /**
   * The value's array under `key` is an empty stand-in for `bytes`, that array as this
   * server serialized it before (json-bytes.ts): the answer's bytes take them as they are.
   */
  spliced?: { key: string; bytes: Buffer };
  /** What vouches for the value besides the stamps, read by the build after them (renewedIfUnchanged). */
  check?: string;
}

/** `value` as the route's response schema serializes its 200 answer, as bytes to keep. */
export function serializedBytes(reply: FastifyReply, value: unknown): Buffer {
  return Buffer.from(reply.serializeInput(value as Record<string, unknown>, '200') as string);
}

/** `value` with its stand-in array parsed from the bytes it stands for: when the bytes cannot be spliced. */
function unspliced<T>(value: T, spliced: NonNullable<Built<T>['spliced']>): T {
  return { ...value, [spliced.key]: JSON.parse(spliced.bytes.toString()) };
}

/**
 * The bytes cached under `key`: kept for anyone when they do not depend on the viewer,
 * else under `key` and the viewer's class (guides.access.ts). With `lower`, a miss asks it
 * before building (the same rule for who gets which bytes), and what is built goes to it.
 * `build` may say its answer is older than now (`builtAt`: made from parts built earlier).
 */
export async function cachedOrBuilt<T>(cache: ByteLru, reply: FastifyReply, user: AuthUser | null, key: string, revisionid: number, stamp: number | string, build: () => Promise<Built<T>>, lower?: LowerLevel) {
  const kept = await keptOrBuilt(cache, reply, user, key, revisionid, stamp, build, lower);
  return 'value' in kept ? kept.value : sendKept(reply, kept);
}

/**
 * What `cachedOrBuilt` answers, not yet sent: the kept entry, or the value built for a
 * caller whose answer is not kept. For callers that lay something over the kept bytes
 * before sending them (wikis.cache.ts: what only the caller may do).
 */
export async function keptOrBuilt<T>(cache: ByteLru, reply: FastifyReply, user: AuthUser | null, key: string, revisionid: number, stamp: number | string, build: () => Promise<Built<T>>, lower?: LowerLevel): Promise<Entry | { value: T }> {
  // Entries age on the app's clock (seconds), like everything else that expires.
  const now = reply.server.clock.now();
  const cls = viewerClass(user);
  const hit = cache.getEntry(key, revisionid, stamp, now) ?? (cls !== null ? cache.getEntry(classKey(key, cls), revisionid, stamp, now) : undefined);
  if (hit !== undefined) return hit;
  const missed = async (): Promise<Entry | { value: T }> => {
    const found = lower ? await lower.get(cls) : undefined;
    // Checked against every stamp just now (the lower level's own rules bound its age): kept from now.
    if (found) {
      const foundKey = found.forClass ? classKey(key, cls!) : key;
      const keep = cache.admitsFromBelow(foundKey);
      // Not kept: a client that accepts gzip is sent the stored bytes, nothing inflated.
      if (!keep && found.gzip !== undefined && found.etag !== null) return unkeptStored(foundKey, revisionid, stamp, now, found.etag, found.bytes, found.gzip, found.lend);
      const entry = cache.set(foundKey, revisionid, stamp, now, found.bytes(), found.etag, keep);
      // Kept without them (memory: the hot set fills the cache as it is); this answer may still send them.
      return found.gzip === undefined ? entry : { ...entry, gzip: found.gzip };
    }
    const { value, dependsOnViewer, builtAt: oldest, keptSince, spliced, check } = await build();
    if (dependsOnViewer && cls === null) return { value: spliced ? unspliced(value, spliced) : value };
    const json = spliced
      ? withArrayBytes(serializedBytes(reply, value), spliced.key, spliced.bytes) ?? serializedBytes(reply, unspliced(value, spliced))
      : serializedBytes(reply, value);
    const builtAt = Math.min(now, oldest ?? now);
    // The lower level ages it from its oldest part (media URLs signed then); this process from
    // now, or from when the entry it took parts from was kept (so that reusing never renews them).
    const entry = cache.set(dependsOnViewer ? classKey(key, cls!) : key, revisionid, stamp, Math.min(now, keptSince ?? now), json);
    if (check !== undefined) entry.check = check;
    // Parts taken from a kept entry are of an age the lower level cannot know: not stored.
    if (keptSince === undefined) lower?.put(json, dependsOnViewer ? cls : null, builtAt, entry.etag);
    return entry;
  };
  // Callers of a class get the same bytes under the same stamps: one build serves them all.
  // A caller of no class may be given a value built for them alone: built apart.
  if (cls === null) return missed();
  return cache.builds.run(`${key}\u0000${cls}\u0000${revisionid}\u0000${stamp}`, missed) as Promise<Entry | { value: T }>;
}

/**
 * Before `cachedOrBuilt` at (revisionid, stamp): an entry kept under `key` (for anyone, or
 * for the caller's class) at older stamps, with a `check` its build read, is kept under
 * these stamps from now on when `check` reads the same now. A stamp of a whole table
 * (the 'guides' stamp of the list pages) moves with every write of any row, while most
 * pages show none of the rows written: checking a page is one query where building it is
 * several and a serialization. Correct because the check is read after the stamps: what
 * it vouches for did not change between the build and now, so the bytes are of now, which
 * is at least as new as the stamps. The entry keeps its age (the TTL still bounds it).
 * Concurrent callers at the same stamps share one check. `check` is given the check of a
 * kept entry (what it read last time may tell it what to read now: a page's keys); `same`
 * says whether a kept check and the current one vouch for the same bytes (by default, equal
 * strings), and a renewed entry keeps the current one.
 */
export async function renewedIfUnchanged(cache: ByteLru, reply: FastifyReply, user: AuthUser | null, key: string, revisionid: number, stamp: number | string, check: (kept: string) => Promise<string>, same: (kept: string, current: string) => boolean = (a, b) => a === b): Promise<void> {
  const now = reply.server.clock.now();
  const kept = keptForCaller(cache, key, user, now);
  if (kept.some((e) => e && e.revisionid === revisionid && e.stamp === stamp)) return;
  const stale = kept.filter((e): e is Entry => e?.check !== undefined);
  if (stale.length === 0) return;
  const current = await cache.checks.run(`${key}\u0000${revisionid}\u0000${stamp}`, () => check(stale[0].check!));
  for (const e of stale) {
    if (!same(e.check!, current) || cache.peekAny(e.key, now) !== e) continue;
    e.revisionid = revisionid;
    e.stamp = stamp;
    e.check = current;
  }
}

/** Reads of `cache_stamps`, all its rows in one prepared query, shared by concurrent readers (db/shared-reads.ts). */
const allStampRows = prepared<Record<string, never>, { key: string; stamp: number }>('cache_stamps', (db) => db.selectFrom('cache_stamps').select(['key', 'stamp']));
const stampMap = (rows: Array<{ key: string; stamp: number }>) => new Map(rows.map((r) => [r.key, Number(r.stamp)]));
const sharedStampReads = sharedReads<null, Map<string, number>>(async (db) => stampMap(await allStampRows(db, {})));
/**
 * All the stamps; on SQLite those last read while no connection has written since
 * (db/kept-reads.ts): no table read for most cached answers.
 */
const keptStamps = keptWhileUnchanged(1, () => 'all', (db, _: null) => sharedStampReads(db, null));
const readStamps = (db: Kysely<Database>) => keptStamps(db, null);

/** A stamp of `cache_stamps` (-1 if there is none). */
export async function cacheStamp(db: Kysely<Database>, key: string): Promise<number> {
  return (await readStamps(db)).get(key) ?? -1;
}

/** Two stamps of `cache_stamps` (-1 for one there is not), from the same read. */
export async function cacheStamps(db: Kysely<Database>, a: string, b: string): Promise<[number, number]> {
  const stamps = await readStamps(db);
  return [stamps.get(a) ?? -1, stamps.get(b) ?? -1];
}

/**
 * Answers of other areas kept the same way (suggestions, pages of comments), valid while
 * two stamps of `cache_stamps` are what they were when the answer was built: `stamps[0]`
 * names the one for what the answer shows (e.g. 'search'), `stamps[1]` a second one
 * (e.g. 'guides', for guide records and which guides a reader reads). Both are read in
 * one prepared query, before `build` runs. `build` says whether the answer depends on the
 * viewer; if so it is kept per viewer class only (see viewerClass).
 */
export async function sendCachedAnswer<T>(app: FastifyInstance, reply: FastifyReply, user: AuthUser | null, stamps: [string, string], key: string, build: () => Promise<{ value: T; dependsOnViewer: boolean }>): Promise<T | FastifyReply> {
  if (app.config.guideCacheMb <= 0) return (await build()).value;
  const [shown, second] = await cacheStamps(app.db, stamps[0], stamps[1]);
  return cachedOrBuilt(answerCache(app), reply, user, `${stamps[0]}:${key}`, second, shown, build);
}

/**
 * An answer for anyone, kept under one of two pairs of stamps, as its build says: `narrow`
 * when what it rests on is followed by a stamp bumped less often (a suggestion answered
 * from titles alone: 'search_titles' instead of 'search'), `wide` otherwise. A kept answer
 * is looked for under the narrow pair first; all the stamps come from one read, before
 * `build` runs.
 */
export async function sendCachedAnswerUnder<T>(app: FastifyInstance, reply: FastifyReply, stamps: { narrow: [string, string]; wide: [string, string] }, key: string, build: () => Promise<{ value: T; narrow: boolean; check?: { value: string; again: () => Promise<string> } }>): Promise<T | FastifyReply> {
  if (app.config.guideCacheMb <= 0) return (await build()).value;
  const all = await readStamps(app.db);
  const pair = (p: [string, string]) => ({ key: `${p[0]}:${key}`, shown: all.get(p[0]) ?? -1, second: all.get(p[1]) ?? -1 });
  const narrow = pair(stamps.narrow);
  const wide = pair(stamps.wide);
  const cache = answerCache(app);
  const now = reply.server.clock.now();
  const hit = cache.getEntry(narrow.key, narrow.second, narrow.shown, now) ?? cache.getEntry(wide.key, wide.second, wide.shown, now);
  if (hit) return sendKept(reply, hit);
  // Kept under the first stamp as it is, the second moved since (a suggestion: what it found
  // is the same, and some guide was edited): kept on when its own check reads the same (the
  // records it shows of guides: renewedIfUnchanged says why that holds).
  for (const p of [narrow, wide]) {
    const e = cache.peekAny(p.key, now);
    if (!e?.recheck || e.stamp !== p.shown) continue;
    const current = await cache.checks.run(`${p.key}\u0000${p.second}\u0000${p.shown}`, e.recheck);
    if (current !== e.check || cache.peekAny(p.key, now) !== e) break;
    e.revisionid = p.second;
    return sendKept(reply, e);
  }
  const built = await cache.builds.run(`${narrow.key}\u0000${narrow.second}\u0000${narrow.shown}\u0000${wide.second}\u0000${wide.shown}`, async () => {
    const { value, narrow: isNarrow, check } = await build();
    const json = serializedBytes(reply, value);
    const under = isNarrow ? narrow : wide;
    const entry = cache.set(under.key, under.second, under.shown, now, json);
    if (check) Object.assign(entry, { check: check.value, recheck: check.again });
    return entry;
  });
  return sendKept(reply, built as Entry);
}

/** The answers' cache of one app: GUIDE_CACHE_MB / 4 (a suggestion is about 17 KB: 16 MB hold about 1 000). */
export const answerCache = perDatabase((app) => new ByteLru(Math.max(1, app.config.guideCacheMb / 4) * 2 ** 20, app.config.guideCacheTtl, 'answers'));
