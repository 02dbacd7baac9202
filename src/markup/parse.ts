// Block structure of wiki syntax: paragraphs (separated by blank lines; a single newline
// inside one is a hard break), `== headings ==` (levels 2 to 6), `*`/`#` lists nested by
// repeating markers, `[code]...[/code]` and `[quote|attribution]...[/quote]` blocks.
import type { DocNode } from './types.js';
import { parseInline, unescapePart, backslashRun, findCodeEnd, ESCAPABLE } from './inline.js';

/** Deeper quotes and lists are not nested further (their markers become text). */
export const MAX_QUOTE_DEPTH = 16;
export const MAX_LIST_DEPTH = 10;

const CODE_OPEN = /^\s*\[code\]/i;
const QUOTE_OPEN = /^\s*\[quote(?=[|\]])/i;
const CODE_CLOSE = '[/code]';
const QUOTE_CLOSE = '[/quote]';

function startsWithAt(s: string, i: number, what: string): boolean {
  return s.slice(i, i + what.length).toLowerCase() === what;
}

interface Found { content: string; line: number; col: number }

/**
 * The content of a [code] block whose text starts at (line, col), up to the first
 * `[/code]` not escaped by an odd run of backslashes; null when there is none.
 */
function findCodeBlock(lines: string[], line: number, col: number): Found | null {
  let content = '';
  for (let l = line; l < lines.length; l++) {
    const s = lines[l];
    let i = l === line ? col : 0;
    if (l > line) content += '\n';
    while (i < s.length) {
      if (s[i] === '\\') {
        let n = 0;
        while (s[i + n] === '\\') n++;
        if (startsWithAt(s, i + n, CODE_CLOSE)) {
          content += '\\'.repeat(n >> 1);
          if (n % 2 === 1) {
            content += s.slice(i + n, i + n + CODE_CLOSE.length);
            i += n + CODE_CLOSE.length;
            continue;
          }
          i += n;
          continue;
        }
        content += '\\'.repeat(n);
        i += n;
        continue;
      }
      if (s[i] === '[' && startsWithAt(s, i, CODE_CLOSE)) return { content, line: l, col: i + CODE_CLOSE.length };
      content += s[i++];
    }
  }
  return null;
}

/** Strips the one newline that follows `[code]` and the one that precedes `[/code]`. */
function codeText(raw: string): string {
  let s = raw.startsWith('\n') ? raw.slice(1) : raw;
  if (s.endsWith('\n')) s = s.slice(0, -1);
  return s;
}

