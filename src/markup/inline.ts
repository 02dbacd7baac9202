// Inline wiki syntax -> inline nodes (text with marks, hard_break, image, video,
// internal_link). Two passes: a tokenizer (escapes, delimiter runs, code spans, [tags])
// and a resolver that walks the tokens with the set of active marks. Delimiters toggle
// a mark in that set, so overlapping marks (`'''a ''b''' c''`) need no nesting rules;
// a delimiter opens a mark only when a closing delimiter follows later in the block, and
// a run of apostrophes is read as the editor reads it (`apostrophes`).
//
// Everything here is linear in the input (bracket matching is one pass with a stack, a
// tag that fails is given up at its name or first argument, and a tag is at most MAX_TAG
// characters), so hostile input cannot make it slow; every loop counts its steps.
import type { DocMark, DocNode, ToggleMark } from './types.js';
import { IMAGE_ALIGNS, IMAGE_SIZES, MARK_ORDER } from './types.js';
import { safeHref } from './urls.js';
import { step } from './steps.js';

/** Characters a backslash escapes; a backslash before anything else is a backslash. */
export const ESCAPABLE = new Set(["'", '+', ',', '^', '~', '`', '[', ']', '|', '*', '#', '=']);
/** Characters whose doubled runs are delimiters. */
export const DELIM_CHARS = new Set(["'", '+', ',', '^', '~']);
const CHAR_MARK: Record<string, ToggleMark> = { '+': 'underline', ',': 'subscript', '^': 'superscript', '~': 'strikethrough' };
const MAX_TAG = 4000;

type Token =
  | { t: 'text'; v: string }
  | { t: 'delim'; ch: string; n: number }
  | { t: 'code'; v: string }
  | { t: 'br' }
  | { t: 'node'; node: DocNode }
  | { t: 'linkOpen'; mark: DocMark }
  | { t: 'linkClose' };

/**
 * A run of backslashes at `i`. Before an escapable character, half of them (rounded
 * down) are literal and an odd one makes that character literal; before anything else
 * every backslash is literal.
 */
export function backslashRun(s: string, i: number, isEsc: (c: string) => boolean, endEscapable = false): { text: string; next: number; escaped: boolean } {
  let n = 0;
  while (s[i + n] === '\\') n++;
  step(n);
  const d = s[i + n];
  if (d === undefined && endEscapable) return { text: '\\'.repeat(n >> 1), next: i + n, escaped: false };
  if (d !== undefined && isEsc(d)) {
    const odd = n % 2 === 1;
    return { text: '\\'.repeat(n >> 1) + (odd ? d : ''), next: i + n + (odd ? 1 : 0), escaped: odd };
  }
  return { text: '\\'.repeat(n), next: i + n, escaped: false };
}

const isEscapable = (c: string) => ESCAPABLE.has(c);

/**
 * Removes the backslash escapes of a tag argument. An argument is always followed by
 * `|` or `]`, so a backslash run at its end is read as one before an escapable character.
 */
export function unescapePart(raw: string): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    step();
    if (raw[i] === '\\') {
      const r = backslashRun(raw, i, isEscapable, true);
      out += r.text;
      i = r.next;
    } else out += raw[i++];
  }
  return out;
}

/** Index of the closing `` of a code span whose content starts at j, or -1 (none on this line). */
export function findCodeEnd(s: string, j: number): number {
  while (j < s.length) {
    step();
    const c = s[j];
    if (c === '\n') return -1;
    if (c === '\\') {
      let n = 0;
      while (s[j + n] === '\\') n++;
      j += n + (n % 2 === 1 && s[j + n] === '`' ? 1 : 0);
      continue;
    }
    if (c === '`' && s[j + 1] === '`') return j;
    j++;
  }
  return -1;
}

function decodeCode(raw: string): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    step();
    if (raw[i] === '\\') {
      const r = backslashRun(raw, i, (c) => c === '`', true);
      out += r.text;
      i = r.next;
    } else out += raw[i++];
  }
  return out;
}

/** Skips an escape or a code span at i; returns the next index, or -1 when s[i] is neither. */
function skipOpaque(s: string, i: number): number {
  const c = s[i];
  if (c === '\\') {
    let n = 0;
    while (s[i + n] === '\\') n++;
    step(n);
    return i + n + (n % 2 === 1 && s[i + n] !== undefined && ESCAPABLE.has(s[i + n]) ? 1 : 0);
  }
  if (c === '`' && s[i + 1] === '`') {
    const e = findCodeEnd(s, i + 2);
    return e >= 0 ? e + 2 : i + 2;
  }
  return -1;
}

