import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  collectRefs, docToWiki, escapeHtml, nullResolver, renderDoc, renderWiki, renderWikiInline, wikiToDoc,
  type DocNode, type MarkupResolver,
} from '../../src/markup/index.js';

const resolver: MarkupResolver = {
  image: (id, size) => (id === 404 ? null : { src: `https://cdn.test/img/${id}.${size}`, width: 800, height: 600 }),
  video: (id) => (id === 404 ? null : { src: `https://cdn.test/vid/${id}.mp4`, poster: `https://cdn.test/vid/${id}.jpg`, sources: [{ src: `https://cdn.test/vid/${id}.mp4`, type: 'video/mp4' }] }),
  guide: (id) => (id === 404 ? null : { url: `https://site.test/Guide/G/${id}`, title: `Guide <${id}>` }),
};

describe('renderWiki: a table of cases', () => {
  const cases: Array<[string, string, string]> = [
    ['plain text', 'Hello world', '<p>Hello world</p>'],
    ['bold', "'''bold'''", '<p><strong>bold</strong></p>'],
    ['italic', "''italic''", '<p><em>italic</em></p>'],
    ['underline', '++under++', '<p><u>under</u></p>'],
    ['subscript', 'H,,2,,O', '<p>H<sub>2</sub>O</p>'],
    ['superscript', 'x^^2^^', '<p>x<sup>2</sup></p>'],
    ['inline code', 'run ``ls -l``', '<p>run <code>ls -l</code></p>'],
    ['code is verbatim', "``'''not bold'''``", '<p><code>&#39;&#39;&#39;not bold&#39;&#39;&#39;</code></p>'],
    ['strikethrough', '~~gone~~', '<p><del>gone</del></p>'],
    ['bold italic', "'''''both'''''", '<p><strong><em>both</em></strong></p>'],
    ['overlapping marks', "'''a ''b''' c''", '<p><strong>a <em>b</em></strong><em> c</em></p>'],
    ['unclosed delimiter stays text', "'''open", '<p>&#39;&#39;&#39;open</p>'],
    ['single quotes are text', "don't", '<p>don&#39;t</p>'],
    ['C++ is not underline', 'C++ and more', '<p>C++ and more</p>'],
    ['external link', '[https://example.com|Example]', '<p><a href="https://example.com" rel="nofollow">Example</a></p>'],
    ['link in a new window', '[https://example.com|Ex|new_window=true]', '<p><a href="https://example.com" target="_blank" rel="nofollow noopener noreferrer">Ex</a></p>'],
    ['link without text', '[https://example.com/a]', '<p><a href="https://example.com/a" rel="nofollow">https://example.com/a</a></p>'],
    ['mailto link', '[mailto:a@b.test|mail]', '<p><a href="mailto:a@b.test">mail</a></p>'],
    ['site-relative link', '[/Wiki/Page|page]', '<p><a href="/Wiki/Page">page</a></p>'],
    ['formatted link text', "[https://e.test|'''bold''' link]", '<p><a href="https://e.test" rel="nofollow"><strong>bold</strong> link</a></p>'],
    ['ftp is not a link', '[ftp://e.test|files]', '<p>[ftp://e.test|files]</p>'],
    ['protocol-relative is not a link', '[//evil.test|x]', '<p>[//evil.test|x]</p>'],
    ['text in brackets', '[not a link]', '<p>[not a link]</p>'],
    ['guide link', '[guide|12]', '<p><a href="https://site.test/Guide/G/12" class="guide-link" data-guideid="12">Guide &lt;12&gt;</a></p>'],
    ['guide link with text', '[guide|12|the guide]', '<p><a href="https://site.test/Guide/G/12" class="guide-link" data-guideid="12">the guide</a></p>'],
    ['unknown guide', '[guide|404]', '<p><span class="guide-link missing" data-guideid="404">Guide 404</span></p>'],
    ['link tag', '[link|/Info/About|About us]', '<p><a href="/Info/About" class="wiki-link">About us</a></p>'],
    ['link tag new window', '[link|https://e.test|E|new_window=true]', '<p><a href="https://e.test" class="wiki-link" target="_blank" rel="nofollow noopener noreferrer">E</a></p>'],
    ['heading 2', '== Tools ==', '<h2>Tools</h2>'],
    ['heading 6', '====== Deep ======', '<h6>Deep</h6>'],
    ['seven = is text', '======= x =======', '<p>&#61;&#61;&#61;&#61;&#61;&#61;&#61; x &#61;&#61;&#61;&#61;&#61;&#61;&#61;</p>'],
    ['heading with marks', "=== ''Note'' ===", '<h3><em>Note</em></h3>'],
    ['bullets', '* one\n* two', '<ul><li>one</li><li>two</li></ul>'],
    ['numbered', '# one\n# two', '<ol><li>one</li><li>two</li></ol>'],
    ['nested bullets', '* a\n** b\n** c\n* d', '<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>'],
    ['bullets in numbers', '# a\n#* b\n# c', '<ol><li>a<ul><li>b</li></ul></li><li>c</li></ol>'],
    ['list then paragraph', '* a\nafter', '<ul><li>a</li></ul><p>after</p>'],
    ['hard break tag', 'a[br]b', '<p>a<br>b</p>'],
    ['newline is a break', 'a\nb', '<p>a<br>b</p>'],
    ['paragraphs', 'a\n\nb', '<p>a</p><p>b</p>'],
    ['code block', '[code]\nif (a < b) {}\n[/code]', '<pre><code>if (a &lt; b) {}</code></pre>'],
    ['code block keeps markup', "[code]\n'''x''' [br]\n[/code]", '<pre><code>&#39;&#39;&#39;x&#39;&#39;&#39; [br]</code></pre>'],
    ['unclosed code block', '[code]\nx', '<p>[code]<br>x</p>'],
    ['quote', '[quote|Ann]\nwise\n[/quote]', '<blockquote><p>wise</p><footer><cite>Ann</cite></footer></blockquote>'],
    ['quote without attribution', '[quote]\nwise\n[/quote]', '<blockquote><p>wise</p></blockquote>'],
    ['nested quotes', '[quote]\n[quote|B]\ninner\n[/quote]\nouter\n[/quote]', '<blockquote><blockquote><p>inner</p><footer><cite>B</cite></footer></blockquote><p>outer</p></blockquote>'],
    ['image embed', '[image|5|align=left|size=medium]', '<p><img src="https://cdn.test/img/5.medium" alt="" class="wiki-image align-left size-medium" data-imageid="5" width="800" height="600" loading="lazy"></p>'],
    ['missing image', '[image|404]', '<p><span class="wiki-image missing" data-imageid="404">Image 404</span></p>'],
    ['bad image id is text', '[image|abc]', '<p>[image|abc]</p>'],
    ['video embed', '[video|7]', '<p><video class="wiki-video" controls preload="metadata" data-videoid="7" poster="https://cdn.test/vid/7.jpg"><source src="https://cdn.test/vid/7.mp4" type="video/mp4"></video></p>'],
    ['missing video', '[video|404]', '<p><span class="wiki-video missing" data-videoid="404">Video 404</span></p>'],
    ['escaped syntax', "\\'\\'\\'not bold\\'\\'\\' \\[br] \\* \\~~", '<p>&#39;&#39;&#39;not bold&#39;&#39;&#39; [br] * ~~</p>'],
    ['one escaped quote leaves two', "\\'''x''", '<p>&#39;<em>x</em></p>'],
    ['backslash before other characters', 'C:\\Users\\me', '<p>C:\\Users\\me</p>'],
    ['html is escaped', '<b>x</b> & "y"', '<p>&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;</p>'],
    ['empty', '', ''],
    ['blank', '  \n\n ', ''],
  ];
  it.each(cases)('%s', (_name, input, html) => {
    expect(renderWiki(input, resolver)).toBe(html);
  });

  it('renders without a resolver: embeds become placeholders', () => {
    expect(renderWiki('[image|5] [guide|3]')).toBe('<p><span class="wiki-image missing" data-imageid="5">Image 5</span> <span class="guide-link missing" data-guideid="3">Guide 3</span></p>');
    expect(renderWiki('x', nullResolver)).toBe('<p>x</p>');
  });

  it('renders a one-line field without its paragraph', () => {
    expect(renderWikiInline("Remove the '''two''' screws", resolver)).toBe('Remove the <strong>two</strong> screws');
    expect(renderWikiInline('a\n\nb', resolver)).toBe('<p>a</p><p>b</p>');
  });

  it('escapeHtml escapes the five characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('wikiToDoc: the document tree', () => {
  it('uses the editor node and mark names', () => {
    const doc = wikiToDoc("== Title ==\n'''b''' ''i'' ++u++ ,,s,, ^^p^^ ``c`` ~~x~~ [https://e.test|l|new_window=true]\n\n# n\n#* b\n\n[code]\nc\n[/code]\n\n[quote|A|format=featured]\nq\n[/quote]\n\n[image|3|align=right|size=large] [video|4] [guide|5|g] [link|/x|y] a[br]b");
    expect(doc.type).toBe('doc');
    const types = new Set<string>();
    const marks = new Set<string>();
    const walk = (n: DocNode) => {
      types.add(n.type);
      n.marks?.forEach((m) => marks.add(m.type));
      n.content?.forEach(walk);
    };
    walk(doc);
    expect([...types].sort()).toEqual(['blockquote', 'bullet_list', 'code_block', 'doc', 'hard_break', 'heading', 'image', 'internal_link', 'list_item', 'ordered_list', 'paragraph', 'text', 'video']);
    expect([...marks].sort()).toEqual(['code', 'em', 'link', 'strikethrough', 'strong', 'subscript', 'superscript', 'underline']);
    expect(doc.content![0]).toEqual({ type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Title' }] });
    const quote = doc.content!.find((n) => n.type === 'blockquote')!;
    expect(quote.attrs).toEqual({ format: 'featured', attribute: { type: 'paragraph', content: [{ type: 'text', text: 'A' }] } });
    const list = doc.content!.find((n) => n.type === 'ordered_list')!;
    expect(list.attrs).toEqual({ order: 1 });
    expect(list.content![0].content![1].type).toBe('bullet_list');
  });

  it('gives image, video and internal link nodes their attributes', () => {
    const doc = wikiToDoc('[image|3|align=right|size=large][video|4][guide|5|g][link|/x|y|new_window=true]', resolver);
    expect(doc.content![0].content).toEqual([
      { type: 'image', attrs: { imageid: 3, src: 'https://cdn.test/img/3.large', size: 'large', align: 'right' } },
      { type: 'video', attrs: { videoid: 4 } },
      { type: 'internal_link', attrs: { kind: 'guide', target: '5', text: 'g', new_window: false } },
      { type: 'internal_link', attrs: { kind: 'link', target: '/x', text: 'y', new_window: true } },
    ]);
  });

  it('gives a link mark href, title and target', () => {
    const doc = wikiToDoc('[https://e.test|x]');
    expect(doc.content![0].content![0]).toEqual({ type: 'text', text: 'x', marks: [{ type: 'link', attrs: { href: 'https://e.test', title: null, target: null } }] });
  });

  it('an empty text is a document with one empty paragraph', () => {
    expect(wikiToDoc('')).toEqual({ type: 'doc', content: [{ type: 'paragraph' }] });
    expect(docToWiki(wikiToDoc(''))).toBe('');
  });
});

describe('collectRefs', () => {
  it('lists each embedded image, video and linked guide once', () => {
    expect(collectRefs('[image|3] [image|3|size=large] [video|9] [guide|4] [guide|4|again] [https://e.test|x] [image|x]')).toEqual({ images: [3], videos: [9], guides: [4] });
  });
  it('finds references in lists, headings and quotes, not in code', () => {
    expect(collectRefs('== [guide|1] ==\n* [image|2]\n[quote]\n[video|3]\n[/quote]\n[code]\n[image|9]\n[/code]')).toEqual({ images: [2], videos: [3], guides: [1] });
  });
});

describe('round trips wiki -> doc -> wiki', () => {
  // Canonical texts come back exactly.
  const canonical = [
    "'''bold''' ''italic'' ++under++ ,,sub,, ^^sup^^ ``code`` ~~strike~~",
    "'''''bold italic''''' and '''bold ''both''''' ''x''",
    '== Heading two ==\n\n=== Heading three ===\n\n====== Six ======',
    '* one\n** one.one\n### numbered\n* two\n\n# first\n# second',
    '[https://example.com|a link] [https://e.test/x?a=b|new|new_window=true] [mailto:x@y.test|mail] [/Wiki/Page|relative]',
    '[guide|12] [guide|13|Named] [link|/Info/About|About] [link|https://e.test|E|new_window=true]',
    '[image|5|align=left|size=medium] [image|6] [video|7]',
    '[code]\nline one\n  indented [br] \'\'\'kept\'\'\'\n[/code]',
    '[quote|Ann Author]\nwise words\n\n* with a list\n[/quote]',
    'line one[br]\nline two',
    'C\\+\\+ costs 5\\$ \\[not a tag] don\'t',
    '\\* not a list\n\n\\# not numbered\n\n\\== not a heading ==',
    "[https://e.test|'''bold''' inside]",
  ];
  it.each(canonical)('%j comes back unchanged', (text) => {
    expect(docToWiki(wikiToDoc(text))).toBe(text);
  });

  // Other spellings come back in canonical form, with the same tree.
  const normalized: Array<[string, string]> = [
    ['a\nb', 'a[br]\nb'],
    ['a[br]b', 'a[br]\nb'],
    ['  padded  ', 'padded'],
    ['* one\n*# two', '* one\n## two'],
    ['*   spaced', '* spaced'],
    ['[https://e.test]', '[https://e.test|https://e.test]'],
    ['[CODE]\nx\n[/CODE]', '[code]\nx\n[/code]'],
    ['C++ one', 'C\\+\\+ one'],
    ['[quote|A]x[/quote]', '[quote|A]\nx\n[/quote]'],
  ];
  it.each(normalized)('%j becomes %j', (input, output) => {
    expect(docToWiki(wikiToDoc(input))).toBe(output);
    expect(wikiToDoc(output)).toEqual(wikiToDoc(input));
  });

  it('any text: the tree survives a round trip and the output is a fixpoint (property)', () => {
    const atoms = ["'", "''", "'''", '+', '++', ',,', '^^', '~~', '`', '``', '[', ']', '|', '*', '#', '=', '==', '\\', '\\\\', '\n', '\n\n', ' ', 'a', 'bc', 'é',
      '[br]', '[code]', '[/code]', '[quote|Ann]', '[quote]', '[/quote]', '[guide|1]', '[guide|2|txt]', '[image|2|size=large]', '[video|3]',
      '[http://x.test|', '[https://e.test/a|b]', '[link|/a|', 'new_window=true', '* ', '# ', '** ', '== ', ' ==', '[javascript:x|y]'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...atoms), { maxLength: 40 }).map((a) => a.join('')), (text) => {
      const doc = wikiToDoc(text);
      const wiki = docToWiki(doc);
      expect(wikiToDoc(wiki)).toEqual(doc);
      expect(docToWiki(wikiToDoc(wiki))).toBe(wiki);
    }), { numRuns: 3000, seed: 20261122 });
  });

  it('any canonical tree: doc -> wiki -> doc gives it back (property)', () => {
    const toggles = ['strong', 'em', 'underline', 'strikethrough', 'subscript', 'superscript'];
    const chars = fc.constantFrom(..."ab '+,^~`[]|*#=\\<>&\"x".split(''));
    const textArb = fc.array(chars, { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
    const link = fc.constantFrom(null, 'https://e.test/a', '/rel');
    const textNode = fc.record({ text: textArb, marks: fc.subarray(toggles), code: fc.boolean(), link });
    const inline = fc.array(fc.oneof({ weight: 5, arbitrary: textNode }, { weight: 1, arbitrary: fc.constant('br' as const) }), { minLength: 1, maxLength: 6 });
    const toNodes = (items: Array<(typeof textNode extends fc.Arbitrary<infer T> ? T : never) | 'br'>): DocNode[] => {
      const out: DocNode[] = [];
      for (const it of items) {
        if (it === 'br') {
          out.push({ type: 'hard_break' });
          continue;
        }
        const marks: NonNullable<DocNode['marks']> = [];
        if (it.link) marks.push({ type: 'link', attrs: { href: it.link, title: null, target: null } });
        for (const t of toggles) if (it.marks.includes(t)) marks.push({ type: t });
        if (it.code) marks.push({ type: 'code' });
        const prev = out[out.length - 1];
        if (prev?.type === 'text' && JSON.stringify(prev.marks ?? []) === JSON.stringify(marks)) prev.text += it.text;
        else out.push(marks.length ? { type: 'text', text: it.text, marks } : { type: 'text', text: it.text });
      }
      return out;
    };
    // A paragraph is trimmed (as the editor writes it) and one that is only white space
    // would be a blank line: keep a visible character at both ends.
    const para = inline.map((items) => ({ type: 'paragraph', content: [{ type: 'text', text: '.' }, ...toNodes(items), { type: 'text', text: '.' }] }));
    fc.assert(fc.property(fc.array(para, { minLength: 1, maxLength: 3 }), (paras) => {
      // adjacent texts with equal marks are one node in a canonical tree
      const doc: DocNode = { type: 'doc', content: paras.map((p) => ({ ...p, content: merge(p.content as DocNode[]) })) };
      expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
    }), { numRuns: 2000, seed: 7 });
    function merge(nodes: DocNode[]): DocNode[] {
      const out: DocNode[] = [];
      for (const n of nodes) {
        const prev = out[out.length - 1];
        if (prev?.type === 'text' && n.type === 'text' && JSON.stringify(prev.marks ?? []) === JSON.stringify(n.marks ?? [])) prev.text = (prev.text ?? '') + (n.text ?? '');
        else out.push({ ...n });
      }
      return out;
    }
  });

  it('normalizes what the syntax cannot say', () => {
    const doc: DocNode = {
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 1 }, content: [{ type: 'text', text: 'Top' }] },
        { type: 'ordered_list', attrs: { order: 3 }, content: [{ type: 'list_item', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'a' }] }, { type: 'paragraph', content: [{ type: 'text', text: 'b' }] }] }] },
        { type: 'paragraph' },
        { type: 'paragraph', content: [{ type: 'text', text: 'x\ny' }] },
      ],
    };
    expect(docToWiki(doc)).toBe('== Top ==\n\n# a[br][br]b\n\nx[br]\ny');
  });
});

describe('renderDoc on a tree from a client', () => {
  it('re-checks links and attributes', () => {
    const doc: DocNode = {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [
          { type: 'text', text: 'x', marks: [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }, { type: 'onclick' }] },
          { type: 'image', attrs: { imageid: '5"><script>', align: 'left" onload="x', size: 'huge' } },
          { type: 'internal_link', attrs: { kind: 'link', target: 'data:text/html,<script>', text: 'd' } },
        ] },
        { type: 'heading', attrs: { level: 99 }, content: [{ type: 'text', text: 'h' }] },
        { type: 'blockquote', attrs: { format: '"><script>', attribute: '<img onerror=x>' }, content: [] },
        { type: 'ordered_list', attrs: { order: '2" onclick="x' }, content: [] },
      ],
    };
    const html = renderDoc(doc, resolver);
    expect(html).toBe('<p>xd</p><h6>h</h6><blockquote><footer><cite>&lt;img onerror&#61;x&gt;</cite></footer></blockquote><ol></ol>');
  });
});
