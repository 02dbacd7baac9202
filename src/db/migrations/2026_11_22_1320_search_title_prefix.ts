// Frozen in time: never edit a migration that has landed; add a new one.
// The suggester's first tier (titles that start with the query) on PostgreSQL: a btree
// on the lowered title answers `lower(title) LIKE 'con%'` by range instead of checking
// every full-text match. (SQLite finds that tier through FTS5's ^ anchor instead.)
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`create index search_docs_title_prefix on search_docs (lower(title) text_pattern_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`drop index if exists search_docs_title_prefix`.execute(db);
}
