// Where media files are served, and the signatures that let a browser load one that is
// not public. An <img> or <video> sends no API token, so every file URL the API hands out
// carries `?exp=<unix seconds>&sig=<HMAC>`: proof that the server gave this URL, until
// `exp`, to someone allowed to read the item. The files route serves a signed URL until
// it expires, and an item that public content shows with or without a signature.
//
// `exp` is rounded up to a window of MEDIA_URL_TTL seconds (two windows ahead), so that
// a URL stays the same within a window (browsers cache it, records stay byte-stable) and
// works for at least MEDIA_URL_TTL seconds, at most twice that. The key is MEDIA_URL_SECRET
// (its text, or the bytes of its import form `base64url:...`: server-keys.ts) or, when unset,
// a random key kept in DATA_DIR/media-url.key (the same for every process sharing the data
// folder). Times come from the app's clock.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { KEY_FILES, keyFromDataDir, keyFromSetting } from '../../server-keys.js';
import type { Config } from '../../config.js';
import { systemClock, type Clock } from '../../clock.js';

export type FileKind = 'images' | 'videos' | 'documents';

const clocks = new WeakMap<Config, Clock>();
const keys = new WeakMap<Config, Buffer>();

/** The clock signatures are made and checked with (the app's; set when the app is built). */
export function useMediaClock(config: Config, clock: Clock): void {
  clocks.set(config, clock);
}

const previous = new WeakMap<Config, { key: Buffer; until: number }>();

/**
 * MEDIA_URL_SECRET_PREVIOUS after a change of the key (node-keys.ts): URLs it signed still
 * verify while they could have been handed out before the change, that is with an `exp` of
 * at most `until` (the change's time plus two URL lifetimes).
 */
export function acceptPreviousMediaKey(config: Config, until: number): void {
  if (config.mediaUrlSecretPrevious) previous.set(config, { key: keyFromSetting('MEDIA_URL_SECRET_PREVIOUS', config.mediaUrlSecretPrevious), until });
}

/** The key media URLs are signed with (node-keys.ts keeps its fingerprint). */
export function mediaUrlKey(config: Config): Buffer {
  return keyFor(config);
}

function keyFor(config: Config): Buffer {
  let key = keys.get(config);
  if (key) return key;
  if (config.mediaUrlSecret) {
    key = keyFromSetting('MEDIA_URL_SECRET', config.mediaUrlSecret);
  } else {
    key = keyFromDataDir(config.dataDir, KEY_FILES.MEDIA_URL_SECRET, 16, 'delete it to make a new one.');
  }
  keys.set(config, key);
  return key;
}

function mac(config: Config, kind: FileKind, guid: string, exp: number, key = keyFor(config)): string {
  return createHmac('sha256', key).update(`${kind}/${guid}/${exp}`).digest('base64url').slice(0, 32);
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const nowOf = (config: Config) => (clocks.get(config) ?? systemClock).now();

/** `?exp=&sig=` for an item's files: the same for every file of the item within a window. */
export function signature(config: Config, kind: FileKind, guid: string): string {
  const ttl = config.mediaUrlTtl;
  const exp = (Math.floor(nowOf(config) / ttl) + 2) * ttl;
  return `?exp=${exp}&sig=${mac(config, kind, guid, exp)}`;
}

/** The seconds a signature has left (0: none, wrong or expired). */
export function signatureLife(config: Config, kind: FileKind, guid: string, exp: unknown, sig: unknown): number {
  if (typeof exp !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(exp) || sig.length !== 32) return 0;
  const left = Number(exp) - nowOf(config);
  if (left <= 0) return 0;
  if (sameText(sig, mac(config, kind, guid, Number(exp)))) return left;
  const before = previous.get(config);
  return before && Number(exp) <= before.until && sameText(sig, mac(config, kind, guid, Number(exp), before.key)) ? left : 0;
}

const signerIds = new WeakMap<Config, string>();

/**
 * Names the key URLs are signed with, without revealing it: bytes that carry signed URLs
 * and are kept where another process may read them (stored guide records) are valid only
 * for processes that sign with the same key.
 */
export function signerId(config: Config): string {
  let id = signerIds.get(config);
  if (!id) {
    id = createHash('sha256').update('signer id:').update(keyFor(config)).digest('base64url').slice(0, 16);
    signerIds.set(config, id);
  }
  return id;
}

/** Where a size variant of an image is served, signed. */
export function imageVariantUrl(config: Config, guid: string, variant: string): string {
  return imageVariantUrls(config, guid, [variant])[variant];
}

/** Where each size variant of an image is served: one signature for all of them (it is the item's). */
export function imageVariantUrls<V extends string>(config: Config, guid: string, variants: readonly V[]): Record<V, string> {
  const base = `${config.publicUrl}/files/images/${guid}.`;
  const sig = signature(config, 'images', guid);
  const out = {} as Record<V, string>;
  for (const v of variants) out[v] = `${base}${v}${sig}`;
  return out;
}

/** Where a video encoding (`mp4`, `webm`) or the original (`original`) is served, signed. */
export function videoFileUrl(config: Config, guid: string, name: string): string {
  return `${config.publicUrl}/files/videos/${guid}.${name}${signature(config, 'videos', guid)}`;
}

/** Where a document is served, signed. */
export function documentFileUrl(config: Config, guid: string): string {
  return `${config.publicUrl}/files/documents/${guid}.pdf${signature(config, 'documents', guid)}`;
}
