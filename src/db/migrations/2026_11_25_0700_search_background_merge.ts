// Frozen in time: never edit a migration that has landed; add a new one.
// SQLite: the full-text index (search_fts) no longer merges its segments inside the
// commits that write it. FTS5's automatic merging did, every 64 leaf pages written, up
// to 64 pages per level of the index: most commits paid nothing, a few paid tens to
// hundreds of milliseconds (merging a level that holds the index's largest segment),
// while every other request waited on the server's one connection. With `automerge` 0 the
// server's worker thread merges in small steps instead (db/checkpointer.ts), levels of
// `usermerge` 8 segments or more (FTS5's default, 4, made it rewrite the large segments
// twice as often: at 100 000 guides comments ran at 460 a second with 4, 740 to 860 with
// 8, 490 to 570 before; queries read up to 7 segments a level instead of 3). FTS5 keeps
// these settings in the table itself (search_fts_config), so every connection and every
// process sees them. `crisismerge` (16) stays: a level of 16 segments is still merged by
// the commit that fills it, which bounds the segments a query reads if the worker is
// stopped or falls behind. PostgreSQL: nothing to do (its index is a GIN index, no FTS5).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`insert into search_fts(search_fts, rank) values ('automerge', 0)`.execute(db);
  await sql`insert into search_fts(search_fts, rank) values ('usermerge', 8)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  // FTS5's defaults.
  await sql`insert into search_fts(search_fts, rank) values ('automerge', 4)`.execute(db);
  await sql`insert into search_fts(search_fts, rank) values ('usermerge', 4)`.execute(db);
}
