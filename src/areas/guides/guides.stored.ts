// Stored guide records: the serialized bytes of each guide's current full record, kept in
// the database (`guide_records`, migration 2026_11_25_0500) so that a read that misses the
// process cache (guides.cache.ts) is one primary-key read and no rendering, in every
// process and after a restart.
//
// The stored bytes are checked like the process cache's: valid while the guide's
// (revisionid, cache_stamp), read by the lookup every read does, are the ones they were
// built at (stamps read before what they vouch for), while the 'guide_titles' stamp is
// (what it shows of guides linked from its text: migration 2026_11_25_0510), while its
// media URLs keep enough life (`storedTtl`), and if built by a process configured alike
// (`builderOf`).
// Who may get which bytes is the process cache's rule too: variant '' is the same for
// every caller; a record that depends on the viewer is stored per viewer class, never
// for other users. Only the current revision (and what readers see under an approval
// process) is stored, one row each, overwritten in place.
//
// Rendered texts (`guide_rendered`): the HTML of each step's lines and of a guide's
// introduction and conclusion, keyed by what they are of and valid for the hash of the
// texts they were rendered from (and the titles stamp and `storedTtl`, like a record), so
// that a record rebuilt after a comment or a flag renders nothing that did not change.
//
// Storing never slows down or fails a GET: on SQLite a GET that wrote would take the write
// lock. Built records are queued and written shortly after in one small transaction per
// batch (and on close); an error is logged and forgotten (the record is rebuilt next
// time). A queued record whose guide moved on meanwhile is not written.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { GuideRecordTable } from './guides.tables.js';
import { plannedAsAnyArray, prepared } from '../../db/prepared.js';
import { sharedReads } from '../../db/shared-reads.js';
import { isPostgres } from '../../db/helpers.js';
import type { RenderedTexts } from './guides.records.js';
import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { signerId } from '../media/media.urls.js';
import { perDatabase } from '../shared/per-database.js';
import { DeferredWriter, lendUnpacked, packRecord, storedGzip, unpackRecord, type Lent } from '../shared/stored-bytes.js';

export { storedTtl, unpackRecord } from '../shared/stored-bytes.js';

/** One record to store: under (guideid, langid, variant), built at (revisionid, stamp). */
export interface StoredRecord {
  guideid: number;
  langid: string;
  variant: string;
  revisionid: number;
  stamp: number;
  builtAt: number;
  /** `builderOf` the process that built it. */
  builtBy: string;
  /** The released revision (approvals): then only the stamp is checked against the row. */
  released: boolean;
  /** The 'guide_titles' stamp read before it was built (titles of guides its text links to). */
  titlesStamp: number;
  body: Buffer;
  /** The body's ETag (http/conditional.ts), stored with it so that a read does not hash it. */
  etag: string;
}

/** Records written per transaction: short write locks. */
const BATCH = 50;

interface RenderedRow { key: string; hash: string; builtAt: number; builtBy: string; titlesStamp: number; html: string[] }

/** Of the texts a rendered fragment was made from. */
export const textsHash = (texts: string[]) => createHash('sha256').update(JSON.stringify(texts)).digest('base64url').slice(0, 22);

export type RecordRow = Pick<Selectable<GuideRecordTable>, 'guideid' | 'langid' | 'variant' | 'revisionid' | 'cache_stamp' | 'titles_stamp' | 'built_at' | 'built_by' | 'body' | 'etag' | 'size'>;
type RecordKey = { guideid: number; langid: string; a: string; b: string };
const RECORD_COLUMNS = ['guideid', 'langid', 'variant', 'revisionid', 'cache_stamp', 'titles_stamp', 'built_at', 'built_by', 'body', 'etag', 'size'] as const;

/** A guide's stored records of one or two variants: one prepared primary-key read (db/prepared.ts). */
const recordRows = prepared<RecordKey, RecordRow>('guide_records', (db, arg) =>
  db.selectFrom('guide_records').select(RECORD_COLUMNS)
    .where('guideid', '=', arg('guideid')).where('langid', '=', arg('langid')).where('variant', 'in', [arg('a'), arg('b')]));
/** PostgreSQL: the stored records that concurrent reads ask for, in one query (rows no one asked for are left out after). */
const recordRowsOfMany = prepared<{ guideids: number[]; langids: string[]; variants: string[] }, RecordRow>('guide_records_many', (db, arg) =>
  db.selectFrom('guide_records').select(RECORD_COLUMNS)
    .where(sql<boolean>`guideid = any(${plannedAsAnyArray(arg('guideids'), 'int')})`).where(sql<boolean>`langid = any(${plannedAsAnyArray(arg('langids'), 'text')})`).where(sql<boolean>`variant = any(${plannedAsAnyArray(arg('variants'), 'text')})`));
