// Password derivations (scrypt, http/passwords.ts) take turns: no more at once than the
// cores, and never all of libuv's thread pool, which the server's file reads and zlib's
// asynchronous deflate (stored records) share. A burst of logins queues there instead of
// stalling those, and holds at most that many derivations' memory (32 MB each).
import { deflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DERIVATIONS_AT_ONCE, derivations, hashPassword, verifyPassword } from '../../src/http/passwords.js';

describe('password derivations', () => {
  it('run at most DERIVATIONS_AT_ONCE at a time, each answering right, and leave a thread of the pool free: a deflate started behind eight finishes before the first of them', async () => {
    expect(DERIVATIONS_AT_ONCE).toBeGreaterThanOrEqual(1);
    expect(DERIVATIONS_AT_ONCE).toBeLessThanOrEqual(3);
    derivations.peak = 0;
    const order: string[] = [];
    const passwords = Array.from({ length: 8 }, (_, i) => `password number ${i}`);
    // The production cost: each derivation long enough (tens of ms) for the deflate to need a free thread.
    const hashing = passwords.map((p, i) => hashPassword(p, 15).then((h) => { order.push(`hash ${i}`); return h; }));
    const deflated = promisify(deflateRaw)(Buffer.from('a record to store'.repeat(100))).then(() => order.push('deflate'));
    const hashes = await Promise.all(hashing);
    await deflated;
    expect(order[0]).toBe('deflate');
    expect(derivations.peak).toBe(Math.min(DERIVATIONS_AT_ONCE, passwords.length));
    expect(derivations.running).toBe(0);
    expect(derivations.waiting).toHaveLength(0);
    // Each hash is its own password's, checked again through the same turns.
    const checks = await Promise.all(hashes.map((h, i) => Promise.all([verifyPassword(passwords[i], h), verifyPassword(passwords[(i + 1) % 8], h)])));
    expect(checks).toEqual(passwords.map(() => [true, false]));
    expect(derivations.peak).toBe(Math.min(DERIVATIONS_AT_ONCE, passwords.length));
  }, 60_000);

  it('a derivation that fails gives its turn back', async () => {
    derivations.peak = 0;
    // N = 2^40 asks for more memory than maxmem allows: scrypt refuses at once.
    const failing = Array.from({ length: 6 }, () => verifyPassword('x', 'scrypt$40$8$1$c2FsdA==$aGFzaA==').then(() => 'answered', () => 'refused'));
    expect(await Promise.all(failing)).toEqual(Array(6).fill('refused'));
    expect(derivations.running).toBe(0);
    expect(derivations.waiting).toHaveLength(0);
    expect(await verifyPassword('after', await hashPassword('after', 10))).toBe(true);
  });
});
