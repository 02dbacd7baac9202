// Where media files live. Areas talk to the `BlobStore` interface only, so an object
// store (S3-compatible) can replace the filesystem without touching the routes.
// Keys are relative paths such as `originals/<guid>` or `variants/<guid>/large`.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';

export interface BlobRange { start: number; end: number }

export interface BlobStore {
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
   * A local file holding the blob, for tools that need a path (sharp, ffmpeg). The
   * filesystem store hands its own file; a remote store downloads to a temporary one.
   * Call `release()` when done.
   */
  localFile(key: string): Promise<{ path: string; release(): Promise<void> } | null>;
}

function checkKey(key: string) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(key)) throw new Error(`invalid blob key: ${key}`);
}

/** Files under a root folder (by default `<DATA_DIR>/media`). */
export class FileBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    checkKey(key);
    const p = join(this.root, ...key.split('/'));
    if (!p.startsWith(this.root + sep)) throw new Error(`invalid blob key: ${key}`);
    return p;
  }

  async put(key: string, source: Readable | AsyncIterable<Buffer>): Promise<number> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    const out = createWriteStream(tmp);
    try {
      await pipeline(source, out);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return out.bytesWritten;
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    await this.put(key, Readable.from([data]));
  }

  async get(key: string, range?: BlobRange): Promise<Readable | null> {
    const p = this.path(key);
    if ((await this.size(key)) === null) return null;
    return createReadStream(p, range ? { start: range.start, end: range.end } : undefined);
  }

  async size(key: string): Promise<number | null> {
    try {
      const s = await stat(this.path(key));
      return s.isFile() ? s.size : null;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.path(prefix), { recursive: true, force: true });
  }

  async localFile(key: string) {
    if ((await this.size(key)) === null) return null;
    return { path: this.path(key), release: async () => {} };
  }
}

const stores = new WeakMap<Config, BlobStore>();

/** The configured store (one per config object; the filesystem store keeps no state). */
export function blobStoreFor(config: Config): BlobStore {
  let store = stores.get(config);
  if (!store) {
    store = new FileBlobStore(join(config.dataDir, 'media'));
    stores.set(config, store);
  }
  return store;
}
