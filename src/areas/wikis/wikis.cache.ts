// The read cache of wikis: `GET /wikis/{namespace}/{title}` (the current record, in the
// language asked for) answered from serialized bytes kept per process (a ByteLru, as for
// guides: shared/byte-cache.ts) and, on a miss there, from the bytes stored in the database
// (`wiki_records`, migration 2026_11_25_0600), before anything is built: a read that misses
// the process cache is the head lookup and one primary-key read, no rendering, in every
// process and after a restart. What is built is stored after the answer (DeferredWriter).
//
// Correct with several processes on one database: bytes are used only while what vouches
// for them is what it was when they were built, read by the head lookup before anything
// else (findWikiHead, one prepared query):
//  - the wiki's (revisionid, cache_stamp): triggers bump `wikis.cache_stamp` on every
//    change of what the record shows (its row, translations, tags, author, image, a USER
//    wiki's user, a TEAM wiki's team, the images and videos its texts embed: the migration
//    lists them);
//  - the 'guide_titles' stamp (titles of guides its texts link to), and for a CATEGORY the
//    'categories' stamp (its parent's and children's titles) and the 'guides' stamp (the
//    light records of its guides);
//  - the age of the signed media URLs it carries (`storedTtl`) and the configuration that
//    built it (`builderOf`), for stored bytes.
//
// The bytes kept and stored are the same for every caller: built for no caller
// (`can_edit` false). What depends on the caller, whether they may edit the wiki, is laid
// over at read time (canEditWiki, then the kept bytes with `"can_edit":true`, kept under
// their own key): one caller's view never reaches another.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { prepared } from '../../db/prepared.js';
import { ByteLru, keptOrBuilt, sendKept, type LowerLevel } from '../shared/byte-cache.js';
import { DeferredWriter, lendUnpacked, packRecord, storedGzip, storedTtl, unpackRecord, type Lent } from '../shared/stored-bytes.js';
import { builderOf } from '../guides/guides.stored.js';
import { canEditWiki } from './wikis.queries.js';
import type { WikiFull } from './wikis.schemas.js';
import { perDatabase } from '../shared/per-database.js';
import type { WikiRecordTable } from './wikis.tables.js';

/** What a read of a wiki looks up first: what vouches for its kept bytes. */
export interface WikiHead {
  wikiid: number;
  namespace: string;
  title: string;
  /** The source language. */
  langid: string;
  revisionid: number;
  cache_stamp: number;
  /** The language asked for when the wiki has a translation in it, else null. */
  translated: string | null;
  titles_stamp: number | null;
  categories_stamp: number | null;
  guides_stamp: number | null;
}

const stampOf = (key: string) => (db: Kysely<Database>) => db.selectFrom('cache_stamps').select('stamp').where('key', '=', key);
const headIn = prepared<{ namespace: string; title: string; langid: string }, WikiHead>('wiki_head', (db, arg) =>
  db.selectFrom('wikis').select(['wikiid', 'namespace', 'title', 'langid', 'revisionid', 'cache_stamp'])
    .select((eb) => eb.selectFrom('wiki_translations as t').select('t.langid').whereRef('t.wikiid', '=', 'wikis.wikiid').where('t.langid', '=', arg('langid')).as('translated'))
    .select(() => stampOf('guide_titles')(db).as('titles_stamp'))
    .select(() => stampOf('categories')(db).as('categories_stamp'))
    .select(() => stampOf('guides')(db).as('guides_stamp'))
    .where('namespace', '=', arg('namespace')).where('title', '=', arg('title')));

/** The wiki's head, with the stamps of `cache_stamps` its record depends on and whether it is translated into `langid`. */
export async function findWikiHead(db: Kysely<Database>, namespace: string, title: string, langid: string | undefined): Promise<WikiHead | undefined> {
  return (await headIn(db, { namespace, title, langid: langid ?? '' }))[0];
}

/** The language a reader asking for `langid` gets (wikis.queries.ts textsFor). */
export const languageOf = (head: WikiHead, langid: string | undefined) => (langid && langid !== head.langid && head.translated ? langid : head.langid);

