// Document tree -> wiki syntax, as the platform's editor writes it: marks become
// delimiters properly nested around the text that carries them (the last opened closes
// first; the parser reads the apostrophe runs this gives back to the same marks), a hard
// break in a paragraph is `[br]` and a newline, paragraphs are trimmed, list items have as
// many markers as their depth, a quote's attribution is written from its paragraph node
// (no `|format=long`, never `null`). Text is escaped with a backslash exactly where it
// would otherwise read as syntax. The output parses back to the same tree.
//
// What the syntax cannot say is normalized: a list item's second paragraph joins its
// first with [br][br], other blocks inside list items become text, empty paragraphs and
// headings are dropped, heading levels are clamped to 2..6, ordered lists start at 1.
import type { DocMark, DocNode, ToggleMark } from './types.js';
import { IMAGE_ALIGNS, IMAGE_SIZES, isToggleMark, TOGGLE_MARKS } from './types.js';
import { DELIM_CHARS, ESCAPABLE, sameAttrs, trimInline } from './inline.js';
import { safeHref } from './urls.js';
import { DEFAULT_QUOTE_FORMAT, MAX_LIST_DEPTH } from './parse.js';
import { step } from './steps.js';

type Piece =
  | { k: 'text'; v: string; inLink: boolean }
  | { k: 'raw'; v: string; newline?: boolean }
  | { k: 'code'; v: string };

const TOGGLES = Object.keys(TOGGLE_MARKS) as ToggleMark[];
const bs = (n: number) => '\\'.repeat(n);

/** Escapes a tag argument: `must` characters always, backslash runs where they would escape. */
function escapePart(v: string, must: Set<string>): string {
  let out = '';
  let run = 0;
  step(v.length);
  for (const c of v) {
    if (c === '\\') {
      run++;
      continue;
    }
    if (must.has(c)) out += bs(2 * run + 1) + c;
    else if (ESCAPABLE.has(c)) out += bs(2 * run) + c;
    else out += bs(run) + c;
    run = 0;
  }
  // a tag argument is always followed by `|` or `]`
  return out + bs(2 * run);
}

const TEXT_PART = new Set(['[', ']', '|', '=', '`']);
const URL_PART = new Set(['[', ']', '|']);

function escapeCodeSpan(v: string): string {
  let out = '';
  let run = 0;
  step(v.length);
  for (const c of v.replace(/\r\n?|\n/g, ' ')) {
    if (c === '\\') {
      run++;
      continue;
    }
    out += c === '`' ? bs(2 * run + 1) + c : bs(run) + c;
    run = 0;
  }
  return out + bs(2 * run);
}

/** A code block's text: `[/code]` inside it is escaped (with the backslashes before it doubled). */
function escapeCodeBlock(v: string): string {
  const closesAt = (i: number) => v.slice(i, i + 7).toLowerCase() === '[/code]';
  step(8 * v.length);
  let out = '';
  let i = 0;
  while (i < v.length) {
    let n = 0;
    while (v[i + n] === '\\') n++;
    if (closesAt(i + n)) {
      out += bs(2 * n + 1) + v.slice(i + n, i + n + 7);
      i += n + 7;
    } else if (n > 0) {
      out += bs(n);
      i += n;
    } else out += v[i++];
  }
  return out;
}

function escapeText(v: string, prev: string, next: string, inLink: boolean, lineStart: boolean): string {
  let out = '';
  let run = 0;
  step(v.length);
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '\\') {
      run++;
      continue;
    }
    const before = i > 0 ? v[i - 1] : prev;
    const after = i + 1 < v.length ? v[i + 1] : next;
    let esc = false;
    if (c === '[') esc = true;
    else if (DELIM_CHARS.has(c) || c === '`') esc = before === c || after === c;
    else if (inLink && (c === ']' || c === '|' || c === '=')) esc = true;
    else if (lineStart && i === 0 && (c === '*' || c === '#' || c === '=')) esc = true;
    if (esc) out += bs(2 * run + 1) + c;
    else if (ESCAPABLE.has(c)) out += bs(2 * run) + c;
    else out += bs(run) + c;
    run = 0;
  }
  return out + bs(ESCAPABLE.has(next) ? 2 * run : run);
}

