// Which requests are sent stored bytes gzipped (http/encoding.ts): RFC 9110 12.5.3.
import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../../src/http/encoding.js';

describe('acceptsGzip', () => {
  it('takes gzip when named with a q above 0, or under * when not named', () => {
    for (const header of ['gzip', 'GZIP', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'x-gzip', '*', 'identity, *;q=0.5', 'gzip;q=0.001', 'deflate, gzip ; q=1', 'gzip;level=1', 'gzip;q=0, gzip;q=1'])
      expect(acceptsGzip(header), header).toBe(true);
  });

  it('refuses gzip when absent, empty, excluded, or its q is 0 or unreadable', () => {
    for (const header of [undefined, '', 'identity', 'br, deflate', 'gzip;q=0', 'gzip;q=0.000', 'gzip; q=0, *', '*;q=0', 'gzip;q=1.5', 'gzip;q=abc', 'gzipx', 'xgzip', ',,,', 'gzip;q=-1'])
      expect(acceptsGzip(header), String(header)).toBe(false);
    // A repeated header arrives joined by Node; an array (never from Node's parser) is refused.
    expect(acceptsGzip(['gzip'])).toBe(false);
  });

  it('reads hostile headers of any length (one pass; a backtracking parser would hang the test)', () => {
    expect(acceptsGzip(`${'a;q=0.5, '.repeat(100_000)}gzip`)).toBe(true);
    expect(acceptsGzip(`gzip;q=0.${'0'.repeat(200_000)}1`)).toBe(false);
    expect(acceptsGzip(`gzip;${';'.repeat(200_000)}q=${' '.repeat(200_000)}`)).toBe(false);
  });
});
