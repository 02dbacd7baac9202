// Frozen in time: never edit a migration that has landed; add a new one.
// Courses and wikis share one id space (issue 62): every course whose wikiid is also a
// wiki page's gets a fresh id from the wikis' allocation, each table that names a course
// by id is rewritten (COURSE_ID_COLUMNS), old -> new is kept in course_id_aliases (the
// course routes still accept the old id, with a Deprecation header), and the wikis'
// counter is moved past every remaining course id so no future wiki takes one.
// Logged webhook deliveries and the audit log keep what was sent and recorded.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Every table that stores a course's id, and the column (the test checks none dangles). */
export const COURSE_ID_COLUMNS = [
  { table: 'course_wiki_revisions', column: 'wikiid' },
  { table: 'course_stages', column: 'wikiid' },
  { table: 'course_assignments', column: 'wikiid' },
  { table: 'course_assignees', column: 'wikiid' },
  { table: 'course_stage_statuses', column: 'wikiid' },
  { table: 'course_stage_completions', column: 'wikiid' },
  { table: 'signoff_requests', column: 'wikiid' },
] as const;

async function nextWikiId(db: Kysely<any>): Promise<number> {
  if (isPostgres(db)) {
    const r = await sql<{ id: string | number }>`select nextval(pg_get_serial_sequence('wikis', 'wikiid')) as id`.execute(db);
    return Number(r.rows[0].id);
  }
  await sql`insert into sqlite_sequence (name, seq) select 'wikis', coalesce((select max(wikiid) from wikis), 0)
    where not exists (select 1 from sqlite_sequence where name = 'wikis')`.execute(db);
  const r = await sql<{ id: number }>`update sqlite_sequence set seq = seq + 1 where name = 'wikis' returning seq as id`.execute(db);
  return Number(r.rows[0].id);
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('course_id_aliases')
    .addColumn('old_wikiid', 'integer', (c) => c.primaryKey())
    .addColumn('new_wikiid', 'integer', (c) => c.notNull())
    .execute();
  const colliding = await db.selectFrom('courses').selectAll()
    .where('wikiid', 'in', db.selectFrom('wikis').select('wikiid'))
    .orderBy('wikiid').execute();
  for (const course of colliding) {
    const oldId = course.wikiid as number;
    const newId = await nextWikiId(db);
    // The new row first, then the references, then the old row (foreign keys hold throughout).
    await db.insertInto('courses').values({ ...course, wikiid: newId }).execute();
    for (const { table, column } of COURSE_ID_COLUMNS) {
      await db.updateTable(table).set({ [column]: newId }).where(column, '=', oldId).execute();
    }
    await db.deleteFrom('courses').where('wikiid', '=', oldId).execute();
    await db.insertInto('course_id_aliases').values({ old_wikiid: oldId, new_wikiid: newId }).execute();
  }
  // No future wiki may take a course's id: the wikis' counter passes the largest one.
  const { max } = await db.selectFrom('courses').select((eb) => eb.fn.max('wikiid').as('max')).executeTakeFirstOrThrow();
  if (max != null) {
    // Takes one id to read where the counter is, then moves it on when a course is ahead.
    const at = await nextWikiId(db);
    if (Number(max) > at) {
      if (isPostgres(db)) await sql`select setval(pg_get_serial_sequence('wikis', 'wikiid'), ${Number(max)})`.execute(db);
      else await sql`update sqlite_sequence set seq = ${Number(max)} where name = 'wikis'`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('course_id_aliases').execute();
}
