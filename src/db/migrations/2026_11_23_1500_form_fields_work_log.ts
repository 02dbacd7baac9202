// Form fields on steps, and the work log in the shape its clients use.
//
//  - guide_step_fields: every version of every form field a step asks its performer to
//    fill (text, number, checkbox, choice). Rows are never changed: a changed field is a
//    new row, so a field_revisionid names one version of a field for good. A step lists
//    its current fields in guide_steps.fields (JSON array of field_revisionids), and each
//    step revision keeps the list in its snapshot.
//  - work_log: statuses renamed to the clients' (in_progress -> started, finished ->
//    complete); a work order id.
//  - work_log_values: one value per form field of the revision performed, with who
//    entered it; work_log_timings: each stretch a performer spent, with who spent it.
//  - work_log_steps (checkmarks, values and notes per step) is replaced by the two: its
//    rows have no form field to belong to and are dropped.
import { sql, type Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('guide_step_fields'), 'field_revisionid')
    .addColumn('stepid', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON array of the choices of a choice field; [] otherwise. */
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('guide_step_fields_step').on('guide_step_fields').columns(['stepid']).execute();
  await db.schema.alterTable('guide_steps').addColumn('fields', 'text', (c) => c.notNull().defaultTo('[]')).execute();

  await db.schema.alterTable('work_log').addColumn('workorderid', 'text').execute();
  await sql`update work_log set status = 'started' where status = 'in_progress'`.execute(db);
  await sql`update work_log set status = 'complete' where status = 'finished'`.execute(db);

  await db.schema.createTable('work_log_values')
    .addColumn('entryid', 'integer', (c) => c.notNull().references('work_log.entryid').onDelete('cascade'))
    .addColumn('field_revisionid', 'integer', (c) => c.notNull())
    .addColumn('stepid', 'integer', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('work_log_values_pk', ['entryid', 'field_revisionid'])
    .execute();
  await withId(db, db.schema.createTable('work_log_timings'), 'timingid')
    .addColumn('entryid', 'integer', (c) => c.notNull().references('work_log.entryid').onDelete('cascade'))
    /** The step whose data closed the stretch; null while open, or when closed otherwise. */
    .addColumn('stepid', 'integer')
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('start_date', 'bigint', (c) => c.notNull())
    .addColumn('end_date', 'bigint')
    .execute();
  await db.schema.createIndex('work_log_timings_entry').on('work_log_timings').columns(['entryid', 'timingid']).execute();
  await db.schema.dropTable('work_log_steps').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
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
  for (const t of ['work_log_timings', 'work_log_values']) await db.schema.dropTable(t).ifExists().execute();
  await sql`update work_log set status = 'in_progress' where status = 'started'`.execute(db);
  await sql`update work_log set status = 'finished' where status = 'complete'`.execute(db);
  await db.schema.alterTable('work_log').dropColumn('workorderid').execute();
  await db.schema.alterTable('guide_steps').dropColumn('fields').execute();
  await db.schema.dropTable('guide_step_fields').ifExists().execute();
}
