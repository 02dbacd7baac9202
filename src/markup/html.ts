// Document tree -> HTML. Every text and attribute value is escaped; link targets are
// checked again here (a tree may come from a client, not from our parser); embeds and
// internal links are resolved through the caller's resolver. Only a fixed set of
// elements and attributes is ever written: no input can produce a script, an event
// handler or a javascript: URL.
import type { DocMark, DocNode, MarkupResolver, ToggleMark } from './types.js';
import { IMAGE_ALIGNS, IMAGE_SIZES, isToggleMark, markRank, TOGGLE_MARKS, nullResolver } from './types.js';
import { escapeOut } from './escape.js';
import { safeHref, safeSrc } from './urls.js';
import { sameAttrs } from './inline.js';
import { toId } from './serialize.js';
import { DEFAULT_QUOTE_FORMAT } from './parse.js';
import { step } from './steps.js';

const MAX_DEPTH = 64;
const INLINE = new Set(['text', 'hard_break', 'image', 'video', 'internal_link']);

function relFor(href: string, blank: boolean, internal = false): string {
  const external = !internal && /^https?:/i.test(href);
  if (blank) return external ? ' target="_blank" rel="nofollow noopener noreferrer"' : ' target="_blank" rel="noopener"';
  return external ? ' rel="nofollow"' : '';
}

/** The marks of a node that render, in canonical order. */
function renderableMarks(node: DocNode): DocMark[] {
  const out: DocMark[] = [];
  for (const m of node.marks ?? []) {
    if (m.type === 'link') {
      if (typeof m.attrs?.href !== 'string' || safeHref(m.attrs.href) === null) continue;
    } else if (!isToggleMark(m.type) && m.type !== 'code') continue;
    if (m.type === 'code' && node.type !== 'text') continue;
    if (!out.some((o) => o.type === m.type)) out.push(m);
  }
  return out.sort((a, b) => markRank(a.type) - markRank(b.type));
}

function openMark(m: DocMark): string {
  if (m.type === 'link') {
    const href = safeHref(String(m.attrs!.href))!;
    const title = typeof m.attrs?.title === 'string' && m.attrs.title ? ` title="${escapeOut(m.attrs.title)}"` : '';
    return `<a href="${escapeOut(href)}"${title}${relFor(href, m.attrs?.target === '_blank')}>`;
  }
  if (m.type === 'code') return '<code>';
  return `<${TOGGLE_MARKS[m.type as ToggleMark].tag}>`;
}

function closeMark(m: DocMark): string {
  if (m.type === 'link') return '</a>';
  if (m.type === 'code') return '</code>';
  return `</${TOGGLE_MARKS[m.type as ToggleMark].tag}>`;
}

const sameMark = (a: DocMark, b: DocMark) => a.type === b.type && sameAttrs(a.attrs, b.attrs);

function renderImage(attrs: Record<string, unknown>, r: MarkupResolver): string {
  const id = toId(attrs.imageid);
  if (id === null) return '';
  const size = (IMAGE_SIZES as readonly unknown[]).includes(attrs.size) ? String(attrs.size) : null;
  const align = (IMAGE_ALIGNS as readonly unknown[]).includes(attrs.align) ? String(attrs.align) : null;
  const classes = ['wiki-image', align ? `align-${align}` : '', size ? `size-${size}` : ''].filter(Boolean).join(' ');
  const res = r.image(id, size ?? 'standard');
  const src = safeSrc(res?.src);
  if (!src) return `<span class="${classes} missing" data-imageid="${id}">Image ${id}</span>`;
  const dims = (Number.isInteger(res?.width) && res!.width! > 0 ? ` width="${res!.width}"` : '') + (Number.isInteger(res?.height) && res!.height! > 0 ? ` height="${res!.height}"` : '');
  return `<img src="${escapeOut(src)}" alt="" class="${classes}" data-imageid="${id}"${dims} loading="lazy">`;
}

function renderVideo(attrs: Record<string, unknown>, r: MarkupResolver): string {
  const id = toId(attrs.videoid);
  if (id === null) return '';
  const res = r.video(id);
  const sources = (res?.sources ?? []).map((s) => ({ src: safeSrc(s.src), type: s.type })).filter((s) => s.src);
  const src = safeSrc(res?.src);
  if (!src && sources.length === 0) return `<span class="wiki-video missing" data-videoid="${id}">Video ${id}</span>`;
  const poster = safeSrc(res?.poster);
  const posterAttr = poster ? ` poster="${escapeOut(poster)}"` : '';
  const inner = sources.map((s) => `<source src="${escapeOut(s.src!)}"${s.type && /^[\w.+-]+\/[\w.+-]+$/.test(s.type) ? ` type="${escapeOut(s.type)}"` : ''}>`).join('');
  const srcAttr = sources.length === 0 && src ? ` src="${escapeOut(src)}"` : '';
  return `<video class="wiki-video" controls preload="metadata" data-videoid="${id}"${srcAttr}${posterAttr}>${inner}</video>`;
}

