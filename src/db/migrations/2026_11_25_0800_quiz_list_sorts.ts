// Frozen in time: never edit a migration that has landed; add a new one.
// GET /quizzes sorts by the quiz's title (case-insensitive) or by its submitted sessions,
// newest-id last, over quizzes not deleted: one index per sort, so that a page is read in
// order from an index instead of sorting every quiz (the release date had its index since
// 2026_11_25_0200_quizzes). The sorts by the quiz's guide are computed per quiz and stay
// sorts.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An expression index: the same on both databases, matched by `lower(q.title)` in the list's query.
  await sql`create index quizzes_title_sort on quizzes (deleted, lower(title), quizid)`.execute(db);
  await db.schema.createIndex('quizzes_sessions_sort').on('quizzes').columns(['deleted', 'sessions_submitted', 'quizid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('quizzes_sessions_sort').ifExists().execute();
  await db.schema.dropIndex('quizzes_title_sort').ifExists().execute();
}
