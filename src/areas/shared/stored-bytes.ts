// What the records stored in the database (guides.stored.ts, wikis.cache.ts) share: how
// long stored bytes serve (`storedTtl`), their stored form (`packRecord`/`unpackRecord`) and how they are written after the
// answer (`DeferredWriter`: never during a GET, in small batched transactions).
import type { FastifyBaseLogger } from 'fastify';
import { promisify } from 'node:util';
import { constants as zlibConstants, gzip, inflateRawSync, InflateRaw } from 'node:zlib';
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

/** Bytes lent for one answer: `release` gives them back once they are written (sendKept, byte-cache.ts). */
export interface Lent {
  bytes: Buffer;
  release: () => void;
}

/** What `lendUnpacked` lends into: buffers of this size, at most this many kept free. */
const LENT_BYTES = 64 * 1024;
const LENT_KEPT = 16;

/** The native stream under Node's zlib classes, as its synchronous functions use it (lib/zlib.js `processChunkSync`). */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}

/**
 * Records inflated for an answer that only sends them (a cold read whose bytes are not kept:
 * byte-cache.ts), into buffers lent from a small pool and given back once written, by one
 * zlib stream kept open and reset after each. `inflateRawSync` allocates, for every record,
 * its output (37 KB on average) and a zlib stream with its 32 KB window, and V8 counts all of
 * it against the old generation's limit: under cold reads it marked the whole heap several
 * times a second (BENCHMARKS.md, run of 2026-11-28 19:04). Node has no public way to inflate
 * into a given buffer, so this drives the stream's handle as `inflateRawSync` itself does;
 * anything unexpected (another Node, a record of another size, a corrupt one) gives
 * undefined, and the caller inflates as before.
 */
class LendingInflater {
  private engine: { stream: InflateRaw; handle: ZlibHandle; state: Uint32Array } | null | undefined;
  private readonly free: Buffer[] = [];
  lent = 0;

  private open() {
    if (this.engine !== undefined) return this.engine;
    const stream = new InflateRaw();
    const { _handle: handle, _writeState: state } = stream as unknown as { _handle?: ZlibHandle; _writeState?: Uint32Array };
    // An error (a corrupt record) destroys the stream, which then emits it: heard here, not thrown.
    stream.on('error', () => {});
    this.engine = handle && typeof handle.writeSync === 'function' && typeof handle.reset === 'function' && state instanceof Uint32Array ? { stream, handle, state } : null;
    return this.engine;
  }

  lend(deflated: Uint8Array, size: number): Lent | undefined {
    if (!(Number.isInteger(size) && size > 0 && size < LENT_BYTES)) return undefined;
    const engine = this.open();
    if (!engine) return undefined;
    const whole = this.free.pop() ?? Buffer.allocUnsafeSlow(LENT_BYTES);
    // One byte more than the record: a record longer than `size` fills it, and is refused.
    // (The handle checks its offsets and lengths by aborting the process: they are checked above.)
    let written = -1;
    try {
      engine.handle.writeSync(zlibConstants.Z_FINISH, deflated, 0, deflated.length, whole, 0, size + 1);
      // A corrupt record destroyed the stream (its error is heard above); else it is reset for the next.
      if (!engine.stream.destroyed) {
        if (engine.state[1] === 0) written = size + 1 - engine.state[0];
        engine.handle.reset();
      }
    } catch {
      engine.stream.destroy();
    }
    if (engine.stream.destroyed) this.engine = undefined;
    if (written !== size) {
      this.give(whole);
      return undefined;
    }
    this.lent++;
    let given = false;
    return {
      bytes: whole.subarray(0, size),
      release: () => {
        if (given) return;
        given = true;
        this.give(whole);
      },
    };
  }

  private give(whole: Buffer) {
    if (this.free.length < LENT_KEPT) this.free.push(whole);
  }
}

const lendingInflater = new LendingInflater();

/**
 * A stored record's bytes (`size` long when stored with them) in a buffer lent for one
 * answer, to be given back once written; undefined when it cannot lend (no size, too large,
 * not a gzip member): `unpackRecord` then.
 */
export function lendUnpacked(body: Uint8Array, size?: number | null): Lent | undefined {
  if (!size || !isGzipMember(body)) return undefined;
  return lendingInflater.lend(body.subarray(GZIP_HEAD, body.length - GZIP_TAIL), size);
}

/** How many records were inflated into lent buffers (tests). */
export const lentRecords = () => lendingInflater.lent;

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
