// Block structure of wiki syntax: paragraphs (separated by blank lines; a single newline
// inside one is a hard break), `== headings ==` (levels 2 to 6), `*`/`#` lists nested by
// repeating markers, `[code]...[/code]` and `[quote|attribution]...[/quote]` blocks.
//
// Linear in the text, whatever it holds: one scan (`scanBlocks`) cuts the text into
// events (lines, code blocks, quote openings and closings), matching quotes with a stack
// and code blocks with the list of `[/code]` positions computed beforehand; a second walk
// over the events (`buildBlocks`) builds the tree with a stack of open quotes. Nothing is
// scanned twice, so no input can make it slow (the tests count its steps).
import type { DocNode } from './types.js';
import { parseInline, trimInline, findCodeEnd, ESCAPABLE } from './inline.js';
import { step } from './steps.js';

/** Deeper quotes and lists are not nested further (their markers become text). */
export const MAX_QUOTE_DEPTH = 16;
export const MAX_LIST_DEPTH = 10;

const CODE_OPEN = '[code]';
const CODE_CLOSE = '[/code]';
const QUOTE_OPEN = '[quote';
const QUOTE_CLOSE = '[/quote]';

/** Whether `s` holds `what` (lower case) at i, ignoring case. */
function startsWithAt(s: string, i: number, what: string): boolean {
  step(what.length);
  if (i + what.length > s.length) return false;
  for (let k = 0; k < what.length; k++) {
    const c = s.charCodeAt(i + k);
    // ASCII letters fold to lower case; everything else compares as is
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== what.charCodeAt(k)) return false;
  }
  return true;
}

const WHITE = /\s/;

/** Positions of every `[/code]` not escaped by an odd run of backslashes, in order. */
function codeCloses(s: string): number[] {
  const out: number[] = [];
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    step();
    const c = s[i];
    if (c === '\\') {
      run++;
      continue;
    }
    if (c === '[' && run % 2 === 0 && startsWithAt(s, i, CODE_CLOSE)) out.push(i);
    run = 0;
  }
  return out;
}

/**
 * A code block's text between `from` and its closing `[/code]` at `to`: a `[/code]` escaped
 * by an odd run of backslashes is text (the run halved); one newline after `[code]` and
 * one before `[/code]` are not part of it.
 */
function codeText(s: string, from: number, to: number): string {
  let out = '';
  let i = from;
  while (i < to) {
    step();
    if (s[i] !== '\\') {
      out += s[i++];
      continue;
    }
    let n = 0;
    while (s[i + n] === '\\') n++;
    step(n);
    if (!startsWithAt(s, i + n, CODE_CLOSE)) {
      out += '\\'.repeat(n);
      i += n;
      continue;
    }
    // before the closing tag the run is even; before any other `[/code]` odd: halved, tag kept
    out += '\\'.repeat(n >> 1);
    i += n;
    if (i < to) {
      out += s.slice(i, i + CODE_CLOSE.length);
      i += CODE_CLOSE.length;
    }
  }
  if (out.startsWith('\n')) out = out.slice(1);
  if (out.endsWith('\n')) out = out.slice(0, -1);
  step(out.length);
  return out;
}

/** The end of an `[...]` tag starting at i, before `eol` (escapes respected), or -1. */
function tagEnd(s: string, i: number, eol: number): number {
  let j = i + 1;
  while (j < eol) {
    step();
    const c = s[j];
    if (c === '\\') {
      let n = 0;
      while (s[j + n] === '\\') n++;
      step(n);
      const d = s[j + n];
      j += n + (n % 2 === 1 && (d === ']' || d === '|' || d === '[' || d === '=') ? 1 : 0);
      continue;
    }
    if (c === '[') return -1;
    if (c === ']') return j;
    j++;
  }
  return -1;
}

/** Splits an opening tag's inside (`quote|Ann|format=x`) at unescaped `|`. */
function splitArgs(inside: string): string[] {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  while (i < inside.length) {
    step();
    if (inside[i] === '\\') {
      let n = 0;
      while (inside[i + n] === '\\') n++;
      step(n);
      i += n + (n % 2 === 1 && inside[i + n] !== undefined ? 1 : 0);
      continue;
    }
    if (inside[i] === '|') {
      out.push(inside.slice(from, i));
      from = i + 1;
    }
    i++;
  }
  out.push(inside.slice(from));
  return out;
}

interface QuoteOpen {
  k: 'open';
  /** The tag `[quote...]` is s[from, to). */
  from: number;
  to: number;
  /** Set when its `[/quote]` is found; an opening never closed is text. */
  matched: boolean;
}
type BlockEvent =
  | { k: 'line'; from: number; to: number }
  | { k: 'code'; text: string }
  | QuoteOpen
  | { k: 'close' };