/**
 * PostgreSQL: a read that misses the process cache waits for its stored record's round
 * trip, the cold read's largest cost there; concurrent misses share one (db/shared-reads.ts),
 * as their heads do. SQLite reads each at once.
 */
const sharedRecordRows = sharedReads<RecordKey, RecordRow[]>((db, keys) => (keys.length === 1
  ? recordRows(db, keys[0])
  : recordRowsOfMany(db, { guideids: [...new Set(keys.map((k) => k.guideid))], langids: [...new Set(keys.map((k) => k.langid))], variants: [...new Set(keys.flatMap((k) => [k.a, k.b]))] })));
const readRecordRows = (db: Kysely<Database>, key: RecordKey) => (isPostgres(db) ? sharedRecordRows(db, key) : recordRows(db, key));

class Store {
  private queue = new Map<string, StoredRecord>();
  private rendered = new Map<string, RenderedRow>();
  renderedHits = 0;
  private readonly writer: DeferredWriter;
  hits = 0;
  misses = 0;
  written = 0;
  constructor(private readonly db: Kysely<Database>, log: FastifyBaseLogger, readonly builtBy: string) {
    this.writer = new DeferredWriter(log, 'stored guide records', () => this.drain());
  }

  /**
   * The valid stored bytes among `variants` (in that order of preference) of a guide in
   * a language, built at (revisionid, stamp) no more than `ttl` seconds before `now`:
   * one primary-key read. `bytes` inflates them, `lend` into a buffer lent for one answer;
   * `gzip` is them as stored, when a gzip member.
   */
  async get(guideid: number, langid: string, variants: string[], revisionid: number, stamp: number, titlesStamp: number, now: number, ttl: number, readEarlier?: Promise<RecordRow[] | undefined>): Promise<{ bytes: () => Buffer; lend: () => Lent | undefined; gzip: Buffer | undefined; variant: string; builtAt: number; etag: string | null } | undefined> {
    const rows = (readEarlier && await readEarlier) || await this.rows(guideid, langid, variants);
    for (const v of variants) {
      const r = rows.find((x) => x.variant === v && x.guideid === guideid && x.langid === langid);
      if (r && Number(r.revisionid) === revisionid && Number(r.cache_stamp) === stamp && Number(r.titles_stamp) === titlesStamp && now - Number(r.built_at) < ttl && r.built_by === this.builtBy) {
        this.hits++;
        const { body, size } = r;
        return { bytes: () => unpackRecord(body, size), lend: () => lendUnpacked(body, size), gzip: storedGzip(body), variant: v, builtAt: Number(r.built_at), etag: r.etag };
      }
    }
    this.misses++;
    return undefined;
  }

  /**
   * The stored rows of a guide in a language among `variants` (one or two), unchecked:
   * `get` checks them. Read before the guide's head too (`readAhead`): a row carries the
   * stamps it was built at, and stamps only grow, so a row read before the head that
   * matches the head's stamps was current when the head was read.
   */
  rows(guideid: number, langid: string, variants: string[]): Promise<RecordRow[]> {
    return readRecordRows(this.db, { guideid, langid, a: variants[0], b: variants[1] ?? variants[0] });
  }

  /** Queues a built record to be stored shortly. */
  put(rec: StoredRecord) {
    this.queue.set(`${rec.guideid}:${rec.langid}:${rec.variant}`, rec);
    this.schedule();
  }

  /**
   * Rendered texts for a build at `now` (guides.records.ts RenderedTexts): those stored
   * from the same texts under the same titles stamp, younger than `ttl`, by a process
   * configured alike; what is rendered anew is queued like records.
   */
  renderedTexts(now: number, ttl: number, titlesStamp: number): RenderedTexts {
    return {
      get: async (wanted) => {
        const out = new Map<string, { html: string[]; builtAt: number }>();
        if (wanted.length === 0) return out;
        const rows = await this.db.selectFrom('guide_rendered').selectAll().where('key', 'in', wanted.map((w) => w.key)).execute();
        const byKey = new Map(rows.map((r) => [r.key, r]));
        for (const w of wanted) {
          const r = byKey.get(w.key);
          if (!r || r.built_by !== this.builtBy || Number(r.titles_stamp) !== titlesStamp || now - Number(r.built_at) >= ttl || r.hash !== textsHash(w.texts)) continue;
          const html = JSON.parse(unpackRecord(r.body).toString()) as string[];
          if (Array.isArray(html) && html.length === w.texts.length) out.set(w.key, { html, builtAt: Number(r.built_at) });
        }
        this.renderedHits += out.size;
        return out;
      },
      put: (key, texts, html) => {
        this.rendered.set(key, { key, hash: textsHash(texts), builtAt: now, builtBy: this.builtBy, titlesStamp, html });
        this.schedule();
      },
    };
  }

