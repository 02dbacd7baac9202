// Running a change in a transaction, or in the caller's when it is one already (the demo
// seed runs every area's seeder in one transaction).
import type { Kysely } from 'kysely';

export function inTx<D, T>(db: Kysely<D>, fn: (trx: Kysely<D>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
