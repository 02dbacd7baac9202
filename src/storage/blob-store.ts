// Where stored files live. Areas talk to the `BlobStore` interface only: the filesystem
// (MEDIA_STORAGE=fs, under DATA_DIR) or an S3-compatible bucket (MEDIA_STORAGE=s3,
// s3-store.ts). A store is one namespace: `media` (originals, image variants, video
// encodings and posters, documents) or `modules` (SCORM packages, staged and unpacked).
// On the filesystem a namespace is the folder DATA_DIR/<namespace>; in a bucket it is
// the key prefix S3_PREFIX + <namespace>/. Keys are relative paths such as
// `originals/<guid>`, `variants/<guid>/large` or `12/shared/launch.html`.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { S3BlobStore } from './s3-store.js';
import { checkKey, type BlobRange, type BlobStore, type ListedBlob } from './blob.js';

export type { BlobRange, BlobStore, ListedBlob, PresignOptions } from './blob.js';
export { checkKey } from './blob.js';

export type Namespace = 'media' | 'modules';
export const NAMESPACES: readonly Namespace[] = ['media', 'modules'];

const TEMP_MARK = '.tmp-';

/** Files under a root folder (DATA_DIR/<namespace>). */
export class FileBlobStore implements BlobStore {
  readonly kind = 'fs' as const;
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
    const tmp = `${target}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
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

  /** The files under `dir`: the blobs, or (`unfinished`) only the temporary files of writes in progress. */
  private async *walk(dir: string, unfinished: boolean): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) yield* this.walk(full, unfinished);
      else if (e.isFile() && e.name.includes(TEMP_MARK) === unfinished) yield full;
    }
  }

  async *list(prefix?: string): AsyncIterable<ListedBlob> {
    for await (const full of this.walk(prefix ? this.path(prefix) : this.root, false)) {
      const s = await stat(full).catch(() => null);
      if (s) yield { key: relative(this.root, full).split(sep).join('/'), size: s.size, modified: Math.floor(s.mtimeMs / 1000) };
    }
  }

  /** Temporary files of `put`s whose process died (a live `put` writes to its file all along). */
  async removeUnfinished(before: number, options: { dryRun?: boolean } = {}): Promise<number> {
    let n = 0;
    for await (const full of this.walk(this.root, true)) {
      const s = await stat(full).catch(() => null);
      if (!s || s.mtimeMs / 1000 >= before) continue;
      n++;
      if (!options.dryRun) await rm(full, { force: true });
    }
    return n;
  }

  async localFile(key: string) {
    if ((await this.size(key)) === null) return null;
    return { path: this.path(key), release: async () => {} };
  }

  async presignedUrl(): Promise<string | null> {
    return null;
  }
}

/** Where a node keeps its temporary files (downloads of remote blobs among them). */
export const tempDir = (config: Pick<Config, 'dataDir'>, ...parts: string[]) => join(config.dataDir, 'tmp', ...parts);

/** A store of `namespace` on the backend `storage` names (the migration builds both kinds). */
export function makeStore(config: Pick<Config, 'dataDir' | 'storage'>, namespace: Namespace): BlobStore {
  const s = config.storage;
  if (s.kind === 'fs') return new FileBlobStore(join(config.dataDir, namespace));
  return new S3BlobStore(s, `${s.prefix}${namespace}/`, tempDir(config, 'blobs'));
}

const stores = new WeakMap<Config, Map<Namespace, BlobStore>>();

/** The configured store of a namespace (one per config object and namespace). */
export function blobStoreFor(config: Config, namespace: Namespace = 'media'): BlobStore {
  let byName = stores.get(config);
  if (!byName) stores.set(config, (byName = new Map()));
  let store = byName.get(namespace);
  if (!store) byName.set(namespace, (store = makeStore(config, namespace)));
  return store;
}
