// Frozen in time: never edit a migration that has landed; add a new one.
// The suggester's first tier (titles that start with the query) on SQLite from a btree
// range instead of FTS5's ^ anchor, whose short prefixes walk long doclists: an index
// on the title lowered as JavaScript lowers it for ASCII queries (SQLite's lower() folds
// A-Z only; the two characters outside ASCII that JavaScript lowers to ASCII, U+0130
// and U+212A, are replaced first). Partial: only rows with a title (not steps, comments);
// covering: the candidates' filters and columns come from the index.
// See TITLE_KEY in src/db/search.ts, which must stay the same expression.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  // Covering: the tier's filters and what it returns are read from the index alone.
  await sql.raw(`create index search_docs_title_key on search_docs (lower(replace(replace(title, '\u0130', 'i\u0307'), '\u212A', 'k')),
    target_type, visible, target_langid, target_id, title) where title <> ''`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop index if exists search_docs_title_key`.execute(db);
}
