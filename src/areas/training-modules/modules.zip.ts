// Safe unpacking of SCORM packages with yauzl. Two stages:
// - `scanPackage` reads only the central directory: names (no absolute path, no `..`, no
//   backslash or drive letter), no symlink, no encryption, declared sizes within the total,
//   each large entry's and the whole package's compression ratio, the number of entries,
//   and `imsmanifest.xml` at the root. A refusal here (`PackageRefused`) stores nothing.
// - `unpackPackage` inflates every entry to a directory of its own, counting the bytes as
//   they come (yauzl's validateEntrySizes stops an entry that inflates beyond what it
//   declared); what only inflating reveals throws an ordinary error that ends the import.
import { randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { BlobStore } from '../../storage/blob-store.js';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { declaresEntities } from './modules.manifest.js';

export interface PackageLimits {
  moduleMaxUnpackedBytes: number;
  moduleMaxFiles: number;
  moduleMaxRatio: number;
}

/** The package is refused on what its central directory shows (422; nothing stored). */
export class PackageRefused extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'PackageRefused';
  }
}

export interface ScannedEntry {
  name: string;
  size: number;
  compressed: number;
  directory: boolean;
}

export interface ScannedPackage {
  entries: ScannedEntry[];
  totalBytes: number;
  fileCount: number;
}

export const MANIFEST = 'imsmanifest.xml';
const RATIO_FLOOR = 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** A relative path inside the package, or null when it could leave it. */
export function safeEntryName(name: string): string | null {
  if (!name || name.length > 1024 || name.includes('\\') || name.includes('\0')) return null;
  if (name.startsWith('/') || (name.length > 1 && name[1] === ':')) return null;
  const parts = name.split('/');
  for (const [i, part] of parts.entries()) {
    if (part === '..' || part === '.') return null;
    if (part === '' && i !== parts.length - 1) return null;
  }
  return name;
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((res, rej) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true }, (err, zip) => (err ? rej(err) : res(zip)));
  });
}

/** Every entry of the central directory, in order; `each` may throw to stop. */
async function walkEntries(zip: ZipFile, each: (entry: Entry) => Promise<void> | void): Promise<void> {
  await new Promise<void>((res, rej) => {
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      rej(err);
    };
    zip.on('error', fail);
    zip.on('end', () => { if (!failed) res(); });
    zip.on('entry', (entry: Entry) => {
      Promise.resolve().then(() => each(entry)).then(() => { if (!failed) zip.readEntry(); }, fail);
    });
    zip.readEntry();
  });
}

/** The manifest's size up to which the upload reads it (the import job refuses a larger one). */
const MANIFEST_SCAN_BYTES = 1024 * 1024;

/** One entry's bytes (its declared size is checked by yauzl: `validateEntrySizes`). */
async function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const stream = await new Promise<NodeJS.ReadableStream>((res, rej) => zip.openReadStream(entry, (err, s) => (err ? rej(err) : res(s))));
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads the central directory (and the manifest) and refuses what they show to be unsafe. */
export async function scanPackage(path: string, limits: PackageLimits): Promise<ScannedPackage> {
  let zip: ZipFile;
  try {
    zip = await openZip(path);
  } catch (err) {
    throw new PackageRefused('not_a_zip', `The package is not a readable zip file (${(err as Error).message}).`);
  }
  try {
    if (zip.entryCount > limits.moduleMaxFiles) throw new PackageRefused('too_many_files', `The package holds ${zip.entryCount} entries; at most ${limits.moduleMaxFiles} are accepted.`);
    const entries: ScannedEntry[] = [];
    let totalBytes = 0;
    let totalCompressed = 0;
    try {
      await walkEntries(zip, async (entry) => {
        const name = safeEntryName(entry.fileName);
        if (name === null) throw new PackageRefused('unsafe_path', `The entry "${entry.fileName.slice(0, 200)}" would be written outside the package.`);
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (mode === S_IFLNK) throw new PackageRefused('symlink', `The entry "${name}" is a symbolic link.`);
        if (entry.isEncrypted()) throw new PackageRefused('encrypted', `The entry "${name}" is encrypted.`);
        totalBytes += entry.uncompressedSize;
        totalCompressed += entry.compressedSize;
        if (totalBytes > limits.moduleMaxUnpackedBytes) throw new PackageRefused('too_large', `The package unpacks to more than ${limits.moduleMaxUnpackedBytes} bytes.`);
        if (entry.uncompressedSize > RATIO_FLOOR && entry.uncompressedSize > limits.moduleMaxRatio * Math.max(1, entry.compressedSize)) {
          throw new PackageRefused('compression_ratio', `The entry "${name}" declares a compression ratio above ${limits.moduleMaxRatio}.`);
        }
        entries.push({ name, size: entry.uncompressedSize, compressed: entry.compressedSize, directory: name.endsWith('/') });
        // Refused here, at the upload, rather than by the import job.
        if (name === MANIFEST && entry.uncompressedSize <= MANIFEST_SCAN_BYTES && declaresEntities((await readEntry(zip, entry)).toString('utf8'))) {
          throw new PackageRefused('manifest_entities', `${MANIFEST} declares entities in its DOCTYPE; a manifest may not.`);
        }
      });
    } catch (err) {
      if (err instanceof PackageRefused) throw err;
      const message = (err as Error).message;
      if (['invalid relative path', 'absolute path', 'invalid characters in fileName'].some((m) => message.includes(m))) throw new PackageRefused('unsafe_path', `An entry would be written outside the package (${message}).`);
      throw new PackageRefused('bad_zip', `The package's directory is invalid (${(err as Error).message}).`);
    }
    if (totalBytes > RATIO_FLOOR && totalBytes > limits.moduleMaxRatio * Math.max(1, totalCompressed)) {
      throw new PackageRefused('compression_ratio', `The package declares a compression ratio above ${limits.moduleMaxRatio}.`);
    }
    if (!entries.some((e) => e.name === MANIFEST)) throw new PackageRefused('missing_manifest', `The package has no ${MANIFEST} at its root.`);
    return { entries, totalBytes, fileCount: entries.filter((e) => !e.directory).length };
  } finally {
    zip.close();
  }
}