function firstChar(p: Piece | undefined): string {
  if (!p) return '';
  return p.k === 'code' ? '`' : p.v[0] ?? '';
}

function lastChar(p: Piece): string {
  return p.k === 'code' ? '`' : p.v[p.v.length - 1] ?? '';
}

/**
 * `lineStart`: the first piece starts a line (and so does the piece after a `[br]` and
 * its newline); `endNext`: what follows the last piece (a tag argument is followed by
 * `|` or `]`, so a backslash run at its end must not escape it).
 */
function joinPieces(pieces: Piece[], lineStart: boolean, endNext = ''): string {
  const list = pieces.filter((p) => p.v !== '');
  let out = '';
  let prev = '';
  let atStart = lineStart;
  list.forEach((p, i) => {
    if (p.k === 'raw') out += p.v;
    else if (p.k === 'code') out += '``' + escapeCodeSpan(p.v) + '``';
    else out += escapeText(p.v, prev, i + 1 < list.length ? firstChar(list[i + 1]) : endNext, p.inLink, atStart);
    prev = lastChar(p);
    atStart = p.k === 'raw' && p.newline === true;
  });
  return out;
}

function imageTag(attrs: Record<string, unknown>): string {
  const id = toId(attrs.imageid);
  if (id === null) return '';
  let s = `[image|${id}`;
  if ((IMAGE_ALIGNS as readonly unknown[]).includes(attrs.align)) s += `|align=${attrs.align}`;
  if ((IMAGE_SIZES as readonly unknown[]).includes(attrs.size)) s += `|size=${attrs.size}`;
  return s + ']';
}

export function toId(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d{1,9}$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 1e9 ? n : null;
}

function internalLinkTag(attrs: Record<string, unknown>): string {
  const text = typeof attrs.text === 'string' && attrs.text.trim() ? '|' + escapePart(attrs.text.trim(), TEXT_PART) : '';
  const nw = attrs.new_window === true ? '|new_window=true' : '';
  if (attrs.kind === 'guide') {
    const id = toId(attrs.target);
    return id === null ? (typeof attrs.text === 'string' ? attrs.text : '') : `[guide|${id}${text}${nw}]`;
  }
  const href = typeof attrs.target === 'string' ? safeHref(attrs.target) : null;
  if (!href) return typeof attrs.text === 'string' ? attrs.text : '';
  return `[link|${escapePart(href, URL_PART)}${text}${nw}]`;
}

function linkOf(node: DocNode): DocMark | undefined {
  if (node.type !== 'text') return undefined;
  return node.marks?.find((m) => m.type === 'link' && typeof m.attrs?.href === 'string' && safeHref(m.attrs.href) !== null);
}

/** Where inline content is written. */
interface InlineContext {
  /** It starts a line (list and heading markers at its start are escaped). */
  lineStart: boolean;
  /** It may span lines: a hard break is `[br]` and a newline (a paragraph). */
  multiline: boolean;
  /** It is a tag's argument (a quote's attribution): no tags, links, code or breaks. */
  tagArgument?: boolean;
}

const ONE_LINE: InlineContext = { lineStart: false, multiline: false };

/**
 * Inline nodes -> wiki syntax. Marks are properly nested: the last opened closes first
 * (the parser reads the runs of apostrophes this gives, `'` included, back to the
 * same marks).
 */
