// The read cache of guides: the serialized bytes of full guide records and of pages of
// the guide list, kept per process in bounded LRU maps, so that a read that was already
// answered is neither rebuilt (about fifteen queries and the wiki rendering) nor
// serialized again (about 45 µs for a guide through its response schema).
//
// Correct with several server processes on one database: the database keeps the stamps
// (migration 2026_11_22_1420_guide_cache, triggers on every table a record shows), and a
// cached answer is used only while they are what they were when it was built:
//  - a guide: its row's (revisionid, cache_stamp), read by the lookup every read of a
//    guide does anyway (findGuideHead); a new revision or a bumped stamp misses.
//  - a list page: the `cache_stamps` row 'guides', one primary-key lookup; after it moved,
//    the page's rows and their cache_stamps, one query (sendCachedList): the page's own
//    query, or, while the 'guide_reach' stamp has not moved, its rows by their keys.
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
// through links in its text (their titles) is checked (the 'guide_titles' stamp) only when
// it comes from the database, so in this process it is at most that old.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { AuthUser } from '../../http/auth.js';
import type { Database } from '../../db/schema.js';
import type { FullGuide } from './guides.schemas.js';
import { samePage, type GuideHead } from './guides.queries.js';
import { ByteLru, cacheStamp, cacheStamps, cachedOrBuilt, keepsForCaller, keptForAnyViewer, renewedIfUnchanged, viewerClass, type Built, type LowerLevel } from '../shared/byte-cache.js';
import { isPostgres } from '../../db/helpers.js';
import { perDatabase } from '../shared/per-database.js';
import { arrayBytes } from '../shared/json-bytes.js';
import type { RenderedTexts } from './guides.records.js';
import { storedRecords, storedTtl, type RecordRow } from './guides.stored.js';
import type { SnapshotParts } from './guides.service.js';

export { ByteLru, cacheStamp, sendKept } from '../shared/byte-cache.js';

interface Caches { guides: ByteLru; lists: ByteLru }
/** The caches of one app: guide records (GUIDE_CACHE_MB) and list pages (an eighth of it). */
export const guideCaches = perDatabase((app): Caches => {
  const mb = app.config.guideCacheMb;
  const ttl = app.config.guideCacheTtl;
  return { guides: new ByteLru(mb * 2 ** 20, ttl, 'guides'), lists: new ByteLru(Math.max(1, mb / 8) * 2 ** 20, ttl, 'guide_lists') };
});

/**
 * Marks a guide's cached records stale, in every process sharing the database, in every
 * language. After a change of its tags too: they belong to the guide, so a tag written
 * through one language changes what the others show, which make no revision of it. (Bumped
 * after that change commits, in a statement of its own: taking the other languages' rows
 * inside it would lock two rows of a guide, and two such changes through different
 * languages at once would wait for each other.)
 */
export async function invalidateGuide(db: Kysely<Database>, guideid: number): Promise<void> {
  await db.updateTable('guides').set((eb) => ({ cache_stamp: eb('cache_stamp', '+', 1) })).where('guideid', '=', guideid).execute();
}

/**
 * Answers the current full record of the guide in `row` as `user` sees it (a row just
 * read, whose revisionid and cache_stamp vouch for the cached bytes): from the cache,
 * or built with `build`, serialized through the route's response schema and kept.
 * `atRevision`: the record of that kept revision instead (what readers see under an
 * approval process), cached under it with the row's cache_stamp. `justCommitted`: the
 * row is what a change just wrote, so no stored record can be of it yet (none is read),
 * and the answer is kept in this process only: the write path does not also store it
 * (a read that misses the process cache stores what it builds).
 */
