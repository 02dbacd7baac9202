// HTML written by someone else (a quiz's html element), cut down to the elements and
// attributes the wiki renderer itself writes (html.ts): `RENDERED_HTML` is that allow-list,
// and the one place that says it (test/markup/sanitize.test.ts checks that rendered wiki
// HTML passes through unchanged). Everything else goes: other tags are dropped with their
// text kept, script-like elements with their content, comments, event handlers, styles;
// links and sources pass `safeHref`/`safeSrc`; every text and value is written again
// through `escapeOut`. One scan, linear in the input; no recursion.
import { TOGGLE_MARKS } from './types.js';
import { escapeOut } from './escape.js';
import { safeHref, safeSrc } from './urls.js';

/** What an attribute's value must be: it answers the value to write, or null to drop it. */
type AttrCheck = (value: string) => string | null;

const anyText: AttrCheck = (v) => v;
const integer: AttrCheck = (v) => (/^-?\d{1,9}$/.test(v.trim()) ? v.trim() : null);
const exactly = (...allowed: string[]): AttrCheck => (v) => (allowed.includes(v.trim().toLowerCase()) ? v.trim().toLowerCase() : null);
const CLASS_TOKEN = /^(?:wiki-image|wiki-video|wiki-link|guide-link|missing|(?:align|size|format)-[\w-]{1,40})$/;
const classes: AttrCheck = (v) => v.split(/\s+/).filter((c) => CLASS_TOKEN.test(c)).join(' ') || null;
const relTokens: AttrCheck = (v) => v.split(/\s+/).filter((t) => ['nofollow', 'noopener', 'noreferrer'].includes(t.toLowerCase())).join(' ') || null;
const mediaType: AttrCheck = (v) => (/^[\w.+-]+\/[\w.+-]+$/.test(v.trim()) ? v.trim() : null);
const href: AttrCheck = (v) => safeHref(v);
const src: AttrCheck = (v) => safeSrc(v);

/** The elements the wiki renderer writes, each with the attributes it writes on them. */
export const RENDERED_HTML: Readonly<Record<string, Readonly<Record<string, AttrCheck>>>> = {
  p: {}, h2: {}, h3: {}, h4: {}, h5: {}, h6: {}, pre: {}, code: {}, br: {},
  blockquote: { class: classes }, footer: {}, cite: {},
  ul: {}, ol: { start: integer }, li: {},
  ...Object.fromEntries(Object.values(TOGGLE_MARKS).map((m) => [m.tag, {}])),
  a: { href, title: anyText, class: classes, 'data-guideid': integer, target: exactly('_blank'), rel: relTokens },
  span: { class: classes, 'data-imageid': integer, 'data-videoid': integer, 'data-guideid': integer },
  img: { src, alt: anyText, class: classes, 'data-imageid': integer, width: integer, height: integer, loading: exactly('lazy') },
  video: { class: classes, controls: anyText, preload: exactly('metadata', 'none', 'auto'), 'data-videoid': integer, src, poster: src },
  source: { src, type: mediaType },
};
const VOID = new Set(['br', 'img', 'source']);
/** Elements written only with an attribute (an image without a source is no image). */
const REQUIRED: Record<string, string> = { img: 'src', source: 'src' };
/** Elements dropped with everything in them. */
const DROPPED_WITH_CONTENT = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'template', 'noscript', 'noembed', 'noframes', 'textarea', 'title', 'xmp', 'plaintext', 'svg', 'math', 'select', 'head']);
const MAX_OPEN = 64;

