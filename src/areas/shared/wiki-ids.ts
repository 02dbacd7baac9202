// One id space for wikis and courses (issue 62): a course is a wiki in namespace COURSE,
// so its id is taken from the wikis' own allocation (PostgreSQL: the identity sequence of
// wikis.wikiid; SQLite: the AUTOINCREMENT counter in sqlite_sequence) and no course id
// ever equals a wiki page's. Call inside the transaction that inserts the row.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../db/helpers.js';

export async function nextWikiId(db: Kysely<any>): Promise<number> {
  if (isPostgres(db)) {
    const r = await sql<{ id: string | number }>`select nextval(pg_get_serial_sequence('wikis', 'wikiid')) as id`.execute(db);
    return Number(r.rows[0].id);
  }
  // sqlite_sequence has no row for wikis until its first insert: start it at the largest id.
  await sql`insert into sqlite_sequence (name, seq) select 'wikis', coalesce((select max(wikiid) from wikis), 0)
    where not exists (select 1 from sqlite_sequence where name = 'wikis')`.execute(db);
  const r = await sql<{ id: number }>`update sqlite_sequence set seq = seq + 1 where name = 'wikis' returning seq as id`.execute(db);
  return Number(r.rows[0].id);
}
