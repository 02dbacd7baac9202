// Hostile inputs: whatever the text, the HTML holds no script element, no event-handler
// attribute and no javascript: (or other script) URL; only known elements and attributes,
// properly nested.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { collectDocRefs, docToWiki, renderDoc, renderDocInline, renderWiki, wikiToDoc, type DocNode, type MarkupResolver } from '../../src/markup/index.js';

const resolver: MarkupResolver = {
  image: (id) => ({ src: `https://cdn.test/${id}.jpg` }),
  video: (id) => ({ src: `https://cdn.test/${id}.mp4`, sources: [{ src: `https://cdn.test/${id}.mp4`, type: 'video/mp4' }] }),
  guide: (id) => ({ url: `https://site.test/Guide/x/${id}`, title: `<script>alert(${id})</script>" onclick="x` }),
};
// A resolver whose answers are themselves hostile: the renderer must not trust them.
const evilResolver: MarkupResolver = {
  image: () => ({ src: 'javascript:alert(1)' }),
  video: () => ({ src: 'data:text/html,<script>alert(1)</script>', poster: '" onerror="alert(1)' }),
  guide: () => ({ url: 'javascript:alert(1)', title: '<img src=x onerror=alert(1)>' }),
};

const ELEMENTS = new Set(['p', 'br', 'strong', 'em', 'u', 'sub', 'sup', 'code', 'del', 'a', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'footer', 'cite', 'ul', 'ol', 'li', 'img', 'video', 'source', 'span']);
const VOID = new Set(['br', 'img', 'source']);
const ATTRIBUTES = new Set(['href', 'rel', 'target', 'title', 'class', 'src', 'alt', 'width', 'height', 'loading', 'controls', 'preload', 'poster', 'type', 'start', 'data-imageid', 'data-videoid', 'data-guideid']);
const URL_ATTRIBUTES = new Set(['href', 'src', 'poster']);

