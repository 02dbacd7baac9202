// Wiki syntax and the document tree as the platform's ProseMirror editor defines them
// (issue 11, item 7): what the editor reads from a text, and what it writes for a tree.
import { describe, expect, it } from 'vitest';
import { docToWiki, renderWiki, wikiToDoc, type DocNode } from '../../src/markup/index.js';

const para = (...content: DocNode[]): DocNode => ({ type: 'paragraph', content });
const text = (t: string, ...marks: string[]): DocNode => (marks.length ? { type: 'text', text: t, marks: marks.map((type) => ({ type })) } : { type: 'text', text: t });
const item = (t: string, ...nested: DocNode[]): DocNode => ({ type: 'list_item', content: [para(text(t)), ...nested] });
const bullets = (...items: DocNode[]): DocNode => ({ type: 'bullet_list', content: items });
const numbered = (...items: DocNode[]): DocNode => ({ type: 'ordered_list', attrs: { order: 1 }, content: items });
const blocks = (wiki: string) => wikiToDoc(wiki).content!;

describe('wiki -> tree, as the editor reads it', () => {
  it('[br] followed by a newline is one hard_break', () => {
    expect(blocks('a[br]\nb')).toEqual([para(text('a'), { type: 'hard_break' }, text('b'))]);
    expect(blocks('a[br]b')).toEqual(blocks('a[br]\nb'));
    expect(blocks('a[br]\n\nb')).toEqual([para(text('a'), { type: 'hard_break' }), para(text('b'))]);
    expect(blocks('a[br][br]\nb')).toEqual([para(text('a'), { type: 'hard_break' }, { type: 'hard_break' }, text('b'))]);
  });

  it('quotes: format long by default, the attribution a paragraph with its marks, format= sets the format', () => {
    expect(blocks('[quote]\nq\n[/quote]')).toEqual([{ type: 'blockquote', attrs: { format: 'long', attribute: null }, content: [para(text('q'))] }]);
    expect(blocks("[quote|Some ''rich'' name]\nq\n[/quote]")[0].attrs).toEqual({ format: 'long', attribute: para(text('Some '), text('rich', 'em'), text(' name')) });
    expect(blocks('[quote|format=featured]\nq\n[/quote]')[0].attrs).toEqual({ format: 'featured', attribute: null });
    expect(blocks("[quote|'''Ann'''|format=short]\nq\n[/quote]")[0].attrs).toEqual({ format: 'short', attribute: para(text('Ann', 'strong')) });
  });

  it('list depth is the number of markers, the type the last one', () => {
    expect(blocks('# First\n** Nested')).toEqual([numbered(item('First', bullets(item('Nested'))))]);
    expect(blocks('# First\n#* Nested\n# Second')).toEqual([numbered(item('First', bullets(item('Nested'))), item('Second'))]);
    expect(blocks('* a\n## b\n** c')).toEqual([bullets(item('a', numbered(item('b')), bullets(item('c'))))]);
    expect(blocks('* a\n# b')).toEqual([bullets(item('a')), numbered(item('b'))]);
  });

  it('runs of more than five apostrophes close and reopen marks', () => {
    expect(blocks("'''this''is'''''''text'''''with styles'''")).toEqual([para(
      text('this', 'strong'), text('is', 'strong', 'em'), text('text', 'em'), text('with styles', 'strong'),
    )]);
    expect(renderWiki("'''this''is'''''''text'''''with styles'''")).toBe('<p><strong>this<em>is</em></strong><em>text</em><strong>with styles</strong></p>');
    expect(blocks("'''''both''''' ''''four")).toEqual([para(text('both', 'strong', 'em'), text(" ''''four"))]);
  });

  it('paragraph text is trimmed', () => {
    expect(blocks('   padded text   \n\n next')).toEqual([para(text('padded text')), para(text('next'))]);
  });
});

describe('tree -> wiki, as the editor writes it', () => {
  it('marks properly nested: the last opened closes first', () => {
    const doc: DocNode = { type: 'doc', content: [para(text('this', 'strong'), text('is', 'strong', 'em'), text('text', 'em'), text('with styles', 'strong'))] };
    expect(docToWiki(doc)).toBe("'''this''is'''''''text'''''with styles'''");
    expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
    const nested: DocNode = { type: 'doc', content: [para(text('a', 'em'), text('b', 'strong', 'em'), text('c', 'em'))] };
    expect(docToWiki(nested)).toBe("''a'''b'''c''");
    expect(wikiToDoc(docToWiki(nested))).toEqual(nested);
  });

  it('a hard break is [br] and a newline; text after it that would start a block is escaped', () => {
    const doc: DocNode = { type: 'doc', content: [para(text('a'), { type: 'hard_break' }, text('* not a list'), { type: 'hard_break' }, text('== nor a heading =='))] };
    expect(docToWiki(doc)).toBe('a[br]\n\\* not a list[br]\n\\== nor a heading ==');
    expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
  });

  it('paragraph text trimmed', () => {
    expect(docToWiki({ type: 'doc', content: [para(text('  x  ')), para(text(' '), { type: 'hard_break' }, text('y '))] })).toBe('x\n\n[br]\ny');
  });

  it('** for a bullet list inside a numbered item', () => {
    const doc: DocNode = { type: 'doc', content: [numbered(item('First', bullets(item('Nested', numbered(item('Deep'))))), item('Second'))] };
    expect(docToWiki(doc)).toBe('# First\n** Nested\n### Deep\n# Second');
    expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
  });

  it('the attribution from its paragraph node, no |format=long, never null', () => {
    const quote = (attrs: Record<string, unknown>): DocNode => ({ type: 'doc', content: [{ type: 'blockquote', attrs, content: [para(text('q'))] }] });
    expect(docToWiki(quote({ format: 'long', attribute: para(text('Some '), text('rich', 'em'), text(' name')) }))).toBe("[quote|Some ''rich'' name]\nq\n[/quote]");
    expect(docToWiki(quote({ format: 'long', attribute: null }))).toBe('[quote]\nq\n[/quote]');
    expect(docToWiki(quote({ format: null, attribute: null }))).toBe('[quote]\nq\n[/quote]');
    expect(docToWiki(quote({ format: 'featured', attribute: para(text('A|B]=C')) }))).toBe('[quote|A\\|B\\]\\=C|format=featured]\nq\n[/quote]');
    expect(docToWiki(quote({ format: 'long', attribute: 'Plain' }))).toBe('[quote|Plain]\nq\n[/quote]');
    for (const attrs of [{ format: 'featured', attribute: para(text('A|B]=C')) }, { format: 'long', attribute: para(text('x', 'strong'), text(' y')) }]) {
      const doc = quote(attrs);
      expect(wikiToDoc(docToWiki(doc))).toEqual(doc);
    }
    expect(docToWiki(quote({ format: null, attribute: null }))).not.toContain('null');
  });

  it('renders the attribution with its marks; the default format has no class', () => {
    expect(renderWiki("[quote|Some ''rich'' name]\nq\n[/quote]")).toBe('<blockquote><p>q</p><footer><cite>Some <em>rich</em> name</cite></footer></blockquote>');
    expect(renderWiki('[quote|format=featured]\nq\n[/quote]')).toBe('<blockquote class="format-featured"><p>q</p></blockquote>');
  });
});
