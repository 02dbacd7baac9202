// Frozen in time: never edit a migration that has landed; add a new one.
// SQLite: the full-text index (search_fts) is no longer written by the statement that
// changes search_docs. Each such write made FTS5 tokenize the old and the new text and
// write a segment of its own at the commit: 12 of the 15 pages a guide edit wrote to the
// WAL, 0.5 to 0.8 ms of it, on the server's one connection. The triggers on search_docs
// now append to a log (search_fts_log: the old text to remove, the new text to add, in
// order), and the log is replayed into the index in batches by the server's worker thread
// (db/checkpointer.ts), many writes to a segment, and by a search before it reads the
// index (so a write is still found at once). A row whose title and body did not change is
// no longer re-indexed. PostgreSQL: nothing to do (a generated tsvector column).
import type { Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';
import { logSqliteFtsWrites, unlogSqliteFtsWrites } from '../search.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await logSqliteFtsWrites(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await unlogSqliteFtsWrites(db);
}