/** For every `[`, the index of its matching `]` on the same line (or -1): one pass. */
function matchBrackets(s: string): Int32Array {
  const match = new Int32Array(s.length).fill(-1);
  const stack: number[] = [];
  step(s.length);
  let i = 0;
  while (i < s.length) {
    step();
    const skip = skipOpaque(s, i);
    if (skip >= 0) {
      i = skip;
      continue;
    }
    const c = s[i];
    if (c === '\n') stack.length = 0;
    else if (c === '[') stack.push(i);
    else if (c === ']') {
      const o = stack.pop();
      if (o !== undefined) match[o] = i;
    }
    i++;
  }
  return match;
}

/**
 * The raw arguments of the tag opening at `start` (split at top-level `|`), or null.
 * The name (or URL) and, for embeds and internal links, the first argument may not hold
 * a `[`, and both are checked as soon as they end: a tag that fails is given up at once,
 * so a `[` that stays text costs only the characters up to its first `|` (nothing is
 * scanned again by the next `[`).
 */
function tagParts(s: string, start: number, end: number, inLink: boolean): string[] | null {
  if (end < 0 || end - start > MAX_TAG) return null;
  const parts: string[] = [];
  let from = start + 1;
  let depth = 0;
  let i = start + 1;
  let key = '';
  const partOk = (raw: string): boolean => {
    if (parts.length === 0) {
      const name = unescapePart(raw).trim();
      key = name.toLowerCase();
      if (inLink) return key === 'br';
      if (TAG_NAMES.has(key)) return true;
      key = '';
      return safeHref(name) !== null;
    }
    if (parts.length === 1 && key === 'link') return safeHref(unescapePart(raw)) !== null;
    if (parts.length === 1 && key !== '') return idOf(raw) !== null;
    return true;
  };
  // parts whose content is checked: the name, and the first argument of a named tag
  const checked = () => parts.length === 0 || (parts.length === 1 && key !== '');
  while (i < end) {
    step();
    const skip = skipOpaque(s, i);
    if (skip >= 0) {
      i = skip;
      continue;
    }
    const c = s[i];
    if (c === '[') {
      if (checked()) return null;
      depth++;
    } else if (c === ']') depth--;
    else if (c === '|' && depth === 0) {
      if (key === 'br' || !partOk(s.slice(from, i))) return null;
      parts.push(s.slice(from, i));
      from = i + 1;
    }
    i++;
  }
  if (checked() && !partOk(s.slice(from, end))) return null;
  parts.push(s.slice(from, end));
  return parts;
}

const TAG_NAMES = new Set(['br', 'image', 'video', 'guide', 'link']);

const NEW_WINDOW = /^\s*new_window\s*=\s*(true|false|1|0)\s*$/i;

/** Trailing `new_window=...` option of a link's arguments. */
function linkOptions(args: string[]): { text: string[]; newWindow: boolean } {
  const last = args[args.length - 1];
  const m = last === undefined ? null : NEW_WINDOW.exec(last);
  if (!m) return { text: args, newWindow: false };
  return { text: args.slice(0, -1), newWindow: m[1] === 'true' || m[1] === '1' };
}

const idOf = (raw: string | undefined): number | null => {
  const v = raw === undefined ? '' : unescapePart(raw).trim();
  if (!/^\d{1,9}$/.test(v)) return null;
  const n = Number(v);
  return n > 0 ? n : null;
};

