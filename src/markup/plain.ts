// Plain text of a document, for excerpts and previews: the text of every text node and
// the label of every internal link, blocks and hard breaks as spaces, embeds left out.
// One walk over the tree the linear parser built (no regular expression over the text).
import type { DocNode } from './types.js';
import { step } from './steps.js';

const BLOCKS = new Set(['paragraph', 'heading', 'code_block', 'blockquote', 'bullet_list', 'ordered_list', 'list_item']);

/** The plain text of a tree, white space collapsed, at most `max` characters (cut at a word, with an ellipsis). */
export function plainText(doc: DocNode, max = Number.POSITIVE_INFINITY): string {
  const parts: string[] = [];
  let length = 0;
  const walk = (n: DocNode, depth: number) => {
    step();
    // a little beyond `max` is enough to cut at a word
    if (length > max + 1 || depth > 200) return;
    if (n.type === 'text' && n.text) {
      parts.push(n.text);
      length += n.text.length;
    } else if (n.type === 'internal_link' && typeof n.attrs?.text === 'string') {
      parts.push(n.attrs.text);
      length += n.attrs.text.length;
    } else if (n.type === 'hard_break' || n.type === 'image' || n.type === 'video') parts.push(' ');
    const block = BLOCKS.has(n.type);
    if (block) parts.push(' ');
    for (const c of n.content ?? []) walk(c, depth + 1);
    if (block) parts.push(' ');
  };
  walk(doc, 0);
  const joined = parts.join('');
  step(joined.length);
  const text = joined.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : cut) + '…';
}