/**
 * Cuts the text into events, left to right, each character looked at a bounded number of
 * times. A line starts at the start of the text, after a newline, and after a block tag
 * (`[code]...[/code]`, `[quote...]`, `[/quote]`): there `[code]` opens a code block when a
 * `[/code]` follows anywhere, and `[quote...]` a quote (closed by the first `[/quote]`
 * outside code that no deeper quote takes; never closed, it is text). Quotes deeper than
 * MAX_QUOTE_DEPTH still pair with their `[/quote]`, but both tags are text.
 */
function scanBlocks(s: string): BlockEvent[] {
  const events: BlockEvent[] = [];
  const closes = codeCloses(s);
  let nextClose = 0;
  const stack: QuoteOpen[] = [];
  let literal = 0;
  let pos = 0;
  let eol = -1;
  while (pos <= s.length) {
    step();
    if (pos > eol) {
      eol = s.indexOf('\n', pos);
      if (eol < 0) eol = s.length;
      step(eol - pos + 1);
    }
    let ws = pos;
    while (ws < eol && WHITE.test(s[ws])) ws++;
    step(ws - pos);
    if (s[ws] === '[') {
      if (startsWithAt(s, ws, CODE_OPEN)) {
        while (nextClose < closes.length && closes[nextClose] < ws + CODE_OPEN.length) nextClose++;
        step();
        if (nextClose < closes.length) {
          const close = closes[nextClose];
          events.push({ k: 'code', text: codeText(s, ws + CODE_OPEN.length, close) });
          pos = close + CODE_CLOSE.length;
          continue;
        }
      }
      if (startsWithAt(s, ws, QUOTE_OPEN) && (s[ws + QUOTE_OPEN.length] === '|' || s[ws + QUOTE_OPEN.length] === ']')) {
        const end = tagEnd(s, ws, eol);
        if (end >= 0) {
          if (stack.length < MAX_QUOTE_DEPTH && literal === 0) {
            const open: QuoteOpen = { k: 'open', from: ws, to: end + 1, matched: false };
            events.push(open);
            stack.push(open);
            pos = end + 1;
            continue;
          }
          literal++;
        }
      }
    }
    // the rest of the line is text; a `[/quote]` in it closes the innermost open quote
    let i = pos;
    let closed = false;
    while (i < eol) {
      step();
      const c = s[i];
      if (c === '\\') {
        let n = 0;
        while (s[i + n] === '\\') n++;
        step(n);
        i += n + (n % 2 === 1 && s[i + n] !== undefined && ESCAPABLE.has(s[i + n]) ? 1 : 0);
        continue;
      }
      if (c === '`' && s[i + 1] === '`') {
        const e = findCodeEnd(s, i + 2);
        i = e >= 0 ? e + 2 : i + 2;
        continue;
      }
      if (c === '[' && (stack.length > 0 || literal > 0) && startsWithAt(s, i, QUOTE_CLOSE)) {
        if (literal > 0) {
          literal--;
          i += QUOTE_CLOSE.length;
          continue;
        }
        events.push({ k: 'line', from: pos, to: i }, { k: 'close' });
        stack.pop()!.matched = true;
        pos = i + QUOTE_CLOSE.length;
        closed = true;
        break;
      }
      i++;
    }
    if (closed) continue;
    events.push({ k: 'line', from: pos, to: eol });
    pos = eol + 1;
  }
  return events;
}

function heading(line: string): DocNode | null {
  if (line[0] !== '=') return null;
  let lead = 0;
  while (line[lead] === '=') lead++;
  const t = line.trimEnd();
  let trail = 0;
  while (trail < t.length && t[t.length - 1 - trail] === '=') trail++;
  step(line.length);
  if (lead < 2 || lead > 6 || trail !== lead || lead + trail >= t.length) return null;
  const text = t.slice(lead, t.length - trail).trim();
  if (!text) return null;
  return { type: 'heading', attrs: { level: lead }, content: parseInline(text) };
}

interface ListLine { markers: string; text: string }

function listLine(line: string): ListLine | null {
  if (line[0] !== '*' && line[0] !== '#') return null;
  let n = 0;
  while (n < line.length && n < MAX_LIST_DEPTH && (line[n] === '*' || line[n] === '#')) n++;
  step(line.length);
  return { markers: line.slice(0, n), text: line.slice(n).trim() };
}

const listType = (marker: string) => (marker === '#' ? 'ordered_list' : 'bullet_list');

/**
 * Builds nested lists from consecutive `*`/`#` lines, as the editor reads them: the number
 * of markers is the depth, the last marker the type of the list at that depth (`# a` then
 * `** b` is a bullet list inside the numbered item). A list of the other type at the same
 * depth ends the one before it.
 */