/**
 * Inflates every entry into `store` under `prefix/` (a folder's entry stores nothing). `progress(done, total)` is called after each file and
 * may throw to stop (a cancelled import). Answers the manifest's text.
 */
export async function unpackPackage(path: string, store: BlobStore, prefix: string, limits: PackageLimits & { manifestMaxBytes: number }, progress: (done: number, total: number) => Promise<void>): Promise<string> {
  const zip = await openZip(path);
  let written = 0;
  let done = 0;
  let manifest: Buffer | null = null;
  try {
    const total = zip.entryCount;
    await walkEntries(zip, async (entry) => {
      const name = safeEntryName(entry.fileName);
      if (name === null) throw new Error(`The entry "${entry.fileName.slice(0, 200)}" would be written outside the package.`);
      if (!name.endsWith('/')) {
        const stream = await new Promise<NodeJS.ReadableStream>((res, rej) => zip.openReadStream(entry, (err, s) => (err ? rej(err) : res(s))));
        const chunks: Buffer[] = [];
        const isManifest = name === MANIFEST;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, cb) {
            written += chunk.length;
            if (written > limits.moduleMaxUnpackedBytes) return cb(new Error(`The package inflates to more than ${limits.moduleMaxUnpackedBytes} bytes.`));
            if (isManifest) {
              chunks.push(chunk);
              if (chunks.reduce((n, c) => n + c.length, 0) > limits.manifestMaxBytes) return cb(new Error(`${MANIFEST} is larger than ${limits.manifestMaxBytes} bytes.`));
            }
            cb(null, chunk);
          },
        });
        (stream as Readable).on('error', (e) => counter.destroy(e));
        // put() may await (the filesystem store makes the folder) before its pipeline listens:
        // an error meanwhile stays on the destroyed stream, which that pipeline then reports,
        // instead of being thrown as an uncaught exception.
        counter.on('error', () => {});
        await store.put(`${prefix}/${name}`, (stream as Readable).pipe(counter));
        if (isManifest) manifest = Buffer.concat(chunks);
      }
      done += 1;
      await progress(done, total);
    });
  } finally {
    zip.close();
  }
  if (!manifest) throw new Error(`The package has no ${MANIFEST} at its root.`);
  return (manifest as Buffer).toString('utf8');
}

/** Where an import's files are, in the `modules` store (DATA_DIR/modules/<importid>/ on fs, as before). */
export const importPrefix = (importid: number) => String(importid);
/** Where a downloaded package (a URL import) waits between its download and its unpacking, in the `modules` store; an upload's before this change too. */
export const stagedKey = (importid: number) => `staged/${importid}.zip`;
/**
 * Where an uploaded package waits, in the `modules` store: a key of one start's own (racing
 * starts of one import each put theirs, outside the start's transaction; the winner's is
 * named in the import job's payload, the losers delete theirs: modules.service.ts).
 */
export const uploadStagedKey = (importid: number) => `staged/${importid}-${randomBytes(8).toString('hex')}.zip`;

/** What a key of the `modules` store is, and its import; null: not a key this area makes. */
export function moduleKeyOwner(key: string): { kind: 'staged' | 'unpacked'; importid: number } | null {
  const staged = /^staged\/(\d{1,15})\.zip$/.exec(key);
  if (staged && key === stagedKey(Number(staged[1]))) return { kind: 'staged', importid: Number(staged[1]) };
  // An upload's own staged key (uploadStagedKey): the import id, then its random part.
  const upload = /^staged\/(\d{1,15})-[0-9a-f]{16}\.zip$/.exec(key);
  if (upload) return { kind: 'staged', importid: Number(upload[1]) };
  const first = key.split('/')[0];
  // Read back through the builders, so that the scheme is written once.
  if (/^\d{1,15}$/.test(first) && key.length > first.length + 1 && importPrefix(Number(first)) === first) return { kind: 'unpacked', importid: Number(first) };
  return null;
}