export async function sendCachedGuide(app: FastifyInstance, reply: FastifyReply, row: Pick<GuideHead, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp'>, user: AuthUser | null, build: (rendered?: RenderedTexts) => Promise<Omit<Built<FullGuide>, 'value'> & { record: FullGuide }>, opts: { atRevision?: number; justCommitted?: boolean; readAhead?: ReadAhead; titlesStamp?: number } = {}) {
  const { atRevision } = opts;
  if (app.config.guideCacheMb <= 0) return (await build()).record;
  const key = atRevision === undefined ? `${row.guideid}:${row.langid}` : `${row.guideid}:${row.langid}@${atRevision}`;
  const revisionid = atRevision ?? row.revisionid;
  const now = app.clock.now();
  const store = storedRecords(app);
  // Stored per variant: '' for anyone, else the viewer class; 'released' for what readers see under an approval process.
  const base = atRevision === undefined ? '' : 'released';
  const variantOf = (cls: string) => (base ? `${base} ${cls}` : cls);
  const ttl = storedTtl(app.config);
  // The 'guide_titles' stamp, which stored records and rendered texts are checked against:
  // read only on a miss of this process's cache (a hit is vouched for by the head and its
  // TTL), before anything is read from the store or built; given by a change that read it
  // before its build, or asked for beside the head (readAhead). Stamps only grow, so one
  // read beside the head vouches as one read after it.
  let titlesStamp = opts.titlesStamp;
  const titles = async () => (titlesStamp ??= (opts.readAhead && (await opts.readAhead.titlesStamp)) ?? (await cacheStamp(app.db, 'guide_titles')));
  const stored: LowerLevel = {
    async get(cls) {
      if (opts.justCommitted) return undefined;
      const stamp = await titles();
      // Rows read ahead are of the current revision's variants ('' and the caller's class) in the language asked for.
      const ahead = opts.readAhead && atRevision === undefined && opts.readAhead.langid === row.langid ? opts.readAhead.rows : undefined;
      const found = await store.get(row.guideid, row.langid, cls === null ? [base] : [base, variantOf(cls)], revisionid, row.cache_stamp, stamp, now, ttl, ahead);
      return found && { bytes: found.bytes, lend: found.lend, gzip: found.gzip, forClass: found.variant !== base, etag: found.etag };
    },
    put(json, cls, builtAt, etag) {
      // Built after the stamp was read (the build asked for it): else nothing vouches for the titles it shows.
      if (opts.justCommitted || titlesStamp === undefined) return;
      store.put({ guideid: row.guideid, langid: row.langid, variant: cls === null ? base : variantOf(cls), revisionid, stamp: row.cache_stamp, builtAt, builtBy: store.builtBy, released: atRevision !== undefined, titlesStamp, body: json, etag });
    },
  };
  return cachedOrBuilt(guideCaches(app).guides, reply, user, key, revisionid, row.cache_stamp, async () => {
    const { record, ...rest } = await build(store.renderedTexts(now, ttl, await titles()));
    return { value: record, ...rest };
  }, stored);
}

/** Stored rows of a guide and the 'guide_titles' stamp, asked for before its head was read (`readAhead`). */
export interface ReadAhead { langid: string; rows: Promise<RecordRow[] | undefined>; titlesStamp: Promise<number | undefined> }

/**
 * PostgreSQL: the stored record of a guide this process keeps nothing of, and the
 * 'guide_titles' stamp it is checked against, asked for at once, beside its head, so that
 * a read that misses the process cache waits for one round trip instead of two or three in
 * a row (each shared by concurrent readers: db/shared-reads.ts).
 * Safe before the head (Store.rows). Undefined when the process keeps an entry under the
 * key (it will likely answer), on SQLite (a query does not wait there: it would only be
 * read earlier, and for nothing when the head refuses), or with the cache off. A failed
 * read resolves to undefined: the stored record is then read as usual.
 */
export function readAhead(app: FastifyInstance, guideid: number, langid: string, user: AuthUser | null): ReadAhead | undefined {
  if (app.config.guideCacheMb <= 0 || !isPostgres(app.db)) return undefined;
  if (keepsForCaller(guideCaches(app).guides, `${guideid}:${langid}`, user, app.clock.now())) return undefined;
  const cls = viewerClass(user);
  return {
    langid,
    rows: storedRecords(app).rows(guideid, langid, cls === null ? [''] : ['', cls]).catch(() => undefined),
    titlesStamp: cacheStamp(app.db, 'guide_titles').catch(() => undefined),
  };
}

/**
 * The steps of the current record this process keeps of a guide at (revisionid,
 * cache_stamp), kept for whichever viewer (steps show nothing that depends on who reads
 * them), and since when it is kept; undefined when it keeps none. The stamps vouch for
 * them as they vouch for a hit: an edit that changes no step (PATCH of the guide's fields)
 * takes them as they are instead of loading and building its steps again.
 */