/** The end of an `[...]` tag starting at i on one line (escapes respected), or -1. */
function tagEnd(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length) {
    if (s[j] === '\\') {
      const r = backslashRun(s, j, (c) => c === ']' || c === '|' || c === '[' || c === '=');
      j = r.next === j ? j + 1 : r.next;
      continue;
    }
    if (s[j] === '[') return -1;
    if (s[j] === ']') return j;
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
    if (inside[i] === '\\') {
      let n = 0;
      while (inside[i + n] === '\\') n++;
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

function sliceLines(lines: string[], l0: number, c0: number, l1: number, c1: number): string {
  if (l0 === l1) return lines[l0].slice(c0, c1);
  return [lines[l0].slice(c0), ...lines.slice(l0 + 1, l1), lines[l1].slice(0, c1)].join('\n');
}

/**
 * Finds the `[/quote]` that closes a quote whose content starts at (line, col): quotes
 * opened at the start of a line nest, code blocks and code spans are opaque, and an
 * escaped `\\[/quote]` is text.
 */
function findQuoteEnd(lines: string[], line: number, col: number): Found | null {
  let depth = 1;
  let l = line;
  let i = col;
  let atStart = false;
  while (l < lines.length) {
    const s = lines[l];
    if (atStart) {
      const rest = s.slice(i);
      const code = CODE_OPEN.exec(rest);
      const c = code ? findCodeBlock(lines, l, i + code[0].length) : null;
      if (c) {
        l = c.line;
        i = c.col;
        continue;
      }
      if (QUOTE_OPEN.test(rest)) {
        const end = tagEnd(s, s.indexOf('[', i));
        if (end >= 0) {
          depth++;
          i = end + 1;
        }
      }
    }
    while (i < s.length) {
      const ch = s[i];
      if (ch === '\\') {
        let n = 0;
        while (s[i + n] === '\\') n++;
        i += n + (n % 2 === 1 && s[i + n] !== undefined && ESCAPABLE.has(s[i + n]) ? 1 : 0);
        continue;
      }
      if (ch === '`' && s[i + 1] === '`') {
        const e = findCodeEnd(s, i + 2);
        i = e >= 0 ? e + 2 : i + 2;
        continue;
      }
      if (ch === '[' && startsWithAt(s, i, QUOTE_CLOSE)) {
        depth--;
        if (depth === 0) return { content: sliceLines(lines, line, col, l, i), line: l, col: i + QUOTE_CLOSE.length };
        i += QUOTE_CLOSE.length;
        continue;
      }
      i++;
    }
    l++;
    i = 0;
    atStart = true;
  }
  return null;
}

function heading(line: string): DocNode | null {
  if (line[0] !== '=') return null;
  let lead = 0;
  while (line[lead] === '=') lead++;
  const t = line.trimEnd();
  let trail = 0;
  while (trail < t.length && t[t.length - 1 - trail] === '=') trail++;
  if (lead < 2 || lead > 6 || trail !== lead || lead + trail >= t.length) return null;
  const text = t.slice(lead, t.length - trail).trim();
  if (!text) return null;
  return { type: 'heading', attrs: { level: lead }, content: parseInline(text) };
}

const paragraph = (text: string): DocNode | null => {
  const content = parseInline(text);
  return content.length ? { type: 'paragraph', content } : null;
};

interface ListLevel { list: DocNode; marker: string }

/** Builds nested lists from consecutive `*`/`#` lines. */
function buildLists(items: Array<{ markers: string; text: string }>): DocNode[] {
  const out: DocNode[] = [];
  const stack: ListLevel[] = [];
  const newList = (marker: string): DocNode => (marker === '#' ? { type: 'ordered_list', attrs: { order: 1 }, content: [] } : { type: 'bullet_list', content: [] });
  const newItem = (text: string): DocNode => {
    const content = parseInline(text);
    return { type: 'list_item', content: [content.length ? { type: 'paragraph', content } : { type: 'paragraph' }] };
  };
  const lastItem = (level: ListLevel): DocNode => {
    const items = level.list.content!;
    if (items.length === 0) items.push(newItem(''));
    return items[items.length - 1];
  };
  for (const { markers, text } of items) {
    let common = 0;
    while (common < stack.length && common < markers.length && stack[common].marker === markers[common]) common++;
    if (common === markers.length && common === stack.length) {
      stack[common - 1].list.content!.push(newItem(text));
      continue;
    }
    if (common === markers.length) {
      stack.length = common;
      stack[common - 1].list.content!.push(newItem(text));
      continue;
    }
    stack.length = common;
    for (let d = common; d < markers.length; d++) {
      const list = newList(markers[d]);
      if (d === 0) out.push(list);
      else lastItem(stack[d - 1]).content!.push(list);
      stack.push({ list, marker: markers[d] });
    }
    stack[markers.length - 1].list.content!.push(newItem(text));
  }
  return out;
}

function listLine(line: string): { markers: string; text: string } | null {
  if (line[0] !== '*' && line[0] !== '#') return null;
  let n = 0;
  while (n < line.length && n < MAX_LIST_DEPTH && (line[n] === '*' || line[n] === '#')) n++;
  return { markers: line.slice(0, n), text: line.slice(n).trim() };
}

export function parseBlocks(text: string, depth = 0): DocNode[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  return blocksOf(lines, depth);
}

function blocksOf(lines: string[], depth: number): DocNode[] {
  const out: DocNode[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) {
      const p = paragraph(para.join('\n'));
      if (p) out.push(p);
    }
    para = [];
  };
  // Whether a closing tag occurs at or after a line at all: saves hopeless scans.
  const lastLineWith = (what: string) => {
    for (let l = lines.length - 1; l >= 0; l--) if (lines[l].toLowerCase().includes(what)) return l;
    return -1;
  };
  const lastCodeClose = lastLineWith(CODE_CLOSE);
  const lastQuoteClose = depth < MAX_QUOTE_DEPTH ? lastLineWith(QUOTE_CLOSE) : -1;

  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      flush();
      i++;
      continue;
    }
    const code = i <= lastCodeClose ? CODE_OPEN.exec(line) : null;
    if (code) {
      const found = findCodeBlock(lines, i, code[0].length);
      if (found) {
        flush();
        const text = codeText(found.content);
        out.push(text ? { type: 'code_block', content: [{ type: 'text', text }] } : { type: 'code_block' });
        lines[found.line] = lines[found.line].slice(found.col);
        i = found.line;
        continue;
      }
    }
    const quote = i <= lastQuoteClose ? QUOTE_OPEN.exec(line) : null;
    if (quote) {
      const open = line.indexOf('[');
      const end = tagEnd(line, open);
      const found = end >= 0 ? findQuoteEnd(lines, i, end + 1) : null;
      if (found) {
        flush();
        const args = splitArgs(line.slice(open + 1, end)).slice(1);
        let attribute: string | null = null;
        let format: string | null = null;
        for (const a of args) {
          const m = /^\s*format\s*=\s*([A-Za-z0-9_-]{1,40})\s*$/.exec(a);
          if (m) format = m[1];
          else if (attribute === null) attribute = unescapePart(a).trim() || null;
        }
        const inner = blocksOf(found.content.split('\n'), depth + 1);
        out.push({ type: 'blockquote', attrs: { format, attribute }, content: inner.length ? inner : [{ type: 'paragraph' }] });
        lines[found.line] = lines[found.line].slice(found.col);
        i = found.line;
        continue;
      }
    }
    const h = heading(line);
    if (h) {
      flush();
      out.push(h);
      i++;
      continue;
    }
    if (listLine(line)) {
      flush();
      const items: Array<{ markers: string; text: string }> = [];
      let item: ReturnType<typeof listLine>;
      while (i < lines.length && (item = listLine(lines[i]))) {
        items.push(item);
        i++;
      }
      out.push(...buildLists(items));
      continue;
    }
    para.push(line);
    i++;
  }
  flush();
  return out;
}