  private schedule() {
    this.writer.schedule();
  }

  /** Writes what is queued (resolves when written or given up). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** What is queued, as one job per batch (one small transaction each). */
  private drain() {
    const pending = [...this.queue.values()];
    const rendered = [...this.rendered.values()];
    this.queue.clear();
    this.rendered.clear();
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < Math.max(pending.length, rendered.length); i += BATCH) {
      const records = pending.slice(i, i + BATCH);
      const texts = rendered.slice(i, i + BATCH);
      jobs.push(async () => {
        this.written += await writeRecords(this.db, records, texts);
      });
    }
    return jobs;
  }
}

/**
 * Writes rendered texts and records in one transaction, the records whose guide row
 * still has the stamps they were built at (a record overtaken by a write is of no use
 * to anyone); the number of records written.
 */
async function writeRecords(db: Kysely<Database>, records: StoredRecord[], rendered: RenderedRow[] = []): Promise<number> {
  if (records.length === 0 && rendered.length === 0) return 0;
  // Compressed before the transaction: on SQLite it holds the write lock.
  const renderedBodies = await Promise.all(rendered.map((r) => packRecord(Buffer.from(JSON.stringify(r.html)))));
  const recordBodies = await Promise.all(records.map((rec) => packRecord(rec.body)));
  return db.transaction().execute(async (trx) => {
    // Rendered texts are valid by what they were rendered from: nothing to check against the guide.
    for (const [i, r] of rendered.entries()) {
      const values = { hash: r.hash, built_at: r.builtAt, built_by: r.builtBy, titles_stamp: r.titlesStamp, body: renderedBodies[i] };
      await trx.insertInto('guide_rendered').values({ key: r.key, ...values }).onConflict((oc) => oc.column('key').doUpdateSet(values)).execute();
    }
    if (records.length === 0) return 0;
    const rows = await trx.selectFrom('guides').select(['guideid', 'langid', 'revisionid', 'cache_stamp'])
      .where('guideid', 'in', [...new Set(records.map((r) => r.guideid))]).execute();
    const current = new Map(rows.map((r) => [`${r.guideid}:${r.langid}`, r]));
    let n = 0;
    for (const [i, rec] of records.entries()) {
      const row = current.get(`${rec.guideid}:${rec.langid}`);
      if (!row || Number(row.cache_stamp) !== rec.stamp || (!rec.released && Number(row.revisionid) !== rec.revisionid)) continue;
      const values = { revisionid: rec.revisionid, cache_stamp: rec.stamp, titles_stamp: rec.titlesStamp, built_at: rec.builtAt, built_by: rec.builtBy, body: recordBodies[i], etag: rec.etag, size: rec.body.length };
      await trx.insertInto('guide_records').values({ guideid: rec.guideid, langid: rec.langid, variant: rec.variant, ...values })
        .onConflict((oc) => oc.columns(['guideid', 'langid', 'variant']).doUpdateSet(values)).execute();
      n++;
    }
    return n;
  });
}

/**
 * What a record takes of the configuration of the process that builds it: its URLs (the
 * public URL), the languages (which row of a prerequisite shows, which language a link
 * prefers), the signatures of its media URLs (the key, the window). A process configured
 * otherwise builds its own. Stored wiki records (wikis.cache.ts) are checked the same way.
 */
export function builderOf(config: Config): string {
  return createHash('sha256').update(JSON.stringify([signerId(config), config.publicUrl, config.languages, config.mediaUrlTtl])).digest('base64url').slice(0, 16);
}

/** The stored records of one app (its queue and counters), per database like the process caches. */
export const storedRecords = perDatabase((app): Store => new Store(app.db, app.log, builderOf(app.config)));

/** Called when the guides' routes are registered: what is queued is written when the app closes. */
export function registerStoredRecords(app: FastifyInstance) {
  const store = storedRecords(app);
  app.addHook('onClose', async () => store.flush());
}

/** Writes the records queued by `app` now (tests; the app does it on a timer and on close). */
export function flushStoredRecords(app: FastifyInstance): Promise<void> {
  return storedRecords(app).flush();
}