export function keptSteps(app: FastifyInstance, row: Pick<GuideHead, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp'>): { steps: Buffer; keptSince: number } | undefined {
  if (app.config.guideCacheMb <= 0) return undefined;
  const entry = keptForAnyViewer(guideCaches(app).guides, `${row.guideid}:${row.langid}`, row.revisionid, row.cache_stamp, app.clock.now());
  // Their bytes, as they are (json-bytes.ts): parsed and serialized again they cost an edit
  // more than all its statements but two.
  const steps = entry && arrayBytes(entry.json, 'steps');
  return steps && { steps, keptSince: entry.at };
}

/**
 * The current record this process keeps of a guide at (revisionid, cache_stamp) for
 * anyone (it depends on no viewer), with its steps apart as `keptSteps` gives them (the
 * record's `steps` an empty stand-in: only the rest is parsed); undefined when it keeps
 * none. The stamps vouch for everything in it, as for a hit: an edit of only plain columns
 * (guides.records.ts, PLAIN_COLUMNS) lays the committed row's fields over it.
 */
export function keptRecord(app: FastifyInstance, row: Pick<GuideHead, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp'>): { record: FullGuide; steps: Buffer; keptSince: number } | undefined {
  if (app.config.guideCacheMb <= 0) return undefined;
  const entry = guideCaches(app).guides.peek(`${row.guideid}:${row.langid}`, row.revisionid, row.cache_stamp, app.clock.now());
  const steps = entry && arrayBytes(entry.json, 'steps');
  if (!steps) return undefined;
  const at = steps.byteOffset - entry.json.byteOffset;
  const rest = Buffer.concat([entry.json.subarray(0, at), EMPTY_ARRAY, entry.json.subarray(at + steps.length)]);
  return { record: JSON.parse(rest.toString()) as FullGuide, steps, keptSince: entry.at };
}
const EMPTY_ARRAY = Buffer.from('[]');

/**
 * What the last revision this process committed of each guide kept of its language besides
 * its row (steps, prerequisites: SnapshotParts), under the (revisionid, cache_stamp) it
 * committed: a later change that writes neither and locks the row at those stamps takes
 * them instead of reading them again. The stamps vouch for them as for a record: every
 * write of a step or a prerequisite makes a new revision of that language, and the
 * triggers that follow the rows a record shows bump cache_stamp. Bounded by count (a few
 * hundred bytes each), the oldest set dropped first.
 */
export const keptParts = perDatabase(() => new KeptParts(4096));

export class KeptParts {
  private readonly map = new Map<string, { revisionid: number; stamp: number; parts: SnapshotParts }>();
  constructor(private readonly max: number) {}

  get(row: Pick<GuideHead, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp'>): SnapshotParts | undefined {
    const kept = this.map.get(`${row.guideid}:${row.langid}`);
    return kept && kept.revisionid === row.revisionid && kept.stamp === row.cache_stamp ? kept.parts : undefined;
  }

  set(row: Pick<GuideHead, 'guideid' | 'langid' | 'revisionid' | 'cache_stamp'>, parts: SnapshotParts): void {
    const key = `${row.guideid}:${row.langid}`;
    this.map.delete(key);
    this.map.set(key, { revisionid: row.revisionid, stamp: row.cache_stamp, parts });
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/**
 * Answers a page of the guide list as `user` sees it from the cache when no guide
 * changed since it was built (the 'guides' stamp), else builds, serializes and keeps it.
 * `key` names the page (every query parameter that shapes it). A page kept under an older
 * stamp is kept on when `check` (given the kept page's check; what its build's `check` was:
 * guides.queries.ts, `pageCheckUnder`) reads the same now: an edit of a guide it does not
 * show changes nothing in it. Both are given the 'guide_reach' stamp, read with 'guides'
 * before them (guides.queries.ts, `pageCheckAgain`, says what it lets a check skip).
 */
export async function sendCachedList<T>(app: FastifyInstance, reply: FastifyReply, user: AuthUser | null, key: string, build: (reach: number) => Promise<{ records: T[]; dependsOnViewer: boolean; check: string }>, check: (kept: string, reach: number) => Promise<string>): Promise<T[] | FastifyReply> {
  if (app.config.guideCacheMb <= 0) return (await build(-1)).records;
  const [stamp, reach] = await cacheStamps(app.db, 'guides', 'guide_reach');
  const lists = guideCaches(app).lists;
  await renewedIfUnchanged(lists, reply, user, key, 0, stamp, (kept) => check(kept, reach), samePage);
  return cachedOrBuilt(lists, reply, user, key, 0, stamp, async () => {
    const { records, dependsOnViewer, check: built } = await build(reach);
    return { value: records, dependsOnViewer, check: built };
  });
}
