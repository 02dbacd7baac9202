// Frozen in time: never edit a migration that has landed; add a new one.
// Search gives the same results on both databases: SQLite's full-text index stops
// folding diacritics (`remove_diacritics 0`), as PostgreSQL's 'simple' configuration
// never did (it has no `unaccent` without an extension). Both still fold case.
import type { Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';
import { createSqliteFts, dropSqliteFts } from '../search.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await dropSqliteFts(db);
  await createSqliteFts(db, 'unicode61 remove_diacritics 0');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await dropSqliteFts(db);
  await createSqliteFts(db, 'unicode61 remove_diacritics 2');
}
