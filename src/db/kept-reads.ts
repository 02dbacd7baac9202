// Reads kept while the database's change version holds (SQLite: `changeVersion` in
// prepared.ts moves whenever this connection changes a row or another connection commits),
// so that a read nothing can have changed costs no query. Elsewhere (PostgreSQL, or inside
// a transaction on SQLite) there is no version, and every call reads.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { changeVersion } from './prepared.js';

/**
 * `read(db, args)`, its results kept per `keyOf(args)` (at most `max` of them, the oldest
 * dropped first) until the version moves. The version is read before `read` runs and the
 * result is kept under it: a write committed meanwhile moves the version, and the next call
 * reads again.
 */
export function keptWhileUnchanged<A, V>(max: number, keyOf: (args: A) => string, read: (db: Kysely<Database>, args: A) => Promise<V>): (db: Kysely<Database>, args: A) => Promise<V> {
  const kept = new WeakMap<Kysely<Database>, { version: string; values: Map<string, V> }>();
  return async (db, args) => {
    const version = changeVersion(db);
    if (version === undefined) return read(db, args);
    let under = kept.get(db);
    if (under?.version !== version) kept.set(db, (under = { version, values: new Map() }));
    const key = keyOf(args);
    const values = under.values;
    if (values.has(key)) return values.get(key)!;
    const value = await read(db, args);
    values.set(key, value);
    if (values.size > max) values.delete(values.keys().next().value!);
    return value;
  };
}
