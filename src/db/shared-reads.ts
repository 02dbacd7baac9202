// Reads shared by concurrent callers. A caller is answered by a query sent after it asked,
// never by one already under way (that one may have started before a write the caller
// knows of committed): the callers who ask while a query is out wait, and share the next,
// which reads what all of them asked for. So every caller still sees every write that
// committed before it asked, and 8 callers at once cost one or two round trips instead of
// 8. On PostgreSQL a round trip is what a cached read costs most: the socket write that
// sends a query wakes a backend on the other core, a third of the server's time under load
// (BENCHMARKS.md). On SQLite a query seldom waits, and so neither do its callers.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class SharedReads<K, R> {
  #waiting: Array<{ key: K; resolve: (result: R) => void; reject: (err: unknown) => void }> = [];
  #busy = false;

  /**
   * `run` reads what every key asks for, in one query; each caller gets the whole result.
   * One query is out at a time. (Two at once left the server less idle, 21 % of its time
   * instead of 39 %, but answered no more: the other core, PostgreSQL's and the load's,
   * was the bound, and the second query cost both sides more.)
   */
  constructor(private readonly run: (keys: K[]) => Promise<R>) {}

  read(key: K): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, resolve, reject });
      if (!this.#busy) void this.#send();
    });
  }

  async #send(): Promise<void> {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#busy = true;
    try {
      const result = await this.run(batch.map((w) => w.key));
      for (const w of batch) w.resolve(result);
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.#busy = false;
      if (this.#waiting.length) void this.#send();
    }
  }
}

/**
 * `read(db, key)`: through one SharedReads per database handle. A transaction shares
 * nothing: it reads on its own connection and snapshot, at once.
 */
export function sharedReads<K, R>(run: (db: Kysely<Database>, keys: K[]) => Promise<R>): (db: Kysely<Database>, key: K) => Promise<R> {
  const byDb = new WeakMap<Kysely<Database>, SharedReads<K, R>>();
  return (db, key) => {
    if (db.isTransaction) return run(db, [key]);
    let reads = byDb.get(db);
    if (!reads) byDb.set(db, (reads = new SharedReads((keys) => run(db, keys))));
    return reads.read(key);
  };
}
