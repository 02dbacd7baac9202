// A stored record inflated into a lent buffer (stored-bytes.ts `lendUnpacked`): the same bytes
// as `unpackRecord`, refused (undefined: the caller inflates as before) whenever anything is
// not as stored, and the buffers given back reused without ever mixing two records.
import { deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { lendUnpacked, lentRecords, unpackRecord } from '../../../src/areas/shared/stored-bytes.js';

/** A record of `n` bytes of JSON, different for each `seed`. */
function record(seed: number, n = 30_000): Buffer {
  const parts: string[] = [];
  for (let i = 0; parts.join(',').length < n - 40; i++) parts.push(JSON.stringify({ stepid: seed * 1000 + i, text: `Step ${i} of record ${seed}: loosen screw ${(i * 7919 + seed) % 101}` }));
  return Buffer.from(`[${parts.join(',')}]`);
}

describe('stored records inflated into lent buffers', () => {
  it('lends the bytes unpackRecord gives, and a buffer given back serves the next record without keeping anything of the last', () => {
    const records = Array.from({ length: 40 }, (_, i) => record(i + 1, 20_000 + i * 900));
    const before = lentRecords();
    const held = [];
    // More at once than the pool keeps (16), then given back and lent again, records of other sizes.
    for (const [i, json] of records.entries()) {
      const body = gzipSync(json, { level: 1 });
      const lent = lendUnpacked(body, json.length);
      expect(lent, `record ${i}`).toBeDefined();
      expect(lent!.bytes.equals(json)).toBe(true);
      expect(lent!.bytes.equals(unpackRecord(body, json.length))).toBe(true);
      held.push({ lent: lent!, json });
      if (held.length === 20) {
        // Each still holds its own record while the others were inflated.
        for (const h of held) expect(h.lent.bytes.equals(h.json)).toBe(true);
        for (const h of held.splice(0)) {
          h.lent.release();
          h.lent.release(); // given back once only
        }
      }
    }
    expect(lentRecords()).toBe(before + records.length);
  });

  it('refuses what it cannot lend exactly, and lends again after a corrupt record', () => {
    const json = record(7);
    const body = gzipSync(json, { level: 1 });
    // A stored length that is not the record's (longer or shorter), none, or too large to lend.
    expect(lendUnpacked(body, json.length - 1)).toBeUndefined();
    expect(lendUnpacked(body, json.length + 1)).toBeUndefined();
    expect(lendUnpacked(body, null)).toBeUndefined();
    expect(lendUnpacked(body, String(json.length) as unknown as number)).toBeUndefined();
    const large = record(8, 70_000);
    expect(lendUnpacked(gzipSync(large), large.length)).toBeUndefined();
    // Raw deflate (records stored before 2026-11-28) is not a gzip member: unpackRecord reads it.
    expect(lendUnpacked(deflateRawSync(json), json.length)).toBeUndefined();
    // A truncated member and one with its deflate data damaged: refused, nothing thrown.
    expect(lendUnpacked(body.subarray(0, body.length - 200), json.length)).toBeUndefined();
    const damaged = Buffer.from(body);
    damaged.fill(0xff, 20, 60);
    expect(lendUnpacked(damaged, json.length)).toBeUndefined();
    // ...and the next record is lent as before.
    const next = lendUnpacked(body, json.length);
    expect(next?.bytes.equals(json)).toBe(true);
    next!.release();
  });
});
