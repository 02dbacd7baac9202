// The hits of suggestions (which documents, in which order), kept per query apart from the
// answer's bytes: an edit of a guide moves the 'guides' stamp, which the records in every
// kept answer follow, but changes no title; the records are loaded again (a few indexed
// lookups) and the search, the costly part, is not run again.
import type { FastifyInstance } from 'fastify';
import type { SearchAnswered, SearchHit } from '../../db/search.js';
import { cacheStamps } from '../shared/byte-cache.js';
import { perDatabase } from '../shared/per-database.js';

interface KeptHits {
  hits: SearchHit[];
  /** Answered from titles alone: valid while 'search_titles' holds; else while 'search' does. */
  fromTitles: boolean;
  stamp: number;
}

/** Queries kept (about 1 KB each): the prefixes a suggester is asked again and again. */
const MAX_KEPT = 4096;
const keptHits = perDatabase(() => new Map<string, KeptHits>());

/**
 * The hits `search` finds for `key` (the query and what it asks for), kept while the stamp
 * they rest on holds; the stamps are read before `search` runs, so a write committed during
 * it leaves them kept under a stamp already passed.
 */
export async function suggestionHits(app: FastifyInstance, key: string, search: (answered: SearchAnswered) => Promise<SearchHit[]>): Promise<{ hits: SearchHit[]; fromTitles: boolean }> {
  const answered: SearchAnswered = { fromTitles: false };
  if (app.config.guideCacheMb <= 0) return { hits: await search(answered), fromTitles: answered.fromTitles };
  const [titles, all] = await cacheStamps(app.db, 'search_titles', 'search');
  const cache = keptHits(app);
  const kept = cache.get(key);
  cache.delete(key);
  if (kept && kept.stamp === (kept.fromTitles ? titles : all)) {
    cache.set(key, kept); // most recently used last
    return kept;
  }
  const hits = await search(answered);
  cache.set(key, { hits, fromTitles: answered.fromTitles, stamp: answered.fromTitles ? titles : all });
  if (cache.size > MAX_KEPT) cache.delete(cache.keys().next().value!);
  return { hits, fromTitles: answered.fromTitles };
}