const ENTITY = /&(?:[a-z][a-z\d]{0,31}|#\d{1,7}|#x[\da-f]{1,6});/gi;
/** Text as escapeOut writes it, character references kept as they are. */
function escapeText(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(ENTITY)) {
    out += escapeOut(s.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + escapeOut(s.slice(last));
}

const BASIC: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'' };
/** An attribute value with its numeric and basic named references decoded (what a browser would check). */
function decodeValue(s: string): string {
  return s.replace(/&(?:#(\d{1,7})|#x([\da-f]{1,6})|(amp|lt|gt|quot|apos));?/gi, (all, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return BASIC[name.toLowerCase()];
    const code = dec ? Number(dec) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

const NAME = /[a-z][a-z\d-]*/y;

/** HTML cut down to the rendered wiki HTML's elements and attributes (RENDERED_HTML). */
export function sanitizeHtml(input: string): string {
  const lower = input.toLowerCase();
  const n = input.length;
  const open: string[] = [];
  let out = '';
  let i = 0;
  while (i < n) {
    const lt = input.indexOf('<', i);
    if (lt < 0) {
      out += escapeText(input.slice(i));
      break;
    }
    out += escapeText(input.slice(i, lt));
    i = lt;
    if (lower.startsWith('<!--', i)) {
      const end = input.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    const next = lower[i + 1];
    if (next === '!' || next === '?') {
      const end = input.indexOf('>', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const closing = next === '/';
    NAME.lastIndex = i + (closing ? 2 : 1);
    const m = NAME.exec(lower);
    if (!m) {
      out += '&lt;';
      i++;
      continue;
    }
    const name = m[0];
    const { attrs, end } = readAttributes(input, NAME.lastIndex);
    i = end;
    if (closing) {
      const at = open.lastIndexOf(name);
      if (at >= 0) while (open.length > at) out += `</${open.pop()}>`;
      continue;
    }
    if (DROPPED_WITH_CONTENT.has(name)) {
      const close = lower.indexOf(`</${name}`, i);
      i = close < 0 ? n : (input.indexOf('>', close) + 1 || n);
      continue;
    }
    const allowed = Object.hasOwn(RENDERED_HTML, name) ? RENDERED_HTML[name] : undefined;
    if (!allowed || (!VOID.has(name) && open.length >= MAX_OPEN)) continue;
    let tag = `<${name}`;
    let blank = false;
    let rel: string | null = null;
    let required = !REQUIRED[name];
    for (const [key, raw] of attrs) {
      const check = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
      const value = check ? check(decodeValue(raw)) : null;
      if (value === null) continue;
      if (key === 'rel') { rel = value; continue; }
      if (key === 'target') blank = true;
      if (key === REQUIRED[name]) required = true;
      tag += key === 'controls' ? ' controls' : ` ${key}="${escapeOut(value)}"`;
    }
    // a new window never gets hold of this one (html.ts writes noopener with every target)
    if (name === 'a' && blank && !(rel ?? '').split(' ').includes('noopener')) rel = rel ? `${rel} noopener` : 'noopener';
    if (name === 'a' && rel) tag += ` rel="${escapeOut(rel)}"`;
    if (!required) continue;
    out += `${tag}>`;
    if (!VOID.has(name)) open.push(name);
  }
  while (open.length) out += `</${open.pop()}>`;
  return out;
}

/** The attributes of a tag from `from` (after its name) to its `>`, names lowercased, the first of a name kept; `end` is after the `>`. */
function readAttributes(input: string, from: number): { attrs: Array<[string, string]>; end: number } {
  const attrs: Array<[string, string]> = [];
  const seen = new Set<string>();
  const n = input.length;
  let i = from;
  while (i < n) {
    const c = input[i];
    if (c === '>') return { attrs, end: i + 1 };
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '/') { i++; continue; }
    const start = i;
    while (i < n && !/[\s/>=]/.test(input[i])) i++;
    const key = input.slice(start, i).toLowerCase();
    while (i < n && /\s/.test(input[i])) i++;
    let value = '';
    if (input[i] === '=') {
      i++;
      while (i < n && /\s/.test(input[i])) i++;
      const q = input[i];
      if (q === '"' || q === '\'') {
        const close = input.indexOf(q, i + 1);
        value = input.slice(i + 1, close < 0 ? n : close);
        i = close < 0 ? n : close + 1;
      } else {
        const s = i;
        while (i < n && !/[\s>]/.test(input[i])) i++;
        value = input.slice(s, i);
      }
    }
    if (key && !seen.has(key)) {
      seen.add(key);
      attrs.push([key, value]);
    }
  }
  return { attrs, end: n };
}
