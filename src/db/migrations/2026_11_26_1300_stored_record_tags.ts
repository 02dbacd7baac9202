// Frozen in time: never edit a migration that has landed; add a new one.
// Stored guide and wiki records (2026_11_25_0500, 2026_11_25_0600) keep, beside their
// compressed bytes, what a read would otherwise compute from them on every read that misses
// the process cache:
//  - `etag`: the answer's ETag (http/conditional.ts: W/"<SHA-1 of the JSON, base64url>"),
//    so that a cold read does not hash 25 to 40 KB;
//  - `size`: the length of the JSON, so that it is inflated into one buffer of that size
//    (without it zlib writes 16 KB chunks and joins them).
// Rows stored before this migration have neither (null): they are served as before (the
// tag computed, the bytes inflated in chunks) until they are stored again, which a stored
// record is within `storedTtl` (50 minutes by default) of being built. They are not
// back-filled here: an update rewrites a whole row with its bytes, and doing it for every
// stored record took 81 s at 100 000 guides on SQLite.
import type { Kysely } from 'kysely';

const TABLES = ['guide_records', 'wiki_records'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.alterTable(table).addColumn('etag', 'text').execute();
    await db.schema.alterTable(table).addColumn('size', 'integer').execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.alterTable(table).dropColumn('size').execute();
    await db.schema.alterTable(table).dropColumn('etag').execute();
  }
}
