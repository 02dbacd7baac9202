// Passwords: scrypt with a random salt (node:crypto; no native add-on needed).
// Stored as `scrypt$<log2N>$<r>$<p>$<salt b64>$<hash b64>` so the cost can change later.
import { randomBytes, scrypt, timingSafeEqual, createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';

const KEY_LEN = 32;

/**
 * Derivations run at once: no more than the cores (each is pure CPU: more at once only
 * share them, and each holds its 32 MB at the default cost), and never all four threads of
 * libuv's pool, which file reads, DNS and zlib's asynchronous deflate (stored records) share.
 * A burst of logins waits its turn here instead of stalling those.
 */
export const DERIVATIONS_AT_ONCE = Math.max(1, Math.min(availableParallelism(), 3));

/** Derivations running and waiting; `peak`, the most ever run at once (tests read it). */
export const derivations = { running: 0, peak: 0, waiting: [] as Array<() => void> };

async function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  // A finished derivation hands its place to the first waiting (running stays as it is), so
  // that a caller arriving meanwhile cannot take it too.
  if (derivations.running < DERIVATIONS_AT_ONCE) derivations.running++;
  else await new Promise<void>((resolve) => derivations.waiting.push(resolve));
  derivations.peak = Math.max(derivations.peak, derivations.running);
  try {
    return await new Promise((resolve, reject) => {
      scrypt(password, salt, KEY_LEN, { N: 2 ** logN, r, p, maxmem: 256 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    const next = derivations.waiting.shift();
    if (next) next();
    else derivations.running--;
  }
}

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, logN, 8, 1);
  return `scrypt$${logN}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, logN, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A fresh random token (32 bytes) and the SHA-256 hash that is all we store of it. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
