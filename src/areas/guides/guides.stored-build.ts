// Building stored guide records ahead of reads (guides.stored.ts): every public guide
// whose record is missing, stale, expired, built by a process configured otherwise or
// stored without its tag (before migration 2026_11_26_1300) is
// read once, anonymously, through the app itself (GET /guides/{id}), so what is stored is exactly what that read stores (the same
// bytes, variant and rules), in batches, with progress. Used after seeding a site
// (bench/seed.ts) so that its first reads are primary-key reads; private guides are built
// by their first read.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { guideCaches } from './guides.cache.js';
import { flushStoredRecords, storedRecords, storedTtl } from './guides.stored.js';

/** The variants an anonymous read stores (guides.cache.ts). */
const ANONYMOUS_VARIANTS = ['', 'anonymous', 'released', 'released anonymous'];

/**
 * `concurrency`: reads in flight at once (on PostgreSQL a build is some fifteen round trips,
 * so one read at a time mostly waits; SQLite's one connection gains little from more).
 * `part`: only the guides whose id is `index` modulo `of`, so that `of` processes can share
 * the work (a build is JavaScript: one process keeps one core busy).
 */
export async function storeAllGuideRecords(app: FastifyInstance, opts: { basePath: string; batch?: number; concurrency?: number; part?: { index: number; of: number }; log?: (line: string) => void; progress?: (done: { read: number; stored: number }) => void }): Promise<{ read: number; stored: number }> {
  const batch = opts.batch ?? 200;
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const { db } = app;
  const store = storedRecords(app);
  const cache = guideCaches(app).guides;
  // Records that serve at least one more cache TTL count as built (storedTtl: how long they serve).
  const fresh = app.clock.now() - storedTtl(app.config) + app.config.guideCacheTtl;
  const started = Date.now();
  const before = store.written;
  let read = 0;
  let after = { guideid: 0, langid: '' };
  const part = opts.part;
  if (part && !(Number.isInteger(part.of) && part.of >= 1 && Number.isInteger(part.index) && part.index >= 0 && part.index < part.of)) throw new Error(`part ${part.index} of ${part.of}: an index from 0 to of - 1`);
  for (;;) {
    let guides = db.selectFrom('guides as g').select(['g.guideid', 'g.langid']);
    if (part && part.of > 1) guides = guides.where(sql<number>`g.guideid % ${sql.lit(part.of)}`, '=', part.index);
    const rows = await guides
      .where('g.public', '=', 1).where('g.deleted', '=', 0).where((eb) => eb.or([eb('g.guideid', '>', after.guideid), eb.and([eb('g.guideid', '=', after.guideid), eb('g.langid', '>', after.langid)])]))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('guide_records as r').select(sql.lit(1).as('one'))
        .whereRef('r.guideid', '=', 'g.guideid').whereRef('r.langid', '=', 'g.langid').where('r.variant', 'in', ANONYMOUS_VARIANTS)
        .whereRef('r.cache_stamp', '=', 'g.cache_stamp').where('r.built_at', '>', fresh).where('r.built_by', '=', store.builtBy).where('r.etag', 'is not', null)
        .where((eb) => eb.or([eb('r.revisionid', '=', eb.ref('g.revisionid')), eb('r.variant', 'like', 'released%')])))))
      .orderBy('g.guideid').orderBy('g.langid').limit(batch).execute();
    if (rows.length === 0) break;
    // None of their anonymous variants is fresh: what is stored of them goes, so that the
    // reads below build (a row stored without its tag would still serve them).
    for (const langid of new Set(rows.map((r) => r.langid))) {
      const guideids = rows.filter((r) => r.langid === langid).map((r) => r.guideid);
      await db.deleteFrom('guide_records').where('langid', '=', langid).where('guideid', 'in', guideids).where('variant', 'in', ANONYMOUS_VARIANTS).execute();
    }
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < rows.length) {
        const r = rows[next++];
        // Built, not answered from this process's cache, so that it is stored.
        cache.delete(`${r.guideid}:${r.langid}`);
        cache.delete(`${r.guideid}:${r.langid} for anonymous`);
        await app.inject({ method: 'GET', url: `${opts.basePath}/guides/${r.guideid}?langid=${encodeURIComponent(r.langid)}` });
        read++;
      }
    }));
    await flushStoredRecords(app);
    after = rows[rows.length - 1];
    opts.log?.(`stored guide records: ${read} guides read, ${store.written - before} stored, ${((Date.now() - started) / 1000).toFixed(1)} s`);
    opts.progress?.({ read, stored: store.written - before });
    if (rows.length < batch) break;
  }
  return { read, stored: store.written - before };
}