/** The tokens of a recognized tag, or null (the `[` is then literal text). */
function tagTokens(parts: string[], inLink: boolean): Token[] | null {
  const name = unescapePart(parts[0]).trim();
  const key = name.toLowerCase();
  if (key === 'br' && parts.length === 1) return [{ t: 'br' }];
  if (inLink) return null;
  const args = parts.slice(1);
  switch (key) {
    case 'image': {
      const imageid = idOf(args[0]);
      if (imageid === null) return null;
      let size: string | null = null;
      let align: string | null = null;
      for (const a of args.slice(1)) {
        const m = /^\s*(align|size)\s*=\s*([a-z0-9]+)\s*$/i.exec(unescapePart(a));
        if (!m) continue;
        const v = m[2].toLowerCase();
        if (m[1].toLowerCase() === 'size' && (IMAGE_SIZES as readonly string[]).includes(v)) size = v;
        if (m[1].toLowerCase() === 'align' && (IMAGE_ALIGNS as readonly string[]).includes(v)) align = v;
      }
      return [{ t: 'node', node: { type: 'image', attrs: { imageid, src: null, size, align } } }];
    }
    case 'video': {
      const videoid = idOf(args[0]);
      return videoid === null ? null : [{ t: 'node', node: { type: 'video', attrs: { videoid } } }];
    }
    case 'guide': {
      const guideid = idOf(args[0]);
      if (guideid === null) return null;
      const { text, newWindow } = linkOptions(args.slice(1));
      const label = unescapePart(text.join('|')).trim();
      return [{ t: 'node', node: { type: 'internal_link', attrs: { kind: 'guide', target: String(guideid), text: label || null, new_window: newWindow } } }];
    }
    case 'link': {
      if (args.length === 0) return null;
      const href = safeHref(unescapePart(args[0]));
      if (!href) return null;
      const { text, newWindow } = linkOptions(args.slice(1));
      const label = unescapePart(text.join('|')).trim();
      return [{ t: 'node', node: { type: 'internal_link', attrs: { kind: 'link', target: href, text: label || null, new_window: newWindow } } }];
    }
    default: {
      const href = safeHref(name);
      if (!href) return null;
      const { text, newWindow } = linkOptions(args);
      const mark: DocMark = { type: 'link', attrs: { href, title: null, target: newWindow ? '_blank' : null } };
      const inner: Token[] = [];
      tokenize(text.join('|'), true, inner, true);
      if (!inner.some((t) => t.t === 'text' || t.t === 'code')) inner.splice(0, inner.length, { t: 'text', v: href });
      return [{ t: 'linkOpen', mark }, ...inner, { t: 'linkClose' }];
    }
  }
}

/** `endEscapable`: the text is a tag argument (see unescapePart). */
function tokenize(s: string, inLink: boolean, out: Token[], endEscapable = false) {
  const match = matchBrackets(s);
  let buf = '';
  const flush = () => {
    if (buf) out.push({ t: 'text', v: buf });
    buf = '';
  };
  let i = 0;
  while (i < s.length) {
    step();
    const c = s[i];
    if (c === '\\') {
      const r = backslashRun(s, i, isEscapable, endEscapable);
      buf += r.text;
      i = r.next;
    } else if (c === '\n') {
      flush();
      out.push({ t: 'br' });
      i++;
    } else if (DELIM_CHARS.has(c)) {
      let n = 1;
      while (s[i + n] === c) n++;
      step(n);
      if (n >= 2) {
        flush();
        out.push({ t: 'delim', ch: c, n });
      } else buf += c;
      i += n;
    } else if (c === '`' && s[i + 1] === '`') {
      const end = findCodeEnd(s, i + 2);
      if (end > i + 2) {
        flush();
        out.push({ t: 'code', v: decodeCode(s.slice(i + 2, end)) });
        i = end + 2;
      } else if (end === i + 2) {
        buf += '````';
        i += 4;
      } else {
        buf += '``';
        i += 2;
      }
    } else if (c === '[') {
      const parts = tagParts(s, i, match[i], inLink);
      const tokens = parts ? tagTokens(parts, inLink) : null;
      if (tokens) {
        flush();
        out.push(...tokens);
        i = match[i] + 1;
        // `[br]` at the end of a line: the newline is part of the same break
        if (tokens.length === 1 && tokens[0].t === 'br' && s[i] === '\n') i++;
      } else {
        buf += '[';
        i++;
      }
    } else {
      buf += c;
      i++;
    }
  }
  flush();
}

export function sameAttrs(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => (a ?? {})[k] === (b ?? {})[k]);
}