function renderInternalLink(attrs: Record<string, unknown>, r: MarkupResolver): string {
  const label = typeof attrs.text === 'string' && attrs.text.trim() ? attrs.text.trim() : null;
  const blank = attrs.new_window === true;
  if (attrs.kind === 'guide') {
    const id = toId(attrs.target);
    if (id === null) return label ? escapeOut(label) : '';
    const g = r.guide(id);
    const href = g ? safeHref(g.url) : null;
    const text = escapeOut(label ?? g?.title ?? `Guide ${id}`);
    if (!href) return `<span class="guide-link missing" data-guideid="${id}">${text}</span>`;
    return `<a href="${escapeOut(href)}" class="guide-link" data-guideid="${id}"${relFor(href, blank, true)}>${text}</a>`;
  }
  const href = typeof attrs.target === 'string' ? safeHref(attrs.target) : null;
  if (!href) return label ? escapeOut(label) : '';
  return `<a href="${escapeOut(href)}" class="wiki-link"${relFor(href, blank)}>${escapeOut(label ?? href)}</a>`;
}

function renderInlineNode(node: DocNode, r: MarkupResolver): string {
  step(1 + (node.text?.length ?? 0));
  switch (node.type) {
    case 'text': return escapeOut(node.text ?? '');
    case 'hard_break': return '<br>';
    case 'image': return renderImage(node.attrs ?? {}, r);
    case 'video': return renderVideo(node.attrs ?? {}, r);
    case 'internal_link': return renderInternalLink(node.attrs ?? {}, r);
    default: return node.content ? renderInline(node.content, r, 1) : escapeOut(node.text ?? '');
  }
}

/** Inline nodes: marks opened and closed as a stack, shared prefixes kept open. */
export function renderInline(nodes: DocNode[], r: MarkupResolver, depth = 0): string {
  if (depth > MAX_DEPTH) return '';
  let html = '';
  const stack: DocMark[] = [];
  for (const node of nodes) {
    step(1 + (node.marks?.length ?? 0));
    const marks = node.type === 'text' || node.type === 'image' ? renderableMarks(node) : [];
    let keep = 0;
    while (keep < stack.length && keep < marks.length && sameMark(stack[keep], marks[keep])) keep++;
    while (stack.length > keep) html += closeMark(stack.pop()!);
    for (let i = keep; i < marks.length; i++) {
      html += openMark(marks[i]);
      stack.push(marks[i]);
    }
    html += renderInlineNode(node, r);
  }
  while (stack.length) html += closeMark(stack.pop()!);
  return html;
}

function textOf(node: DocNode): string {
  step(1 + (node.text?.length ?? 0));
  if (node.type === 'text') return node.text ?? '';
  return (node.content ?? []).map(textOf).join('');
}

function renderListItem(item: DocNode, r: MarkupResolver, depth: number): string {
  const kids = item.type === 'list_item' ? item.content ?? [] : [item];
  const [first, ...rest] = kids;
  // a tight list: the item's first paragraph is not wrapped in <p>
  const head = first && first.type === 'paragraph' ? renderInline(first.content ?? [], r, depth) : first ? renderBlocks([first], r, depth) : '';
  return `<li>${head}${renderBlocks(rest, r, depth)}</li>`;
}

/** A quote's attribution: a paragraph node (with its marks), or a plain string from older trees. */
function renderAttribution(value: unknown, r: MarkupResolver, depth: number): string {
  if (typeof value === 'string') return value.trim() ? escapeOut(value.trim()) : '';
  if (typeof value !== 'object' || value === null) return '';
  const node = value as DocNode;
  return renderInline(node.content ?? (node.type === 'text' ? [node] : []), r, depth + 1);
}

function renderBlock(node: DocNode, r: MarkupResolver, depth: number): string {
  step();
  switch (node.type) {
    case 'paragraph':
      return `<p>${renderInline(node.content ?? [], r, depth)}</p>`;
    case 'heading': {
      const raw = Number(node.attrs?.level);
      const level = Number.isInteger(raw) ? Math.min(6, Math.max(2, raw)) : 2;
      return `<h${level}>${renderInline(node.content ?? [], r, depth)}</h${level}>`;
    }
    case 'code_block':
      return `<pre><code>${escapeOut(textOf(node))}</code></pre>`;
    case 'blockquote': {
      const raw = node.attrs?.format;
      const format = typeof raw === 'string' && raw !== DEFAULT_QUOTE_FORMAT && /^[\w-]{1,40}$/.test(raw) ? ` class="format-${raw}"` : '';
      const cite = renderAttribution(node.attrs?.attribute, r, depth);
      const attribution = cite ? `<footer><cite>${cite}</cite></footer>` : '';
      return `<blockquote${format}>${renderBlocks(node.content ?? [], r, depth)}${attribution}</blockquote>`;
    }
    case 'bullet_list':
      return `<ul>${(node.content ?? []).map((i) => renderListItem(i, r, depth)).join('')}</ul>`;
    case 'ordered_list': {
      const order = Number(node.attrs?.order);
      const start = Number.isInteger(order) && order !== 1 && Math.abs(order) < 1e9 ? ` start="${order}"` : '';
      return `<ol${start}>${(node.content ?? []).map((i) => renderListItem(i, r, depth)).join('')}</ol>`;
    }
    default:
      return renderBlocks(node.content ?? [], r, depth);
  }
}

/** Blocks; inline nodes found at block level are gathered into paragraphs. */
export function renderBlocks(nodes: DocNode[], r: MarkupResolver = nullResolver, depth = 0): string {
  if (depth > MAX_DEPTH) return '';
  let html = '';
  let run: DocNode[] = [];
  const flush = () => {
    if (run.length) html += `<p>${renderInline(run, r, depth + 1)}</p>`;
    run = [];
  };
  for (const n of nodes) {
    step();
    if (INLINE.has(n.type)) {
      run.push(n);
      continue;
    }
    flush();
    html += renderBlock(n, r, depth + 1);
  }
  flush();
  return html;
}