function buildLists(items: ListLine[]): DocNode[] {
  const out: DocNode[] = [];
  // the open list at each depth (index 0: depth 1)
  const stack: DocNode[] = [];
  const newItem = (text: string): DocNode => {
    const content = parseInline(text);
    return { type: 'list_item', content: [content.length ? { type: 'paragraph', content } : { type: 'paragraph' }] };
  };
  const open = (type: string) => {
    const list: DocNode = type === 'ordered_list' ? { type, attrs: { order: 1 }, content: [] } : { type, content: [] };
    if (stack.length === 0) out.push(list);
    else {
      const items = stack[stack.length - 1].content!;
      if (items.length === 0) items.push(newItem(''));
      items[items.length - 1].content!.push(list);
    }
    stack.push(list);
  };
  for (const { markers, text } of items) {
    step(MAX_LIST_DEPTH);
    const depth = markers.length;
    const type = listType(markers[depth - 1]);
    if (stack.length > depth) stack.length = depth;
    while (stack.length < depth - 1) open(listType(markers[stack.length]));
    if (stack.length === depth && stack[depth - 1].type !== type) stack.length = depth - 1;
    if (stack.length < depth) open(type);
    stack[depth - 1].content!.push(newItem(text));
  }
  return out;
}

const QUOTE_FORMAT = /^\s*format\s*=\s*([\w-]{1,40})\s*$/;
export const DEFAULT_QUOTE_FORMAT = 'long';

/**
 * The attributes of a quote from its tag's inside (`quote|Ann ''B''|format=x`): the format
 * (`long` unless given) and the attribution as a paragraph with its marks (null if none).
 */
function quoteAttrs(inside: string): { format: string; attribute: DocNode | null } {
  let attribute: DocNode | null = null;
  let format = DEFAULT_QUOTE_FORMAT;
  for (const a of splitArgs(inside).slice(1)) {
    const m = QUOTE_FORMAT.exec(a);
    if (m) format = m[1];
    else if (attribute === null) {
      const content = trimInline(parseInline(a, true));
      attribute = content.length ? { type: 'paragraph', content } : null;
    }
  }
  return { format, attribute };
}

/** A container being filled: the document, or an open quote. */
class Container {
  readonly out: DocNode[] = [];
  private para: string[] = [];
  private items: ListLine[] = [];
  constructor(readonly open: QuoteOpen | null) {}

  private flushPara() {
    if (this.para.length === 0) return;
    const content = trimInline(parseInline(this.para.join('\n')));
    if (content.length) this.out.push({ type: 'paragraph', content });
    this.para = [];
  }

  private flushList() {
    if (this.items.length === 0) return;
    this.out.push(...buildLists(this.items));
    this.items = [];
  }

  flush() {
    this.flushPara();
    this.flushList();
  }

  /** One line of text: blank, a heading, a list item or a paragraph's line. */
  line(text: string, plain = false) {
    step(text.length);
    if (!plain) {
      if (text.trim() === '') {
        this.flush();
        return;
      }
      const h = heading(text);
      if (h) {
        this.flush();
        this.out.push(h);
        return;
      }
      const item = listLine(text);
      if (item) {
        this.flushPara();
        this.items.push(item);
        return;
      }
    }
    this.flushList();
    this.para.push(text);
  }

  block(node: DocNode) {
    this.flush();
    this.out.push(node);
  }
}

function buildBlocks(s: string, events: BlockEvent[]): DocNode[] {
  const stack: Container[] = [new Container(null)];
  // an unclosed `[quote...]` tag is text, read with the rest of its line
  let carried = '';
  for (let e = 0; e < events.length; e++) {
    step();
    const ev = events[e];
    const top = stack[stack.length - 1];
    if (ev.k === 'line') {
      const text = s.slice(ev.from, ev.to);
      top.line(carried + text, carried !== '');
      carried = '';
      continue;
    }
    if (carried) top.line(carried, true);
    carried = '';
    if (ev.k === 'code') top.block(ev.text ? { type: 'code_block', content: [{ type: 'text', text: ev.text }] } : { type: 'code_block' });
    else if (ev.k === 'open') {
      if (!ev.matched) {
        carried = s.slice(ev.from, ev.to);
        step(carried.length);
        const next = events[e + 1];
        if (!(next && next.k === 'line' && next.from === ev.to)) {
          top.line(carried, true);
          carried = '';
        }
        continue;
      }
      top.flush();
      stack.push(new Container(ev));
    } else {
      const quote = stack.pop()!;
      quote.flush();
      const attrs = quoteAttrs(s.slice(quote.open!.from + 1, quote.open!.to - 1));
      stack[stack.length - 1].block({ type: 'blockquote', attrs, content: quote.out.length ? quote.out : [{ type: 'paragraph' }] });
    }
  }
  if (carried) stack[stack.length - 1].line(carried, true);
  const root = stack[0];
  root.flush();
  return root.out;
}

export function parseBlocks(text: string): DocNode[] {
  const s = text.replace(/\r\n?/g, '\n');
  step(text.length);
  return buildBlocks(s, scanBlocks(s));
}
