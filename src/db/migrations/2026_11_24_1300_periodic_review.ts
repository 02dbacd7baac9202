// Frozen in time: never edit a migration that has landed; add a new one.
// Periodic review: schedules (a recurrence and a completion window, reviewed by users
// and teams), the documents (guides and wikis) on them with their stored due dates, the
// reviews recorded on them, and `reviewed` on guide releases ("I reviewed this").
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('review_schedules'), 'prsid')
    .addColumn('name', 'text', (c) => c.notNull())
    /** yearly | interval */
    .addColumn('recurrence', 'text', (c) => c.notNull())
    .addColumn('month', 'integer')
    .addColumn('day', 'integer')
    .addColumn('interval_days', 'integer')
    .addColumn('window_days', 'integer', (c) => c.notNull())
    .addColumn('userid_created', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.createTable('review_schedule_reviewers')
    .addColumn('prsid', 'integer', (c) => c.notNull().references('review_schedules.prsid').onDelete('cascade'))
    /** user | team */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('memberid', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('review_schedule_reviewers_pk', ['prsid', 'kind', 'memberid'])
    .execute();
  await db.schema.createIndex('review_schedule_reviewers_member').on('review_schedule_reviewers').columns(['kind', 'memberid', 'prsid']).execute();

  await withId(db, db.schema.createTable('review_documents'), 'prdid')
    .addColumn('prsid', 'integer', (c) => c.notNull().references('review_schedules.prsid').onDelete('cascade'))
    /** guide | wiki */
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('userid_added', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('added_date', 'bigint', (c) => c.notNull())
    /** The last review that satisfied the schedule (still valid, or a reviewed release). */
    .addColumn('last_reviewed_date', 'bigint')
    /** Computed from the schedule and the stored dates above whenever one of them changes. */
    .addColumn('due_date', 'bigint', (c) => c.notNull())
    .addColumn('overdue_date', 'bigint', (c) => c.notNull())
    /** none | due | overdue: the last reminder sent for the current due date. */
    .addColumn('notice', 'text', (c) => c.notNull().defaultTo('none'))
    /** When the next reminder is to be sent; null when none is left for this due date. */
    .addColumn('next_notice_date', 'bigint')
    .addUniqueConstraint('review_documents_doc', ['doctype', 'docid'])
    .execute();
  await db.schema.createIndex('review_documents_schedule').on('review_documents').columns(['prsid', 'prdid']).execute();
  await db.schema.createIndex('review_documents_due').on('review_documents').columns(['due_date', 'prdid']).execute();
  await db.schema.createIndex('review_documents_notice').on('review_documents').columns(['next_notice_date']).execute();

  await withId(db, db.schema.createTable('review_reviews'), 'reviewid')
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('prsid', 'integer', (c) => c.references('review_schedules.prsid').onDelete('set null'))
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    /** still_valid | change_request | reviewed_release */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('releaseid', 'integer')
    /** The due date the review answered (null for a change request). */
    .addColumn('due_date', 'bigint')
    /** Change requests: when a later review (still valid, reviewed release) settled it. */
    .addColumn('resolved_date', 'bigint')
    .addColumn('resolved_reviewid', 'integer')
    .execute();
  await db.schema.createIndex('review_reviews_user').on('review_reviews').columns(['userid', 'reviewid']).execute();
  await db.schema.createIndex('review_reviews_kind').on('review_reviews').columns(['kind', 'reviewid']).execute();
  await db.schema.createIndex('review_reviews_doc').on('review_reviews').columns(['doctype', 'docid', 'kind', 'reviewid']).execute();

  await db.schema.alterTable('guide_releases').addColumn('reviewed', 'integer', boolColumn).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('guide_releases').dropColumn('reviewed').execute();
  for (const t of ['review_reviews', 'review_documents', 'review_schedule_reviewers', 'review_schedules']) await db.schema.dropTable(t).ifExists().execute();
}
