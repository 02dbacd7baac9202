// Moving a site's stored files between backends (`npm run media:migrate -- --to s3|fs`):
// every namespace's files are copied from the store in use to the other one, each checked
// after the copy by reading it back (size and MD5). A file the target already holds with
// the same size and MD5 is skipped, so that a run that stopped goes on where it was. Passes
// repeat until one copies nothing (the site may keep running and storing files meanwhile);
// then the setting to change is printed. Files are never deleted from the source.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { makeStore, NAMESPACES, type BlobStore } from './blob-store.js';
import type { Config, StorageConfig } from '../config.js';

async function digest(stream: Readable | null): Promise<{ size: number; md5: string } | null> {
  if (!stream) return null;
  const hash = createHash('md5');
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { size, md5: hash.digest('hex') };
}

export interface MigrateReport {
  passes: number;
  copied: number;
  checked: number;
}

/** One namespace's pass: answers how many files it copied and how many it looked at. */
async function pass(from: BlobStore, to: BlobStore, name: string, progress: (line: string) => void): Promise<{ copied: number; checked: number }> {
  const keys: Array<{ key: string; size: number }> = [];
  for await (const o of from.list()) keys.push(o);
  let copied = 0;
  let done = 0;
  let lastShown = 0;
  for (const { key, size } of keys) {
    done += 1;
    const theirs = await to.size(key);
    const source = await digest(await from.get(key));
    if (!source) continue; // deleted since the listing
    if (theirs === source.size) {
      const target = await digest(await to.get(key));
      if (target && target.md5 === source.md5) continue;
    }
    const stream = await from.get(key);
    if (!stream) continue;
    await to.put(key, stream);
    const back = await digest(await to.get(key));
    const now = await digest(await from.get(key));
    // A file replaced at the source while it was copied is taken again by the next pass.
    if (!back || !now || back.size !== now.size || back.md5 !== now.md5) {
      if (now && back && now.md5 !== source.md5) continue;
      throw new Error(`${name}/${key}: the copy does not match the source (${back?.size ?? 'missing'} bytes, expected ${size})`);
    }
    copied += 1;
    if (done - lastShown >= 100 || done === keys.length) {
      lastShown = done;
      progress(`${name}: ${done} of ${keys.length} files looked at, ${copied} copied`);
    }
  }
  if (keys.length === 0 || lastShown !== done) progress(`${name}: ${done} of ${keys.length} files looked at, ${copied} copied`);
  return { copied, checked: keys.length };
}

/** Copies every stored file from `from` to `to` (both backends' settings), pass after pass until one copies nothing. */
export async function migrateStorage(config: Pick<Config, 'dataDir'>, from: StorageConfig, to: StorageConfig, progress: (line: string) => void, maxPasses = 20): Promise<MigrateReport> {
  const report: MigrateReport = { passes: 0, copied: 0, checked: 0 };
  for (;;) {
    report.passes += 1;
    let copied = 0;
    for (const ns of NAMESPACES) {
      const r = await pass(makeStore({ dataDir: config.dataDir, storage: from }, ns), makeStore({ dataDir: config.dataDir, storage: to }, ns), ns, (l) => progress(`pass ${report.passes}: ${l}`));
      copied += r.copied;
      report.checked += r.checked;
    }
    report.copied += copied;
    if (copied === 0) return report;
    if (report.passes >= maxPasses) throw new Error(`still copying after ${maxPasses} passes: files keep arriving; run it again when the site is quieter`);
  }
}
