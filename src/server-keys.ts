// Random keys the server keeps beside its data when the operator sets none: one file per
// purpose in DATA_DIR, made on first use, readable only by the server's user, and the same
// for every process that shares the folder (the first to write it wins; the others read it).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The 32-byte key in `dataDir/fileName`, created when missing. `minLength`: shorter
 * content is refused (a truncated or hand-edited file), with `hint` telling what to do.
 */
export function keyFromDataDir(dataDir: string, fileName: string, minLength: number, hint: string): Buffer {
  const file = join(dataDir, fileName);
  const read = () => Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  let key: Buffer;
  try {
    key = read();
  } catch {
    key = randomBytes(32);
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, key.toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch {
      key = read(); // Another process wrote it first: use theirs.
    }
  }
  if (key.length < minLength) throw new Error(`${file} holds no usable key; ${hint}`);
  return key;
}
