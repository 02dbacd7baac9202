// Wiki syntax -> safe HTML, -> document tree (contents_json), and the tree -> wiki syntax.
// No HTTP and no database here: embeds and internal links are resolved through a
// resolver the caller builds from what `collectRefs` says the text refers to, so a whole
// page of texts is resolved with one batched query per kind (src/areas/content/render.ts).
// `wikiToDoc` and `docToWiki` are the stable names of the two directions; the work of
// every function here is linear in its input, counted by `countSteps` (steps.ts).
//
// The syntax (docs/wiki-syntax.md has every construct, its HTML and its tree):
//   '''bold'''  ''italic''  ++underline++  ,,sub,,  ^^sup^^  ``code``  ~~strike~~
//   [https://example.com|text]  [https://example.com|text|new_window=true]  (http, https,
//   mailto and site-relative /paths only; anything else stays text)
//   [guide|123]  [guide|123|text]  [link|/Wiki/Page|text]  internal links
//   == Heading == to ====== Heading ======  (levels 2 to 6)
//   * bullets, # numbered; the number of markers is the depth, the last one the type
//   [br] (with the newline after it)  [code]...[/code]  [quote|attribution|format=x]...[/quote]
//   [image|ID|align=left|size=medium]  [video|ID]
//   Paragraphs are separated by blank lines; a single newline is a line break.
//   A backslash makes the next syntax character literal: \[  \'  \*  ...
//
// The tree uses the node and mark names of the platform's editor: doc, paragraph, text,
// hard_break, heading{level}, code_block, blockquote{format, attribute (a paragraph)},
// image{imageid, src, size, align}, video{videoid}, internal_link{kind, target, text,
// new_window}, ordered_list{order}, bullet_list, list_item; marks em, strong, underline,
// subscript, superscript, code, strikethrough, link{href, title, target}.
import type { DocNode, MarkupRefs, MarkupResolver } from './types.js';
import { nullResolver } from './types.js';
import { parseBlocks } from './parse.js';
import { serializeBlocks, toId } from './serialize.js';
import { renderBlocks, renderInline } from './html.js';
import { normalizeDoc } from './normalize.js';

export { normalizeDoc } from './normalize.js';

export type { DocMark, DocNode, MarkupRefs, MarkupResolver, ResolvedGuide, ResolvedImage, ResolvedVideo } from './types.js';
export { nullResolver, IMAGE_SIZES, IMAGE_ALIGNS } from './types.js';
export { escapeHtml, escapeOut } from './escape.js';
export { safeHref } from './urls.js';
export { sanitizeHtml, RENDERED_HTML } from './sanitize.js';
export { countSteps, stepsTaken, StepBudgetExceeded } from './steps.js';
export { plainText } from './plain.js';

/** Wiki text -> document tree. With a resolver, image nodes get their `src`. */
export function wikiToDoc(text: string, resolver?: MarkupResolver): DocNode {
  const content = parseBlocks(text ?? '');
  const doc: DocNode = { type: 'doc', content: content.length ? content : [{ type: 'paragraph' }] };
  if (resolver) {
    walk(doc, (n) => {
      if (n.type === 'image' && n.attrs) {
        const id = toId(n.attrs.imageid);
        n.attrs.src = id === null ? null : resolver.image(id, typeof n.attrs.size === 'string' ? n.attrs.size : 'standard')?.src ?? null;
      }
    });
  }
  return doc;
}

/** Document tree -> wiki text; `wikiToDoc(docToWiki(d))` gives the same tree back. */
export function docToWiki(input: DocNode): string {
  const doc = normalizeDoc(input);
  return serializeBlocks(doc.type === 'doc' ? doc.content ?? [] : [doc]);
}

/** A document with nothing in it (as an empty text parses): renders as ''. */
function isEmptyDoc(doc: DocNode): boolean {
  const c = doc.content ?? [];
  return doc.type === 'doc' && (c.length === 0 || (c.length === 1 && c[0].type === 'paragraph' && !(c[0].content ?? []).length));
}

/** Document tree -> HTML. */
export function renderDoc(input: DocNode, resolver: MarkupResolver = nullResolver): string {
  const doc = normalizeDoc(input);
  if (isEmptyDoc(doc)) return '';
  return renderBlocks(doc.type === 'doc' ? doc.content ?? [] : [doc], resolver);
}

/** Wiki text -> HTML. */
export function renderWiki(text: string, resolver: MarkupResolver = nullResolver): string {
  return renderDoc(wikiToDoc(text), resolver);
}

/**
 * Wiki text -> HTML for a one-line field (a step line): a single paragraph is rendered
 * without its <p>; anything else as blocks.
 */
export function renderWikiInline(text: string, resolver: MarkupResolver = nullResolver): string {
  return renderDocInline(wikiToDoc(text), resolver);
}

export function renderDocInline(input: DocNode, resolver: MarkupResolver = nullResolver): string {
  const doc = normalizeDoc(input);
  const blocks = doc.content ?? [];
  if (blocks.length === 1 && blocks[0].type === 'paragraph') return renderInline(blocks[0].content ?? [], resolver);
  return renderDoc(doc, resolver);
}

function walk(node: DocNode, fn: (n: DocNode) => void, depth = 0) {
  if (depth > 200) return;
  fn(node);
  for (const c of node.content ?? []) walk(c, fn, depth + 1);
}

/** What a tree refers to, each id once. */
export function collectDocRefs(input: DocNode): MarkupRefs {
  const doc = normalizeDoc(input);
  const images = new Set<number>();
  const videos = new Set<number>();
  const guides = new Set<number>();
  walk(doc, (n) => {
    const a = n.attrs ?? {};
    if (n.type === 'image') {
      const id = toId(a.imageid);
      if (id !== null) images.add(id);
    } else if (n.type === 'video') {
      const id = toId(a.videoid);
      if (id !== null) videos.add(id);
    } else if (n.type === 'internal_link' && a.kind === 'guide') {
      const id = toId(a.target);
      if (id !== null) guides.add(id);
    }
  });
  return { images: [...images], videos: [...videos], guides: [...guides] };
}

/** What a wiki text refers to: image and video embeds and internal guide links. */
export function collectRefs(text: string): MarkupRefs {
  return collectDocRefs(wikiToDoc(text));
}