export function serializeInline(nodes: DocNode[], ctx: InlineContext = ONE_LINE): string {
  const pieces: Piece[] = [];
  const open: ToggleMark[] = [];
  let link: DocMark | undefined;
  const delim = (m: ToggleMark) => pieces.push({ k: 'raw', v: TOGGLE_MARKS[m].delim });
  const setMarks = (want: Set<ToggleMark>) => {
    let keep = 0;
    while (keep < open.length && want.has(open[keep])) keep++;
    for (let i = open.length - 1; i >= keep; i--) delim(open[i]);
    open.length = keep;
    for (const m of TOGGLES) {
      if (want.has(m) && !open.includes(m)) {
        delim(m);
        open.push(m);
      }
    }
  };
  const br = (): Piece => (ctx.multiline ? { k: 'raw', v: '[br]\n', newline: true } : { k: 'raw', v: '[br]' });
  const closeLink = () => {
    if (link) pieces.push({ k: 'raw', v: (link.attrs?.target === '_blank' ? '|new_window=true' : '') + ']' });
    link = undefined;
  };
  for (const node of nodes) {
    step(1 + (node.marks?.length ?? 0) + TOGGLES.length);
    if (node.type === 'text' && !node.text) continue;
    const nodeLink = ctx.tagArgument ? undefined : linkOf(node);
    // a line ends with its marks closed: a hard break carries only its own marks
    const want = node.type === 'text' || node.type === 'hard_break'
      ? new Set((node.marks ?? []).map((m) => m.type).filter(isToggleMark))
      : null;
    if (link !== nodeLink && !(link && nodeLink && sameAttrs(link.attrs, nodeLink.attrs))) {
      // marks that end with the link close inside it
      if (link) setMarks(new Set(open.filter((m) => want?.has(m))));
      closeLink();
      if (nodeLink) {
        pieces.push({ k: 'raw', v: '[' + escapePart(String(nodeLink.attrs!.href).trim(), URL_PART) + '|' });
        link = nodeLink;
      }
    }
    if (node.type === 'text') {
      const marks = node.marks ?? [];
      setMarks(want!);
      const code = !ctx.tagArgument && marks.some((m) => m.type === 'code');
      const segments = String(node.text).split(/\r\n?|\n/);
      segments.forEach((seg, i) => {
        if (i > 0) pieces.push(ctx.tagArgument ? { k: 'text', v: ' ', inLink: true } : br());
        pieces.push(code ? { k: 'code', v: seg } : { k: 'text', v: seg, inLink: link !== undefined || ctx.tagArgument === true });
      });
    } else if (node.type === 'hard_break') {
      setMarks(want!);
      pieces.push(ctx.tagArgument ? { k: 'text', v: ' ', inLink: true } : br());
    }
    else if (ctx.tagArgument) continue;
    else if (node.type === 'image') pieces.push({ k: 'raw', v: imageTag(node.attrs ?? {}) });
    else if (node.type === 'video') {
      const id = toId(node.attrs?.videoid);
      if (id !== null) pieces.push({ k: 'raw', v: `[video|${id}]` });
    } else if (node.type === 'internal_link') {
      const tag = internalLinkTag(node.attrs ?? {});
      pieces.push(tag.startsWith('[') ? { k: 'raw', v: tag } : { k: 'text', v: tag, inLink: false });
    } else if (node.content) {
      // an unknown inline container: its inline content
      const inner = serializeInline(node.content, ONE_LINE);
      if (inner) pieces.push({ k: 'raw', v: inner });
    }
  }
  setMarks(new Set());
  closeLink();
  return joinPieces(pieces, ctx.lineStart, ctx.tagArgument ? ']' : '');
}

const isList = (n: DocNode) => n.type === 'bullet_list' || n.type === 'ordered_list';

/** The inline content of any block, blocks separated by two hard breaks. */
function flattenInline(node: DocNode, out: DocNode[]) {
  if (node.type === 'code_block') {
    if (out.length) out.push({ type: 'hard_break' }, { type: 'hard_break' });
    out.push({ type: 'text', text: textOf(node), marks: [{ type: 'code' }] });
    return;
  }
  const kids = node.content ?? [];
  if (kids.length === 0 || kids.every((k) => k.type === 'text' || k.type === 'hard_break' || k.type === 'image' || k.type === 'video' || k.type === 'internal_link')) {
    if (kids.length === 0) return;
    if (out.length) out.push({ type: 'hard_break' }, { type: 'hard_break' });
    out.push(...kids);
    return;
  }
  for (const k of kids) flattenInline(k, out);
}

