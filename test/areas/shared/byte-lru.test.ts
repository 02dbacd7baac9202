// The process cache's LRU of bytes (areas/shared/byte-cache.ts): bounded by bytes, and
// what a lower level (stored records) offers is kept only the second time in a while.
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../../src/areas/shared/byte-cache.js';

const bytes = (n: number) => Buffer.alloc(n, 'x');

describe('ByteLru', () => {
  it('keeps bytes up to its size, dropping the least recently used first', () => {
    const lru = new ByteLru(1000, 60);
    lru.set('a', 1, 0, 0, bytes(200));
    lru.set('b', 1, 0, 0, bytes(200));
    expect(lru.get('a', 1, 0, 0)).toBeDefined(); // a is now the most recent
    lru.set('c', 1, 0, 0, bytes(200));
    lru.set('d', 1, 0, 0, bytes(200));
    lru.set('e', 1, 0, 0, bytes(200));
    lru.set('f', 1, 0, 0, bytes(200));
    expect(lru.entries).toBe(5);
    expect(lru.get('b', 1, 0, 0)).toBeUndefined();
    expect(lru.get('a', 1, 0, 0)).toBeDefined();
    // Bytes larger than a quarter of it are answered, not kept.
    lru.set('big', 1, 0, 0, bytes(300));
    expect(lru.get('big', 1, 0, 0)).toBeUndefined();
    // So are bytes it is told not to keep, with their tag.
    const answered = lru.set('once', 1, 0, 0, bytes(10), null, false);
    expect(answered.etag).toMatch(/^W\/"/);
    expect(lru.get('once', 1, 0, 0)).toBeUndefined();
  });

  it('admits bytes from a lower level the third time they are offered, or when it holds the key already', () => {
    const lru = new ByteLru(1000, 60);
    expect(lru.admitsFromBelow('g1')).toBe(false);
    expect(lru.admitsFromBelow('g2')).toBe(false);
    expect(lru.admitsFromBelow('g1')).toBe(false);
    expect(lru.admitsFromBelow('g1')).toBe(true);
    // Admitted once: the next offers start over, unless the entry is there (a stale one).
    expect(lru.admitsFromBelow('g1')).toBe(false);
    expect(lru.admitsFromBelow('g1')).toBe(false);
    expect(lru.admitsFromBelow('g1')).toBe(true);
    lru.set('g3', 1, 0, 0, bytes(10));
    expect(lru.admitsFromBelow('g3')).toBe(true);
    // Cleared with the rest.
    lru.clear();
    expect(lru.admitsFromBelow('g2')).toBe(false);
  });

  it('remembers a bounded number of keys offered, forgetting the oldest', () => {
    const lru = new ByteLru(1000, 60);
    for (let i = 0; i <= 16_384; i++) expect(lru.admitsFromBelow(`k${i}`)).toBe(false);
    // k0 was pushed out by the 16 385th key: its offers count from one again.
    expect(lru.admitsFromBelow('k0')).toBe(false);
    expect(lru.admitsFromBelow('k0')).toBe(false);
    expect(lru.admitsFromBelow('k0')).toBe(true);
    // k2 is still remembered, offered once: its third offer is admitted.
    expect(lru.admitsFromBelow('k2')).toBe(false);
    expect(lru.admitsFromBelow('k2')).toBe(true);
  });
});
