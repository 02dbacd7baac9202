// Where the media area's files are, in the `media` store: the one place that names the
// keys. Rows name a GUID (every kind) and the key of their upload (`blob_key`); the
// image variants and the video encodings are found from the GUID.
//   originals/<guid>            an upload (image, video, document), an edit's result, a video's poster
//   variants/<guid>/<variant>   an image's size variant, made on its first request
//   videos/<guid>/<format>      a video's encoding (mp4, webm)
// `mediaKeyOwner` reads a key back: it answers only what the builders make.
import { isGuid } from './guid.js';

export const originalKey = (guid: string) => `originals/${guid}`;
/** Every variant of an image: what its deletion purges. */
export const variantPrefix = (guid: string) => `variants/${guid}`;
export const variantKey = (guid: string, variant: string) => `${variantPrefix(guid)}/${variant}`;
/** Every encoding of a video: what its deletion purges. */
export const encodingPrefix = (guid: string) => `videos/${guid}`;
export const encodingKey = (guid: string, format: string) => `${encodingPrefix(guid)}/${format}`;

export type MediaKeyKind = 'original' | 'variant' | 'encoding';

/** What a key of the `media` store is, and the GUID of the row it belongs to; null: not a key this area makes. */
export function mediaKeyOwner(key: string): { kind: MediaKeyKind; guid: string } | null {
  const [, guid, rest] = /^[a-z]+\/([^/]+)(?:\/([^/]+))?$/.exec(key) ?? [];
  if (!guid || !isGuid(guid)) return null;
  // Read back through the builders, so that the scheme is written once.
  if (rest === undefined) return key === originalKey(guid) ? { kind: 'original', guid } : null;
  if (key === variantKey(guid, rest)) return { kind: 'variant', guid };
  if (key === encodingKey(guid, rest)) return { kind: 'encoding', guid };
  return null;
}
