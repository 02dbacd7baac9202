// Random keys the server keeps beside its data when the operator sets none: one file per
// purpose in DATA_DIR, made on first use, readable only by the server's user, and the same
// for every process that shares the folder (the first to write it wins; the others read it).
//
// The import form: a key setting whose value is `base64url:<bytes>` gives those exact bytes
// (canonical base64url, at least NODE_KEY_MIN_BYTES of them), which is what a key file holds:
// a file's content, prefixed, is the same key as the file (`npm run keys:export` prints them),
// so a node whose keys were generated can carry them into settings. Any other value of a key
// setting is a text whose UTF-8 bytes are the key (as before).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key file each node key is generated into when its setting is unset. */
export const KEY_FILES = {
  MEDIA_URL_SECRET: 'media-url.key',
  WEBHOOK_SECRETS_KEY: 'webhook-secrets.key',
  AUDIT_CHAIN_KEY: 'audit-chain.key',
} as const;

export const IMPORT_PREFIX = 'base64url:';

/** The fewest bytes a key in the import form may have. */
export const IMPORT_MIN_BYTES = 32;

/**
 * The exact length a setting's key must have in the import form, when its use fixes one:
 * the webhook key (and a new one for keys:rotate) is an AES-256 key, used as it is, as its
 * file holds it (its text form is hashed to 32 bytes instead).
 */
const exactBytesOf = (name: string): number | undefined => (name === 'WEBHOOK_SECRETS_KEY' || name === 'WEBHOOK_SECRETS_KEY_NEW' ? 32 : undefined);

/** Whether a key setting's value is in the import form (`base64url:<bytes>`). */
export const isImportForm = (value: string): boolean => value.trim().startsWith(IMPORT_PREFIX);

/**
 * What is wrong with the value of the key setting `name` in the import form, as "what is
 * allowed: why not"; null when it is right or not in that form.
 */
export function importFormProblem(name: string, value: string): string | null {
  if (!isImportForm(value)) return null;
  const exactBytes = exactBytesOf(name);
  const text = value.trim().slice(IMPORT_PREFIX.length);
  const allowed = `${IMPORT_PREFIX} followed by ${exactBytes ? `exactly ${exactBytes}` : `at least ${IMPORT_MIN_BYTES}`} bytes in canonical base64url (A-Z a-z 0-9 - _, no padding; as npm run keys:export prints them)`;
  const bytes = Buffer.from(text, 'base64url');
  if (!/^[A-Za-z0-9_-]*$/.test(text) || bytes.toString('base64url') !== text) return `${allowed}: this value is not canonical base64url`;
  if (exactBytes ? bytes.length !== exactBytes : bytes.length < IMPORT_MIN_BYTES) return `${allowed}: this value decodes to ${bytes.length} bytes`;
  return null;
}

/**
 * The key bytes a key setting's value gives: the decoded bytes of the import form, else
 * the text's UTF-8 bytes. A wrong import form throws, naming `name` (the start refuses it
 * before: config.rules.ts).
 */
export function keyFromSetting(name: string, value: string): Buffer {
  if (!isImportForm(value)) return Buffer.from(value, 'utf8');
  const problem = importFormProblem(name, value);
  if (problem) throw new Error(`${name} must be ${problem}`);
  return Buffer.from(value.trim().slice(IMPORT_PREFIX.length), 'base64url');
}

/**
 * The 32-byte key in `dataDir/fileName`, created when missing. `minLength`: shorter
 * content is refused (a truncated or hand-edited file), with `hint` telling what to do.
 */
export function keyFromDataDir(dataDir: string, fileName: string, minLength: number, hint: string): Buffer {
  const file = join(dataDir, fileName);
  let key: Buffer;
  try {
    key = readKeyFile(file);
  } catch {
    key = randomBytes(32);
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, key.toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch {
      key = readKeyFile(file); // Another process wrote it first: use theirs.
    }
  }
  if (key.length < minLength) throw new Error(`${file} holds no usable key; ${hint}`);
  return key;
}

const readKeyFile = (file: string) => Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');

/** One node key as `npm run keys:export` finds it: its setting's import form, or why there is none. */
export type ExportedKey = { name: keyof typeof KEY_FILES; file: string } & ({ value: string } | { missing: true } | { problem: string });

/**
 * The node keys generated into `dataDir`, each as the value of its setting in the import
 * form (the same key bytes the server reads from the file). Reads only: a missing file is
 * not made.
 */
export function exportedKeys(dataDir: string): ExportedKey[] {
  return (Object.entries(KEY_FILES) as Array<[keyof typeof KEY_FILES, string]>).map(([name, fileName]) => {
    const file = join(dataDir, fileName);
    let key: Buffer;
    try {
      key = readKeyFile(file);
    } catch {
      return { name, file, missing: true as const };
    }
    const value = `${IMPORT_PREFIX}${key.toString('base64url')}`;
    const exact = exactBytesOf(name);
    return importFormProblem(name, value)
      ? { name, file, problem: `${file} holds ${key.length} bytes, not a key ${name} accepts (${exact ? `exactly ${exact}` : `at least ${IMPORT_MIN_BYTES}`} bytes)` }
      : { name, file, value };
  });
}
