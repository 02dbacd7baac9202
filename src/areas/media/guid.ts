import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A new GUID: 16 random letters and digits (about 95 bits), never all digits, so that a
 * path segment is told apart from a numeric id by its look.
 */
export function newGuid(): string {
  for (;;) {
    const bytes = randomBytes(24);
    let out = '';
    for (const b of bytes) {
      if (b >= 248) continue; // 248 = 4 * 62: keep the choice uniform
      out += ALPHABET[b % 62];
      if (out.length === 16) break;
    }
    if (out.length === 16 && !/^\d+$/.test(out)) return out;
  }
}

export const isGuid = (s: string) => /^[A-Za-z0-9]{16}$/.test(s) && !/^\d+$/.test(s);
