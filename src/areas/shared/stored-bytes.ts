// What the records stored in the database (guides.stored.ts, wikis.cache.ts) share: how
// long stored bytes serve (`storedTtl`), their stored form (`packRecord`/`unpackRecord`) and how they are written after the
// answer (`DeferredWriter`: never during a GET, in small batched transactions).
import type { FastifyBaseLogger } from 'fastify';
import { promisify } from 'node:util';
import { gzip, inflateRawSync } from 'node:zlib';
import type { Config } from '../../config.js';

/**
 * How long stored bytes (records, rendered texts) serve, on the app's clock: while the
 * media URLs they carry (signed for MEDIA_URL_TTL from their window: media.urls.ts) keep
 * at least two GUIDE_CACHE_TTL of life, so that a process that keeps them for its own TTL
 * still hands out URLs that live a TTL more. Never less than GUIDE_CACHE_TTL.
 */
export function storedTtl(config: Config): number {
  return Math.max(config.guideCacheTtl, config.mediaUrlTtl - 2 * config.guideCacheTtl);
}

const gzipAsync = promisify(gzip);

/**
 * The stored form of a record's bytes: a gzip member at level 1 (raw deflate with gzip's
 * 10-byte head and 8-byte tail). Measured on a seeded site (SQLite, guide records of 36 KB
 * on average): 8 times smaller (4.4 KB), which keeps a large site's records in the
 * database's page cache, for about 0.1 ms of inflating per read (compressing is done after
 * the answer, off the request). Gzip rather than raw deflate: a client that accepts gzip
 * is sent the stored bytes as they are (`storedGzip`), nothing inflated.
 */
export const packRecord = (json: Buffer) => gzipAsync(json, { level: 1 });

/** gzip's head as zlib writes it: magic, deflate, no flags (so its length is fixed). */
const GZIP_HEAD = 10;
const GZIP_TAIL = 8;
const isGzipMember = (body: Uint8Array) => body.length > GZIP_HEAD + GZIP_TAIL && body[0] === 0x1f && body[1] === 0x8b && body[2] === 8 && body[3] === 0;

/**
 * The bytes of a stored record; `size`, their length when it was stored with them, lets
 * zlib inflate into one buffer of that size instead of 16 KB chunks joined after (a copy
 * and three allocations fewer for a 37 KB record). A wrong size only costs that again.
 * Records stored before 2026-11-28 are raw deflate: read as they are (a raw deflate
 * stream cannot begin with gzip's magic byte 0x1f, whose block type is reserved).
 * The gzip member's tail (CRC-32, length) is not checked: the database keeps the bytes.
 */
export function unpackRecord(body: Uint8Array, size?: number | null): Buffer {
  const opts = size && size < 2 ** 26 ? { chunkSize: Math.max(64, size + 1) } : undefined;
  return isGzipMember(body) ? inflateRawSync(body.subarray(GZIP_HEAD, body.length - GZIP_TAIL), opts) : inflateRawSync(body, opts);
}

/** The stored bytes as a gzip member to send as they are, or undefined (a record stored as raw deflate). */
export function storedGzip(body: Uint8Array): Buffer | undefined {
  if (!isGzipMember(body)) return undefined;
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** How long after a read the queue is written (ms); more reads share the transaction. */
const FLUSH_DELAY_MS = 25;

/**
 * Writes queued after the answer: `drain` hands over what is queued as jobs (one small
 * transaction each), run shortly after the first thing queued (`schedule`), one flush after
 * the other, and on `flush` (the app's close, tests). A job that fails (SQLite's write lock
 * busy, a conflict, a closed database) is logged and forgotten: the record is rebuilt on a
 * later read. Storing never slows down or fails a GET: on SQLite a GET that wrote would
 * take the write lock.
 */
export class DeferredWriter {
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  constructor(private readonly log: FastifyBaseLogger, private readonly what: string, private readonly drain: () => Array<() => Promise<void>>) {}

  schedule() {
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Writes what is queued (resolves when written or given up). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const jobs = this.drain();
    this.flushing = this.flushing.then(async () => {
      for (const job of jobs) {
        try {
          await job();
        } catch (err) {
          this.log.warn({ err }, `${this.what} not written`);
        }
      }
    });
    return this.flushing;
  }
}