/** The stamps of `cache_stamps` a wiki's record was built under. */
const stampsOf = (head: WikiHead) => {
  const titles = Number(head.titles_stamp ?? -1);
  return head.namespace === 'CATEGORY' ? `${titles}.${Number(head.categories_stamp ?? -1)}.${Number(head.guides_stamp ?? -1)}` : `${titles}`;
};

/** The process cache of wiki records of one app: GUIDE_CACHE_MB / 8 (12 MB by default; records of a seeded site are a few KB). */
export const wikiCache = perDatabase((app) => new ByteLru(Math.max(1, app.config.guideCacheMb / 8) * 2 ** 20, app.config.guideCacheTtl, 'wikis'));

const CANNOT_EDIT = Buffer.from('"can_edit":false');
const CAN_EDIT = Buffer.from('"can_edit":true');

/**
 * The record's bytes as a caller who may edit the wiki sees them: `can_edit` true. The
 * key appears once, unescaped, in a record's JSON (no other object of it has the field,
 * and a quote inside a string is escaped); undefined otherwise, and the record is built.
 */
export function editableBytes(json: Buffer): Buffer | undefined {
  const at = json.indexOf(CANNOT_EDIT);
  if (at < 0 || json.indexOf(CANNOT_EDIT, at + 1) >= 0) return undefined;
  return Buffer.concat([json.subarray(0, at), CAN_EDIT, json.subarray(at + CANNOT_EDIT.length)]);
}

/**
 * Answers the current record of the wiki in `head` in `langid` (languageOf) as `user`
 * sees it: from the process cache, else from the stored record, else built with
 * `build(null)` (for no caller), kept and stored; with `can_edit` laid over for a caller
 * who may edit it.
 */
export async function sendCachedWiki(app: FastifyInstance, reply: FastifyReply, head: WikiHead, langid: string, user: AuthUser | null, build: (caller: AuthUser | null) => Promise<WikiFull>): Promise<WikiFull | FastifyReply> {
  if (app.config.guideCacheMb <= 0) return build(user);
  const cache = wikiCache(app);
  const key = `${head.wikiid}:${langid}`;
  const stamps = stampsOf(head);
  const version = `${head.cache_stamp}/${stamps}`;
  const now = app.clock.now();
  const canEdit = await canEditWiki(app.db, user, head.namespace, head.title);
  if (canEdit) {
    const hit = cache.getEntry(`${key} editable`, head.revisionid, version, now);
    if (hit) return sendKept(reply, hit);
  }
  const store = wikiStore(app);
  const ttl = storedTtl(app.config);
  const stored: LowerLevel = {
    async get() {
      const found = await store.get(head.wikiid, langid, head.revisionid, head.cache_stamp, stamps, now, ttl);
      return found && { bytes: found.bytes, lend: found.lend, gzip: found.gzip, forClass: false, etag: found.etag };
    },
    put(json, _cls, builtAt, etag) {
      store.put({ wikiid: head.wikiid, langid, revisionid: head.revisionid, stamp: head.cache_stamp, stamps, builtAt, body: json, etag });
    },
  };
  const base = await keptOrBuilt(cache, reply, null, key, head.revisionid, version, async () => ({ value: await build(null), dependsOnViewer: false }), stored);
  if ('value' in base) return base.value;
  if (!canEdit) return sendKept(reply, base);
  const json = editableBytes(base.json);
  if (!json) return build(user);
  // Aged like the bytes it is made of (their media URLs were signed then).
  return sendKept(reply, cache.set(`${key} editable`, head.revisionid, version, base.at, json));
}

/** One record to store: of a wiki in a language, built at (revisionid, stamp) under `stamps`. */
interface StoredWiki { wikiid: number; langid: string; revisionid: number; stamp: number; stamps: string; builtAt: number; body: Buffer; etag: string }

