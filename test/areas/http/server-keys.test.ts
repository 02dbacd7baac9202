// The server's own keys in DATA_DIR: made once, then read back by every caller (another
// process sharing the folder included), and a damaged file refused rather than used.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyFromDataDir } from '../../../src/server-keys.js';

const dir = mkdtempSync(join(tmpdir(), 'server-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('keyFromDataDir', () => {
  it('creates a 32-byte key readable only by its owner, and answers the same key afterwards', () => {
    const first = keyFromDataDir(join(dir, 'data'), 'a.key', 32, 'delete it.');
    expect(first.length).toBe(32);
    expect(statSync(join(dir, 'data', 'a.key')).mode & 0o777).toBe(0o600);
    expect(keyFromDataDir(join(dir, 'data'), 'a.key', 32, 'delete it.').equals(first)).toBe(true);
    expect(Buffer.from(readFileSync(join(dir, 'data', 'a.key'), 'utf8'), 'base64url').equals(first)).toBe(true);
  });

  it('keeps one key per purpose', () => {
    const a = keyFromDataDir(dir, 'one.key', 16, 'x');
    const b = keyFromDataDir(dir, 'two.key', 16, 'x');
    expect(a.equals(b)).toBe(false);
  });

  it('refuses a file too short to be a key, naming the file and what to do', () => {
    writeFileSync(join(dir, 'short.key'), Buffer.from('abc').toString('base64url'));
    expect(() => keyFromDataDir(dir, 'short.key', 16, 'delete it to make a new one.')).toThrow(/short\.key holds no usable key; delete it to make a new one\./);
  });
});
