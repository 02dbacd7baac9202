// Frozen in time: never edit a migration that has landed; add a new one.
// The work log: a user performing a guide (a revision of it in one language), with a
// status, the time spent, and data per step (checkmarks, values, notes).
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('work_log'), 'entryid')
    .addColumn('guideid', 'integer', (c) => c.notNull().references('guide_ids.guideid').onDelete('cascade'))
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    /** The user the entry is assigned to (who performs it now). */
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('userid_created', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('start_date', 'bigint', (c) => c.notNull())
    .addColumn('end_date', 'bigint')
    .addColumn('status_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    /** Seconds in progress before the current in-progress period. */
    .addColumn('active_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    /** Start of the current in-progress period; null unless in progress. */
    .addColumn('active_since', 'bigint')
    .execute();
  await db.schema.createIndex('work_log_user').on('work_log').columns(['userid', 'status', 'entryid']).execute();
  await db.schema.createIndex('work_log_guide').on('work_log').columns(['guideid', 'status', 'entryid']).execute();
  await db.schema.createIndex('work_log_status').on('work_log').columns(['status', 'entryid']).execute();

  await db.schema.createTable('work_log_steps')
    .addColumn('entryid', 'integer', (c) => c.notNull().references('work_log.entryid').onDelete('cascade'))
    .addColumn('stepid', 'integer', (c) => c.notNull())
    .addColumn('checked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('value', 'text')
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addColumn('userid_modified', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addPrimaryKeyConstraint('work_log_steps_pk', ['entryid', 'stepid'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['work_log_steps', 'work_log']) await db.schema.dropTable(t).ifExists().execute();
}