const recordRow = prepared<{ wikiid: number; langid: string }, Pick<Selectable<WikiRecordTable>, 'revisionid' | 'cache_stamp' | 'stamps' | 'built_at' | 'built_by' | 'body' | 'etag' | 'size'>>('wiki_record', (db, arg) =>
  db.selectFrom('wiki_records').select(['revisionid', 'cache_stamp', 'stamps', 'built_at', 'built_by', 'body', 'etag', 'size'])
    .where('wikiid', '=', arg('wikiid')).where('langid', '=', arg('langid')));

/** Records written per transaction: short write locks. */
const BATCH = 50;

class WikiStore {
  private queue = new Map<string, StoredWiki>();
  private readonly writer: DeferredWriter;
  hits = 0;
  misses = 0;
  written = 0;
  constructor(private readonly db: Kysely<Database>, log: FastifyInstance['log'], readonly builtBy: string) {
    this.writer = new DeferredWriter(log, 'stored wiki records', () => this.drain());
  }

  /** The stored bytes (and their tag) of a wiki in a language if built at (revisionid, stamp) under `stamps`, less than `ttl` before `now`, by a process configured alike. */
  async get(wikiid: number, langid: string, revisionid: number, stamp: number, stamps: string, now: number, ttl: number): Promise<{ bytes: () => Buffer; lend: () => Lent | undefined; gzip: Buffer | undefined; etag: string | null } | undefined> {
    const [r] = await recordRow(this.db, { wikiid, langid });
    if (r && Number(r.revisionid) === revisionid && Number(r.cache_stamp) === stamp && r.stamps === stamps && now - Number(r.built_at) < ttl && r.built_by === this.builtBy) {
      this.hits++;
      const { body, size } = r;
      return { bytes: () => unpackRecord(body, size), lend: () => lendUnpacked(body, size), gzip: storedGzip(body), etag: r.etag };
    }
    this.misses++;
    return undefined;
  }

  put(rec: StoredWiki) {
    this.queue.set(`${rec.wikiid}:${rec.langid}`, rec);
    this.writer.schedule();
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  private drain() {
    const pending = [...this.queue.values()];
    this.queue.clear();
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < pending.length; i += BATCH) {
      const batch = pending.slice(i, i + BATCH);
      jobs.push(async () => {
        this.written += await writeWikiRecords(this.db, this.builtBy, batch);
      });
    }
    return jobs;
  }
}

/** Writes the records whose wiki still has the (revisionid, cache_stamp) they were built at, in one transaction; how many. */
async function writeWikiRecords(db: Kysely<Database>, builtBy: string, records: StoredWiki[]): Promise<number> {
  // Compressed before the transaction: on SQLite it holds the write lock.
  const bodies = await Promise.all(records.map((r) => packRecord(r.body)));
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('wikis').select(['wikiid', 'revisionid', 'cache_stamp']).where('wikiid', 'in', [...new Set(records.map((r) => r.wikiid))]).execute();
    const current = new Map(rows.map((r) => [r.wikiid, r]));
    let n = 0;
    for (const [i, rec] of records.entries()) {
      const row = current.get(rec.wikiid);
      if (!row || Number(row.revisionid) !== rec.revisionid || Number(row.cache_stamp) !== rec.stamp) continue;
      const values = { revisionid: rec.revisionid, cache_stamp: rec.stamp, stamps: rec.stamps, built_at: rec.builtAt, built_by: builtBy, body: bodies[i], etag: rec.etag, size: rec.body.length };
      await trx.insertInto('wiki_records').values({ wikiid: rec.wikiid, langid: rec.langid, ...values })
        .onConflict((oc) => oc.columns(['wikiid', 'langid']).doUpdateSet(values)).execute();
      n++;
    }
    return n;
  });
}

/** The stored wiki records of one app (its queue and counters). */
export const wikiStore = perDatabase((app): WikiStore => new WikiStore(app.db, app.log, builderOf(app.config)));

/** Called when the wikis' routes are registered: what is queued is written when the app closes. */
export function registerWikiRecords(app: FastifyInstance) {
  const store = wikiStore(app);
  app.addHook('onClose', async () => store.flush());
}

/** Writes the wiki records queued by `app` now (tests; the app does it on a timer and on close). */
export function flushWikiRecords(app: FastifyInstance): Promise<void> {
  return wikiStore(app).flush();
}
