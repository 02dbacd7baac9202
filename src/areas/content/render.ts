// Renders wiki texts of any area (wiki contents, comments, guide introductions and
// lines) with their embeds and internal links resolved: the texts' references are
// collected first and loaded with one query per kind (images, videos, guides) for the
// whole batch, never one per reference.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import {
  collectDocRefs, renderDoc, renderDocInline, wikiToDoc,
  type DocNode, type MarkupRefs, type MarkupResolver, type ResolvedGuide, type ResolvedImage, type ResolvedVideo,
} from '../../markup/index.js';
import { IMAGE_VARIANTS, imageVariantUrl, type ImageVariant } from '../media/image-object.js';
import { loadVideoDetails } from '../media/media-records.js';
import { guideUrl } from '../shared/guide-urls.js';

export interface RenderOptions {
  /** Render a single paragraph without its <p> (one-line fields such as step lines). */
  inline?: boolean;
  /** Prefer guides in this language for internal links (default: the site's default language). */
  langid?: string;
}

function mergeRefs(all: MarkupRefs[]): MarkupRefs {
  const images = new Set<number>();
  const videos = new Set<number>();
  const guides = new Set<number>();
  for (const r of all) {
    r.images.forEach((x) => images.add(x));
    r.videos.forEach((x) => videos.add(x));
    r.guides.forEach((x) => guides.add(x));
  }
  return { images: [...images], videos: [...videos], guides: [...guides] };
}

/**
 * A resolver for everything `refs` names: at most one query per kind. Internal links
 * resolve only to public guides that are not deleted (a private guide's title is not
 * shown in text others read; the link renders as a placeholder).
 */
export async function loadMarkupResolver(db: Kysely<Database>, config: Config, refs: MarkupRefs, langid?: string): Promise<MarkupResolver> {
  const lang = langid ?? config.languages[0];
  const [imageRows, videos, guideRows] = await Promise.all([
    refs.images.length
      ? db.selectFrom('images').select(['imageid', 'guid', 'width', 'height']).where('imageid', 'in', refs.images).execute()
      : Promise.resolve([]),
    refs.videos.length ? loadVideoDetails(db, config, refs.videos) : Promise.resolve(new Map<number, unknown>()),
    refs.guides.length
      ? db.selectFrom('guides').select(['guideid', 'langid', 'title'])
        .where('guideid', 'in', refs.guides).where('public', '=', 1).where('deleted', '=', 0)
        .orderBy('guideid').orderBy(sql`case when langid = ${lang} then 0 else 1 end`).orderBy('langid')
        .execute()
      : Promise.resolve([]),
  ]);
  const images = new Map(imageRows.map((r) => [r.imageid, r]));
  const guides = new Map<number, ResolvedGuide>();
  for (const g of guideRows) if (!guides.has(g.guideid)) guides.set(g.guideid, { url: guideUrl(config, g.guideid, g.title, g.langid), title: g.title });
  return {
    image(id, size): ResolvedImage | null {
      const r = images.get(id);
      if (!r) return null;
      const variant = ((IMAGE_VARIANTS as readonly string[]).includes(size) ? size : 'standard') as ImageVariant;
      return { src: imageVariantUrl(config, r.guid, variant) };
    },
    video(id): ResolvedVideo | null {
      const v = (videos as Map<number, any>).get(id);
      if (!v) return null;
      const encodings: Array<{ url?: string; mime?: string }> = Array.isArray(v.encodings) ? v.encodings : [];
      const sources = encodings.filter((e) => typeof e.url === 'string').map((e) => ({ src: e.url!, type: e.mime }));
      const poster = v.image?.image?.standard ?? v.image?.image?.original;
      return { src: sources[0]?.src ?? '', poster: typeof poster === 'string' ? poster : undefined, sources };
    },
    guide: (id) => guides.get(id) ?? null,
  };
}

/** Parses, resolves (batched) and renders already-parsed documents. */
export async function renderDocs(db: Kysely<Database>, config: Config, docs: DocNode[], options: RenderOptions = {}): Promise<string[]> {
  const resolver = await loadMarkupResolver(db, config, mergeRefs(docs.map(collectDocRefs)), options.langid);
  return docs.map((d) => (options.inline ? renderDocInline(d, resolver) : renderDoc(d, resolver)));
}

/** Renders wiki texts to HTML with one batched lookup per kind of reference. */
export async function renderWikiTexts(db: Kysely<Database>, config: Config, texts: string[], options: RenderOptions = {}): Promise<string[]> {
  return renderDocs(db, config, texts.map((t) => wikiToDoc(t ?? '')), options);
}
