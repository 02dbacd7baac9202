// Frozen in time: never edit a migration that has landed; add a new one.
// SQLite: the title-key index of 2026_11_25_0400 covers the suggester's first tier again.
// The tier has since read each candidate's `namespace` too (the target filter of a wiki
// doctype is applied after its limit), which the index did not hold: each of its up to 200
// candidates was a lookup in the table as well, most of the tier's time at 100 000 guides
// (1.2 ms a search in the mixed load). The index is made again, under the same name (the
// query names it: TITLE_KEY in src/db/search.ts), with `namespace` among its columns.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const KEY = `lower(replace(replace(title, '\u0130', 'i\u0307'), '\u212A', 'k'))`;

async function titleKeyIndex(db: Kysely<any>, columns: string): Promise<void> {
  await sql`drop index if exists search_docs_title_key`.execute(db);
  await sql.raw(`create index search_docs_title_key on search_docs (${KEY}, ${columns}) where title <> ''`).execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await titleKeyIndex(db, 'target_type, visible, target_langid, target_id, namespace, title');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await titleKeyIndex(db, 'target_type, visible, target_langid, target_id, title');
}
