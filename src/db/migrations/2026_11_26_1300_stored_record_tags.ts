// Frozen in time: never edit a migration that has landed; add a new one.
// Stored guide and wiki records (2026_11_25_0500, 2026_11_25_0600) keep, beside their
// compressed bytes, what a read would otherwise compute from them on every read that misses
// the process cache:
//  - `etag`: the answer's ETag (http/conditional.ts: W/"<SHA-1 of the JSON, base64url>"),
//    so that a cold read does not hash 25 to 40 KB;
//  - `size`: the length of the JSON, so that it is inflated into one buffer of that size
//    (without it zlib writes 16 KB chunks and joins them).
// Both are null for a row stored before this migration that the back-fill below did not
// reach; a read then computes them as before.
// The rows already stored are back-filled here, one by one (inflated and hashed): about
// 0.1 ms a row, 10 to 20 s at 100 000 guides.
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { Kysely } from 'kysely';

const TABLES = [
  { table: 'guide_records', key: ['guideid', 'langid', 'variant'] },
  { table: 'wiki_records', key: ['wikiid', 'langid'] },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, key } of TABLES) {
    await db.schema.alterTable(table).addColumn('etag', 'text').execute();
    await db.schema.alterTable(table).addColumn('size', 'integer').execute();
    // The keys first (the primary key's index), then each row by its key: a scan for rows
    // without a tag would walk every row's overflow pages to reach the new column.
    const keys = await db.selectFrom(table).select([...key]).orderBy(key[0]).execute();
    for (const k of keys) {
      const where = <Q extends { where: (column: string, op: '=', value: unknown) => Q }>(q: Q): Q => key.reduce((acc, c) => acc.where(c, '=', k[c]), q);
      const row = await where(db.selectFrom(table).select('body')).executeTakeFirst();
      if (!row) continue;
      let json: Buffer;
      try {
        json = inflateRawSync(row.body);
      } catch {
        // Bytes that do not inflate serve nobody: the record is built again on its next read.
        await where(db.deleteFrom(table)).execute();
        continue;
      }
      await where(db.updateTable(table).set({ etag: `W/"${createHash('sha1').update(json).digest('base64url')}"`, size: json.length })).execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { table } of TABLES) {
    await db.schema.alterTable(table).dropColumn('size').execute();
    await db.schema.alterTable(table).dropColumn('etag').execute();
  }
}
