// A document tree from a client (contents_json) may be any JSON: this keeps only what
// has the shape of a node (type string, attrs object of plain values or nodes, content
// array of nodes, marks array of {type, attrs}, text string), to a bounded depth, so that serializing or
// rendering it can never throw.
import type { DocMark, DocNode } from './types.js';

const MAX_DEPTH = 100;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Attribute values: null, strings, numbers, booleans, and nodes (a quote's attribution paragraph). */
function attrsOf(v: unknown, depth: number): Record<string, unknown> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || ['string', 'number', 'boolean'].includes(typeof x)) out[k] = x;
    else if (isObject(x) && depth < MAX_DEPTH) {
      const node = normalizeNode(x, depth + 1);
      if (node) out[k] = node;
    }
  }
  return out;
}

function markOf(v: unknown): DocMark | null {
  if (!isObject(v) || typeof v.type !== 'string') return null;
  const attrs = attrsOf(v.attrs, MAX_DEPTH);
  return attrs ? { type: v.type, attrs } : { type: v.type };
}

export function normalizeNode(v: unknown, depth = 0): DocNode | null {
  if (!isObject(v) || typeof v.type !== 'string') return null;
  const node: DocNode = { type: v.type };
  const attrs = attrsOf(v.attrs, depth);
  if (attrs) node.attrs = attrs;
  if (typeof v.text === 'string') node.text = v.text;
  if (Array.isArray(v.marks)) node.marks = v.marks.map(markOf).filter((m): m is DocMark => m !== null);
  if (Array.isArray(v.content) && depth < MAX_DEPTH) node.content = v.content.map((c) => normalizeNode(c, depth + 1)).filter((c): c is DocNode => c !== null);
  return node;
}

/** Any JSON -> a document (an empty one when it is not a node at all). */
export function normalizeDoc(v: unknown): DocNode {
  return normalizeNode(v) ?? { type: 'doc', content: [] };
}