function decode(v: string): string {
  return v.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Checks the HTML as a browser would see it; returns the problems found. */
function audit(html: string): string[] {
  const problems: string[] = [];
  const lower = html.toLowerCase();
  if (lower.includes('<script')) problems.push('<script');
  if (/javascript:/i.test(html)) problems.push('javascript: in the HTML');
  if (/\son[a-z]+\s*=/i.test(html)) problems.push('on...= in the HTML');
  const stack: string[] = [];
  let i = 0;
  while ((i = html.indexOf('<', i)) >= 0) {
    const close = /^<\/([a-z0-9]+)>/.exec(html.slice(i));
    if (close) {
      if (stack.pop() !== close[1]) problems.push(`misnested </${close[1]}>`);
      i += close[0].length;
      continue;
    }
    const open = /^<([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)>/.exec(html.slice(i));
    if (!open) {
      problems.push(`stray < at ${i}: ${html.slice(i, i + 30)}`);
      i++;
      continue;
    }
    const [, name, attrs] = open;
    if (!ELEMENTS.has(name)) problems.push(`element ${name}`);
    for (const m of attrs.matchAll(/\s+([a-z-]+)(?:="([^"]*)")?/g)) {
      const attr = m[1];
      if (!ATTRIBUTES.has(attr) || attr.startsWith('on')) problems.push(`attribute ${attr} on ${name}`);
      const value = decode(m[2] ?? '');
      if (URL_ATTRIBUTES.has(attr)) {
        // eslint-disable-next-line no-control-regex
        const compact = value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
        if (!/^(https?:\/\/|mailto:|\/(?![/\\]))/.test(compact)) problems.push(`${attr}="${value}"`);
        if (/script:|data:/.test(compact)) problems.push(`${attr}="${value}"`);
      }
    }
    if (!VOID.has(name)) stack.push(name);
    i += open[0].length;
  }
  if (stack.length) problems.push(`unclosed ${stack.join(',')}`);
  return problems;
}

const hostile: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.test/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(1)>',
  '"><script>alert(1)</script>',
  "'><img src=x onerror=alert(1)>",
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<style>*{}</style><link rel=stylesheet href=//evil.test>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  'javascript:alert(1)',
  'onclick=alert(1) onmouseover = alert(1)',
  '[javascript:alert(1)|click]',
  '[JavaScript:alert(1)|click]',
  '[ javascript:alert(1)|click]',
  '[java\tscript:alert(1)|tab]',
  '[java\nscript:alert(1)|newline]',
  '[java&#115;cript:alert(1)|entity]',
  '[data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==|data]',
  '[vbscript:msgbox(1)|vb]',
  '[//evil.test/x|protocol relative]',
  '[/\\evil.test|backslash]',
  '[https://e.test" onclick="alert(1)|quote in href]',
  '[https://e.test/"><script>alert(1)</script>|break out]',
  '[https://e.test/?q=javascript:alert(1)|query]',
  '[mailto:javascript:alert(1)|mailto]',
  '[http://e.test\u0000javascript:alert(1)|nul]',
  '[https://e.test|<img src=x onerror=alert(1)>]',
  '[https://e.test|[javascript:alert(1)|nested]]',
  '[https://e.test|x|new_window=true" onclick="y]',
  '[link|javascript:alert(1)|x]',
  '[link|JAVASCRIPT:alert(1)]',
  '[link|https://e.test" onmouseover="alert(1)|x]',
  '[guide|1" onmouseover="alert(1)]',
  '[guide|1|<script>alert(1)</script>]',
  '[guide|1|" onclick="alert(1)]',
  '[image|1" onerror="alert(1)]',
  '[image|1|align=left" onload="alert(1)|size=medium]',
  '[image|1|size=<script>]',
  '[video|1" onplay="alert(1)]',
  '[quote|<script>alert(1)</script>]\nx\n[/quote]',
  '[quote|a|format=x" onclick="y]\nq\n[/quote]',
  '[code]\n</code></pre><script>alert(1)</script>\n[/code]',
  "''<script>''alert(1)''</script>''",
  "'''<b onclick=x>'''",
  '== <script>alert(1)</script> ==',
  '* <iframe src=javascript:alert(1)>\n** <object data=javascript:alert(1)>',
  '``<script>alert(1)</script>``',
  '[https://e.test|x]\u2028<script>alert(1)</script>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '[https://e.test|``]`` onclick=x``]',
  '\\[javascript:alert(1)|escaped]',
  '[[javascript:alert(1)|double]]',
  // hostile in size and nesting: no crash, no runaway
  '['.repeat(20000),
  "'''".repeat(5000) + 'x',
  '[https://e.test|'.repeat(3000),
  '[https://e.test|x]'.repeat(2000),
  '*'.repeat(500) + ' deep',
  '[quote]\n'.repeat(300) + 'x' + '\n[/quote]'.repeat(300),
  '[code]\n'.repeat(2000),
  '``'.repeat(10000),
  '\\'.repeat(10001) + "'''x'''",
];

describe('hostile inputs', () => {
  it('there are at least 30', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
  });

  it.each(hostile.map((h) => [h.length > 80 ? h.slice(0, 60) + `... (${h.length} chars)` : h, h]))('%j renders safely', (_label, input) => {
    for (const r of [resolver, evilResolver]) {
      expect(audit(renderWiki(input, r))).toEqual([]);
    }
    // and survives the round trip through the tree
    const doc = wikiToDoc(input);
    expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
  });

  it('the audit itself catches what it must', () => {
    expect(audit('<p onclick="x">a</p>')).not.toEqual([]);
    expect(audit('<a href="javascript:alert(1)">a</a>')).not.toEqual([]);
    expect(audit('<a href="java&#115;cript&#58;x">a</a>')).not.toEqual([]);
    expect(audit('<script>x</script>')).not.toEqual([]);
    expect(audit('<p><em>a</p></em>')).not.toEqual([]);
    expect(audit('<p>a</p>')).toEqual([]);
  });

  it('a hostile tree from a client renders safely too', () => {
    const doc: DocNode = {
      type: 'doc',
      content: [
        { type: 'script', content: [{ type: 'text', text: '<script>alert(1)</script>' }] },
        { type: 'paragraph', attrs: { onclick: 'x' }, content: [
          { type: 'text', text: 'a', marks: [{ type: 'link', attrs: { href: ' javascript:alert(1)', title: '" onclick="x', target: '_blank' } }] },
          { type: 'text', text: 'b', marks: [{ type: 'link', attrs: { href: 'https://e.test', title: '"><script>x</script>' } }] },
          { type: 'video', attrs: { videoid: 1 } },
          { type: 'image', attrs: { imageid: 2, src: 'javascript:alert(1)' } },
        ] },
        { type: 'code_block', content: [{ type: 'text', text: '</code><script>x</script>' }] },
      ],
    };
    expect(audit(renderDoc(doc, resolver))).toEqual([]);
    expect(audit(renderDoc(doc, evilResolver))).toEqual([]);
  });

  it('random syntax soup renders safely (property)', () => {
    const atoms = ['<', '>', '"', "'", '&', '=', 'on', 'click', 'javascript', ':', 'script', 'data', '[', ']', '|', '`', '``', "''", "'''", '\\', '\n', ' ',
      '[https://e.test|', '[link|', '[guide|1|', '[image|2|', 'align=left', 'size=huge', '[quote|', '[/quote]', '[code]', '[/code]', 'new_window=true', '/', '//', 'x'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...atoms), { maxLength: 60 }).map((a) => a.join('')), (text) => {
      expect(audit(renderWiki(text, resolver))).toEqual([]);
    }), { numRuns: 3000, seed: 42 });
  });

  it('any JSON as a tree: serializing and rendering never throw, and the HTML is safe (property)', () => {
    const node = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.anything(),
        fc.record({
          type: fc.constantFrom('doc', 'paragraph', 'text', 'heading', 'image', 'video', 'internal_link', 'bullet_list', 'list_item', 'blockquote', 'code_block', 'hard_break', 'script', 'ordered_list'),
          text: fc.oneof(fc.string(), fc.integer()),
          attrs: fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom('level', 'imageid', 'videoid', 'kind', 'target', 'href', 'text', 'src', 'align', 'size', 'order', 'format', 'attribute'), fc.oneof(fc.string(), fc.integer(), fc.constant('javascript:alert(1)')))),
          marks: fc.oneof(fc.anything(), fc.array(fc.record({ type: fc.constantFrom('strong', 'link', 'code', 'em', 'onclick'), attrs: fc.anything() }))),
          content: fc.oneof(fc.anything(), fc.array(tie('node'), { maxLength: 4 })),
        }, { requiredKeys: ['type'] }),
      ),
    })).node;
    fc.assert(fc.property(node, (doc) => {
      const wiki = docToWiki(doc as DocNode);
      expect(typeof wiki).toBe('string');
      expect(audit(renderDoc(doc as DocNode, resolver))).toEqual([]);
      expect(audit(renderDocInline(doc as DocNode, resolver))).toEqual([]);
      collectDocRefs(doc as DocNode);
      // what the tree says in wiki syntax is stable from then on
      expect(docToWiki(wikiToDoc(wiki))).toBe(docToWiki(wikiToDoc(docToWiki(wikiToDoc(wiki)))));
    }), { numRuns: 2000, seed: 5 });
  });
});
