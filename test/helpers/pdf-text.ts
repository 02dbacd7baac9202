// The text of a PDF made by PDFKit, for assertions: its content streams' strings (TJ and
// Tj), decoded through each font's ToUnicode map, one string per text operator, joined by
// newlines. Enough for PDFKit's output (no object streams); not a general PDF reader.
import { inflateSync } from 'node:zlib';

function objects(pdf: Buffer): Map<number, { dict: string; data: Buffer | null }> {
  const s = pdf.toString('latin1');
  const out = new Map<number, { dict: string; data: Buffer | null }>();
  for (const m of s.matchAll(/(\d+) 0 obj\n?/g)) {
    const start = m.index! + m[0].length;
    const end = s.indexOf('endobj', start);
    const streamAt = s.indexOf('stream\n', start);
    if (streamAt >= 0 && streamAt < end) {
      const dict = s.slice(start, streamAt);
      const length = Number(/\/Length (\d+)/.exec(dict)?.[1] ?? 0);
      const raw = pdf.subarray(streamAt + 7, streamAt + 7 + length);
      out.set(Number(m[1]), { dict, data: dict.includes('/FlateDecode') ? inflateSync(raw) : raw });
    } else {
      out.set(Number(m[1]), { dict: s.slice(start, end), data: null });
    }
  }
  return out;
}

/** A ToUnicode CMap as PDFKit writes it (bfrange with arrays, bfchar). */
function cmap(text: string): Map<number, string> {
  const map = new Map<number, string>();
  const hexText = (h: string) => String.fromCharCode(...(h.match(/[0-9a-f]{4}/gi) ?? []).map((x) => parseInt(x, 16)));
  for (const m of text.matchAll(/<([0-9a-f]+)>\s*<([0-9a-f]+)>\s*\[([^\]]*)\]/gi)) {
    const first = parseInt(m[1], 16);
    [...m[3].matchAll(/<([^>]*)>/g)].forEach((e, i) => map.set(first + i, hexText(e[1].replace(/\s/g, ''))));
  }
  for (const m of text.matchAll(/<([0-9a-f]{4})>\s*<([0-9a-f]+)>\s*$/gim)) map.set(parseInt(m[1], 16), hexText(m[2]));
  return map;
}

export function pdfText(pdf: Buffer): string {
  const objs = objects(pdf);
  const fontMaps = new Map<number, Map<number, string>>();
  const fontNames = new Map<string, number>();
  for (const [id, o] of objs) {
    const unicode = /\/ToUnicode (\d+) 0 R/.exec(o.dict);
    if (unicode) fontMaps.set(id, cmap(objs.get(Number(unicode[1]))?.data?.toString('latin1') ?? ''));
    const fonts = /\/Font <<([^>]*)>>/.exec(o.dict);
    if (fonts) for (const f of fonts[1].matchAll(/\/(\S+) (\d+) 0 R/g)) fontNames.set(f[1], Number(f[2]));
  }
  const lines: string[] = [];
  for (const o of objs.values()) {
    const content = o.data?.toString('latin1') ?? '';
    if (!/ Tf\b/.test(content)) continue;
    let current = new Map<number, string>();
    const decode = (hex: string) => (hex.match(/[0-9a-f]{4}/gi) ?? []).map((g) => current.get(parseInt(g, 16)) ?? '').join('');
    for (const m of content.matchAll(/\/(\S+) [\d.]+ Tf|\[([^\]]*)\] TJ|<([0-9a-f]*)> Tj/gi)) {
      if (m[1]) current = fontMaps.get(fontNames.get(m[1]) ?? -1) ?? new Map();
      else if (m[2] !== undefined) lines.push([...m[2].matchAll(/<([0-9a-f]*)>/gi)].map((h) => decode(h[1])).join(''));
      else lines.push(decode(m[3]));
    }
  }
  return lines.join('\n');
}
