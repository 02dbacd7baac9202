// GET /wikis/CATEGORY?display=hierarchy: the category tree and its display titles, built
// once per change and kept as bytes (a whole-site answer: building it reads every category).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { ByteLru, cacheStamps, sendKept, serializedBytes } from '../shared/byte-cache.js';
import { perDatabase } from '../shared/per-database.js';
import type { Database } from '../../db/schema.js';
import { toBool } from '../../db/helpers.js';
import type { Translator } from './translator.js';
import { categoriesWithPublicGuides } from './category-guides.js';

export interface HierarchyOptions {
  requireGuides: boolean;
  includeStubs: boolean;
  langid?: string;
  machineTranslateLangid?: string;
}

type Tree = { [title: string]: Tree | null };

/**
 * Categories that pass the filters (not a stub unless includeStubs; holding public
 * guides when requireGuides), with every ancestor they need to be reached. Display
 * titles: the translation in `langid` where one exists, else (with
 * machineTranslateLangid) the source display title machine-translated, else the
 * source display title.
 */
export async function categoryHierarchy(db: Kysely<Database>, translator: Translator, options: HierarchyOptions) {
  const rows = await db.selectFrom('wikis').select(['wikiid', 'title', 'display_title', 'parentid', 'stub', 'langid'])
    .where('namespace', '=', 'CATEGORY').orderBy('title').execute();
  const byId = new Map(rows.map((r) => [r.wikiid, r]));
  const withGuides = options.requireGuides ? await categoriesWithPublicGuides(db) : null;
  const keep = new Set<number>();
  for (const r of rows) {
    if (!options.includeStubs && toBool(r.stub)) continue;
    if (withGuides && !withGuides.has(r.title)) continue;
    let cur: typeof r | undefined = r;
    while (cur && !keep.has(cur.wikiid)) {
      keep.add(cur.wikiid);
      cur = cur.parentid !== null ? byId.get(cur.parentid) : undefined;
    }
  }
  const kept = rows.filter((r) => keep.has(r.wikiid));
  const children = new Map<number | null, typeof kept>();
  for (const r of kept) {
    const parent = r.parentid !== null && keep.has(r.parentid) ? r.parentid : null;
    const list = children.get(parent) ?? [];
    list.push(r);
    children.set(parent, list);
  }
  // Keyed by titles: objects without a prototype, so that `__proto__` is a title like any other.
  const build = (parent: number | null, depth: number): Tree => {
    const out: Tree = Object.create(null);
    for (const r of children.get(parent) ?? []) {
      out[r.title] = children.has(r.wikiid) && depth < 100 ? build(r.wikiid, depth + 1) : null;
    }
    return out;
  };

  const display = new Map(kept.map((r) => [r.wikiid, r.display_title || r.title]));
  const humanLang = options.langid ?? options.machineTranslateLangid;
  const translated = new Set<number>();
  if (humanLang && kept.length) {
    for (let i = 0; i < kept.length; i += 500) {
      const ids = kept.slice(i, i + 500).map((r) => r.wikiid);
      const trs = await db.selectFrom('wiki_translations').select(['wikiid', 'display_title']).where('langid', '=', humanLang).where('wikiid', 'in', ids).execute();
      for (const t of trs) {
        display.set(t.wikiid, t.display_title);
        translated.add(t.wikiid);
      }
    }
    for (const r of kept) if (r.langid === humanLang) translated.add(r.wikiid);
  }
  const mt = options.machineTranslateLangid;
  if (mt) {
    // One call per source language, for the titles with no human translation.
    const bySource = new Map<string, number[]>();
    for (const r of kept) {
      if (translated.has(r.wikiid) || r.langid === mt) continue;
      const list = bySource.get(r.langid) ?? [];
      list.push(r.wikiid);
      bySource.set(r.langid, list);
    }
    for (const [source, ids] of bySource) {
      const out = await translator.translate(ids.map((id) => display.get(id)!), source, mt);
      ids.forEach((id, i) => display.set(id, out[i]));
    }
  }
  const display_titles: Record<string, string> = Object.create(null);
  for (const r of kept) display_titles[r.title] = display.get(r.wikiid)!;
  return { hierarchy: build(null, 0), display_titles };
}

const HIERARCHY_CACHE_BYTES = 8 * 2 ** 20;
const hierarchyCache = perDatabase((app) => new ByteLru(HIERARCHY_CACHE_BYTES, app.config.guideCacheTtl, 'hierarchy'));

/**
 * The hierarchy for these options, from bytes kept per process while the database's stamps
 * say they hold: 'categories' (any write of a category or a translation, by triggers:
 * migration 2026_11_24_1400) and, with requireGuides, 'guides' (any guide row). One
 * primary-key read per request. Machine-translated titles are not kept: a translation
 * that failed today (source text) may succeed tomorrow, with no stamp to say so.
 */
export async function sendHierarchy<T>(app: FastifyInstance, reply: FastifyReply, options: HierarchyOptions, build: () => Promise<T>): Promise<T> {
  if (app.config.guideCacheMb <= 0 || options.machineTranslateLangid) return build();
  const cache = hierarchyCache(app);
  const [categories, guidesStamp] = await cacheStamps(app.db, 'categories', 'guides');
  const guides = options.requireGuides ? guidesStamp : 0;
  const key = `${options.requireGuides ? 1 : 0}${options.includeStubs ? 1 : 0}:${options.langid ?? ''}`;
  const now = app.clock.now();
  // Built after the stamps were read: a write in between leaves newer bytes under an older stamp, never the reverse.
  const entry = cache.getEntry(key, categories, guides, now)
    ?? cache.set(key, categories, guides, now, serializedBytes(reply, await build()));
  // The reply is sent here; Fastify ignores the handler's value once it is.
  return sendKept(reply, entry) as unknown as T;
}