function textOf(node: DocNode): string {
  step(1 + (node.text?.length ?? 0));
  if (node.type === 'text') return node.text ?? '';
  return (node.content ?? []).map(textOf).join('');
}

/**
 * A list at `depth` (1 at the top): each item's line has `depth` markers of the list's
 * own type (`**` for a bullet list inside a numbered item), as the editor writes them.
 */
function serializeList(list: DocNode, depth: number): string {
  const marker = (list.type === 'ordered_list' ? '#' : '*').repeat(depth);
  step(depth);
  const lines: string[] = [];
  for (const item of list.content ?? []) {
    const inline: DocNode[] = [];
    const nested: DocNode[] = [];
    for (const child of item.type === 'list_item' ? item.content ?? [] : [item]) {
      if (isList(child)) nested.push(child);
      else flattenInline(child, inline);
    }
    const text = serializeInline(inline, ONE_LINE);
    lines.push(marker + (text ? ' ' + text : ''));
    // too deep for the syntax: flattened into items at this depth
    for (const n of nested) lines.push(serializeList(n, depth < MAX_LIST_DEPTH ? depth + 1 : depth));
  }
  return lines.join('\n');
}

/** A quote's attribution (a paragraph node, or a string from an older tree) as a tag argument. */
function attributionArg(value: unknown): string {
  const nodes = typeof value === 'string' ? [{ type: 'text', text: value }]
    : typeof value === 'object' && value !== null ? (value as DocNode).content ?? [] : [];
  const text = serializeInline(trimInline(nodes), { lineStart: false, multiline: false, tagArgument: true });
  return text ? '|' + text : '';
}

/** A paragraph: its text trimmed (as the editor writes it), hard breaks as `[br]` and a newline. */
function serializeParagraph(nodes: DocNode[]): string {
  const text = serializeInline(trimInline(nodes), { lineStart: true, multiline: true });
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

function serializeBlock(node: DocNode): string {
  switch (node.type) {
    case 'paragraph':
      return serializeParagraph(node.content ?? []);
    case 'heading': {
      const raw = Number(node.attrs?.level);
      const level = Number.isInteger(raw) ? Math.min(6, Math.max(2, raw)) : 2;
      const body = serializeInline(node.content ?? [], ONE_LINE).trim();
      if (!body) return '';
      const eq = '='.repeat(level);
      return `${eq} ${body} ${eq}`;
    }
    case 'code_block':
      return '[code]\n' + escapeCodeBlock(textOf(node)) + '\n[/code]';
    case 'blockquote': {
      const raw = node.attrs?.format;
      const format = typeof raw === 'string' && raw !== DEFAULT_QUOTE_FORMAT && /^[\w-]{1,40}$/.test(raw) ? `|format=${raw}` : '';
      return `[quote${attributionArg(node.attrs?.attribute)}${format}]\n${serializeBlocks(node.content ?? [])}\n[/quote]`;
    }
    case 'bullet_list':
    case 'ordered_list':
      return serializeList(node, 1);
    case 'text':
    case 'hard_break':
    case 'image':
    case 'video':
    case 'internal_link':
      return serializeParagraph([node]);
    default:
      return serializeBlocks(node.content ?? []);
  }
}

export function serializeBlocks(nodes: DocNode[]): string {
  const out: string[] = [];
  // consecutive inline nodes at block level form one paragraph
  let run: DocNode[] = [];
  const flush = () => {
    if (run.length) out.push(serializeParagraph(run));
    run = [];
  };
  for (const n of nodes) {
    step();
    if (['text', 'hard_break', 'image', 'video', 'internal_link'].includes(n.type)) {
      run.push(n);
      continue;
    }
    flush();
    out.push(serializeBlock(n));
  }
  flush();
  return out.filter((s) => s !== '').join('\n\n');
}
