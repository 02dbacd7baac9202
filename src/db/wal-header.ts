// Whether any connection committed to a SQLite file in WAL mode, read from the WAL-index
// header: the first 96 bytes of the `-shm` file, two copies of the 48-byte header that
// every commit rewrites (its change counter, frame count, salts and checksums), the
// second copy first (https://www.sqlite.org/walformat.html, "The WAL-Index Header").
// SQLite's own readers compare this header to tell whether their page cache still holds,
// and `pragma data_version` moves exactly when it changes (or this connection writes).
//
// Why not that pragma: a statement begins a read transaction, three system calls (lock,
// a stat of the file, unlock) and SQLite's work around them, on every cached read (3.7
// to 4.1 µs of the event loop each, 5 to 6 % of a hot guide's or a list page's time at
// 100 000 guides: BENCHMARKS.md, runs of 2026-11-29 04:43 and 05:14). One `pread` of the header costs
// a third of that.
import { closeSync, openSync, readSync } from 'node:fs';

const HEADER_BYTES = 48;
/** The header's `isInit` byte: 1 once a connection has built the index. */
const IS_INIT = 12;

/**
 * The header as a version, when its two copies agree and it is initialized; undefined
 * otherwise (a commit is writing it, or no connection has built it yet): the caller then
 * reads as if it had changed.
 */
export function walHeaderVersion(bytes: Buffer): string | undefined {
  if (bytes.length < 2 * HEADER_BYTES || bytes[IS_INIT] !== 1) return undefined;
  if (bytes.compare(bytes, HEADER_BYTES, 2 * HEADER_BYTES, 0, HEADER_BYTES) !== 0) return undefined;
  return bytes.toString('latin1', 0, HEADER_BYTES);
}

/**
 * Reads the header of `file`'s WAL index. `read()` answers null when the `-shm` file
 * cannot be read (not created yet, or an error): the caller then asks SQLite instead.
 * It is opened at the first read, after the connection has made it, and kept open: SQLite
 * unlinks the `-shm` file only when the last connection to the database closes, and the
 * connection this reader serves stays open until it is closed with it (database.ts
 * `destroy`), so the kept descriptor never points at a file another process replaced.
 */
export function walHeaderReader(file: string): { read(): string | undefined | null; close(): void } {
  const bytes = Buffer.alloc(2 * HEADER_BYTES);
  let fd: number | undefined;
  return {
    read() {
      try {
        fd ??= openSync(`${file}-shm`, 'r');
        if (readSync(fd, bytes, 0, bytes.length, 0) < bytes.length) return null;
      } catch {
        return null;
      }
      return walHeaderVersion(bytes);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
