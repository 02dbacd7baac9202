// The document tree (ProseMirror JSON, with the node and mark names existing editors of
// this wiki syntax use) and the resolver through which embeds and internal links are
// looked up by the caller. Nothing in src/markup/ reads a database or knows HTTP.

export interface DocMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface DocNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: DocNode[];
  marks?: DocMark[];
  text?: string;
}

/** What a text refers to: image and video embeds, internal guide links. */
export interface MarkupRefs {
  images: number[];
  videos: number[];
  guides: number[];
}

export interface ResolvedImage { src: string; width?: number; height?: number }
export interface ResolvedVideo {
  src: string;
  poster?: string;
  /** Every encoding, in the order the player should try them. */
  sources?: Array<{ src: string; type?: string }>;
}
export interface ResolvedGuide { url: string; title: string }

/** Looks up embeds and internal links; null renders a harmless placeholder. */
export interface MarkupResolver {
  image(id: number, size: string): ResolvedImage | null;
  video(id: number): ResolvedVideo | null;
  guide(id: number): ResolvedGuide | null;
}

export const nullResolver: MarkupResolver = { image: () => null, video: () => null, guide: () => null };

/** Image sizes an `[image|ID|size=...]` embed may ask for (the image object's variants). */
export const IMAGE_SIZES = ['mini', 'thumbnail', 'standard', 'medium', 'large', 'huge', 'original'] as const;
export const IMAGE_ALIGNS = ['left', 'right', 'center'] as const;

/** The toggled (delimiter) marks, their wiki delimiters and HTML elements. */
export const TOGGLE_MARKS = {
  strong: { delim: "'''", tag: 'strong' },
  em: { delim: "''", tag: 'em' },
  underline: { delim: '++', tag: 'u' },
  strikethrough: { delim: '~~', tag: 'del' },
  subscript: { delim: ',,', tag: 'sub' },
  superscript: { delim: '^^', tag: 'sup' },
} as const;
export type ToggleMark = keyof typeof TOGGLE_MARKS;
/** Whether a mark type (which may come from a client's tree: `constructor`, `__proto__`) is a toggled mark. */
export const isToggleMark = (type: string): type is ToggleMark => Object.hasOwn(TOGGLE_MARKS, type);

/** Canonical order of marks on a text node (outermost first when rendered). */
export const MARK_ORDER = ['link', 'strong', 'em', 'underline', 'strikethrough', 'subscript', 'superscript', 'code'] as const;
export const markRank = (type: string) => {
  const i = (MARK_ORDER as readonly string[]).indexOf(type);
  return i < 0 ? MARK_ORDER.length : i;
};