export function sameMarks(a: DocMark[] | undefined, b: DocMark[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((m, i) => m.type === y[i].type && sameAttrs(m.attrs, y[i].attrs));
}

function toggleMark(active: Set<ToggleMark>, mark: ToggleMark) {
  if (active.has(mark)) active.delete(mark);
  else active.add(mark);
}

/**
 * How a run of `n` apostrophes toggles strong (3) and em (2), as the editor reads it: the
 * reading that uses the most apostrophes (the rest are text), then the fewest toggles.
 * A mark may close and reopen in one run (`'` after strong and em: strong closes,
 * em closes and reopens); a mark opens only when a run that can close it follows.
 */
export function apostrophes(n: number, strongOn: boolean, emOn: boolean, opensLater: (need: number) => boolean): { strong: number; em: number; used: number } {
  let best = { strong: 0, em: 0, used: 0 };
  const allowed = (times: number, on: boolean, width: number) =>
    times === 0 || (on ? times === 1 || opensLater(width) : times === 1 && opensLater(width));
  for (let strong = 0; strong <= 2; strong++) {
    for (let em = 0; em <= 2; em++) {
      const used = 3 * strong + 2 * em;
      if (used > n || !allowed(strong, strongOn, 3) || !allowed(em, emOn, 2)) continue;
      // a mark closes and reopens only to nest again around the other one
      if ((strong === 2 && em === 0) || (em === 2 && strong === 0)) continue;
      if (used > best.used || (used === best.used && strong + em < best.strong + best.em)) best = { strong, em, used };
    }
  }
  return best;
}

/** Leading white space of the first text and trailing of the last go (as the editor trims a paragraph). */
export function trimInline(nodes: DocNode[]): DocNode[] {
  const out = nodes.slice();
  step(out.length);
  while (out.length && out[0].type === 'text') {
    const text = (out[0].text ?? '').trimStart();
    if (text) {
      out[0] = { ...out[0], text };
      break;
    }
    out.shift();
  }
  while (out.length && out[out.length - 1].type === 'text') {
    const last = out[out.length - 1];
    const text = (last.text ?? '').trimEnd();
    if (text) {
      out[out.length - 1] = { ...last, text };
      break;
    }
    out.pop();
  }
  return out;
}

/**
 * The inline nodes of a block's text (newlines are hard breaks; `[br]` and the newline
 * after it are one). `tagArgument`: the text is an argument of a tag (a quote's
 * attribution): only `[br]` is a tag in it and a backslash at its end escapes.
 */
export function parseInline(s: string, tagArgument = false): DocNode[] {
  const tokens: Token[] = [];
  tokenize(s, tagArgument, tokens, tagArgument);

  // For each delimiter character, the longest run at or after each token index.
  const later: Record<string, Int32Array> = {};
  for (const ch of DELIM_CHARS) later[ch] = new Int32Array(tokens.length + 1);
  for (let k = tokens.length - 1; k >= 0; k--) {
    step(DELIM_CHARS.size);
    for (const ch of DELIM_CHARS) later[ch][k] = later[ch][k + 1];
    const tok = tokens[k];
    if (tok.t === 'delim' && tok.n > later[tok.ch][k]) later[tok.ch][k] = tok.n;
  }

  const active = new Set<ToggleMark>();
  let link: DocMark | null = null;
  const out: DocNode[] = [];
  const marksNow = (code: boolean): DocMark[] => {
    const m: DocMark[] = [];
    for (const t of MARK_ORDER) {
      if (t === 'link') {
        if (link) m.push(link);
      } else if (t === 'code') {
        if (code) m.push({ type: 'code' });
      } else if (active.has(t)) m.push({ type: t });
    }
    return m;
  };
  const pushText = (text: string, code: boolean) => {
    if (!text) return;
    step(MARK_ORDER.length + text.length);
    const marks = marksNow(code);
    const prev = out[out.length - 1];
    if (prev && prev.type === 'text' && sameMarks(prev.marks, marks)) {
      prev.text += text;
      return;
    }
    out.push(marks.length ? { type: 'text', text, marks } : { type: 'text', text });
  };

  for (let k = 0; k < tokens.length; k++) {
    step();
    const tok = tokens[k];
    switch (tok.t) {
      case 'text': pushText(tok.v, false); break;
      case 'code': pushText(tok.v, true); break;
      case 'br': out.push({ type: 'hard_break' }); break;
      case 'node': out.push(tok.node); break;
      case 'linkOpen': link = tok.mark; break;
      case 'linkClose': link = null; break;
      case 'delim': {
        const opensLater = (need: number) => later[tok.ch][k + 1] >= need;
        let n = tok.n;
        if (tok.ch === "'") {
          const { strong, em, used } = apostrophes(n, active.has('strong'), active.has('em'), opensLater);
          if (strong % 2) toggleMark(active, 'strong');
          if (em % 2) toggleMark(active, 'em');
          n -= used;
        } else {
          const mark = CHAR_MARK[tok.ch];
          if (n >= 2 && (active.has(mark) || opensLater(2))) {
            toggleMark(active, mark);
            n -= 2;
          }
        }
        step(n);
        if (n > 0) pushText(tok.ch.repeat(n), false);
        break;
      }
    }
  }
  return out;
}
