// What every storage backend offers (blob-store.ts: the filesystem and the factory;
// s3-store.ts: S3-compatible buckets), and what a key may be.
import type { Readable } from 'node:stream';
export interface BlobRange { start: number; end: number }

/** A stored blob as `list` answers it: `modified` in UNIX seconds. */
export interface ListedBlob { key: string; size: number; modified: number }

/** How a presigned URL's answer is labelled (the bucket answers with these headers). */
export interface PresignOptions {
  expiresIn: number;
  contentType: string;
  contentDisposition?: string;
  /** When the URL is signed (the app's clock); it works from then for `expiresIn` seconds. */
  signedAt: number;
}

export interface BlobStore {
  /** The backend, for messages and the migration: `fs` or `s3`. */
  readonly kind: 'fs' | 's3';
  /** Streams `source` into `key` (replacing it atomically); answers the bytes written. */
  put(key: string, source: Readable | AsyncIterable<Buffer>): Promise<number>;
  putBuffer(key: string, data: Buffer): Promise<void>;
  /** The blob's bytes (or a range of them, inclusive), or null when there is none. */
  get(key: string, range?: BlobRange): Promise<Readable | null>;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Deletes every key under `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Every key (under `prefix/` when given) with its size and when it was last written
   * (`modified`, UNIX seconds), in no particular order. Writes in progress are not listed
   * (the filesystem's temporary files, a bucket's unfinished multipart uploads).
   */
  list(prefix?: string): AsyncIterable<ListedBlob>;
  /**
   * Removes what writes that never finished left behind (a process killed during `put`)
   * and was last touched before `before` (UNIX seconds); answers how many (with `dryRun`:
   * how many it would remove). The filesystem's temporary files; a bucket answers 0 (its
   * unfinished multipart uploads are the bucket's lifecycle rule's, docs/deployment.md).
   */
  removeUnfinished(before: number, options?: { dryRun?: boolean }): Promise<number>;
  /**
   * A local file holding the blob, for tools that need a path (sharp, ffmpeg, unzip). The
   * filesystem store hands its own file; a remote store downloads to a temporary one
   * under DATA_DIR/tmp. Call `release()` when done.
   */
  localFile(key: string): Promise<{ path: string; release(): Promise<void> } | null>;
  /** A URL that answers the blob without the app (a bucket's presigned URL); null: this store has none. */
  presignedUrl(key: string, options: PresignOptions): Promise<string | null>;
}

/**
 * A key is a relative path of non-empty segments: no `.` or `..` segment, no backslash, no
 * control character, so that it names the same file in a folder as in a bucket.
 */
export function checkKey(key: string) {
  // eslint-disable-next-line no-control-regex
  const bad = key.length === 0 || key.length > 900 || /[\\\x00-\x1f\x7f]/.test(key) || key.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw new Error(`invalid blob key: ${key.slice(0, 200)}`);
}

