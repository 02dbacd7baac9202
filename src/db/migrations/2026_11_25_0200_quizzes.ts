// Quizzes v2: quizzes (SurveyJS JSON) with their revisions, the guides and wikis they
// are attached to, and the quiz sessions (attempts) of learners.
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('quizzes'), 'quizid')
    /** The newest quiz_revisions row; its title and date are kept here for lists. */
    .addColumn('quiz_revisionid', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('deleted', 'integer', boolColumn)
    .addColumn('userid_created', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    /** The date of the current revision (quiz_last_released). */
    .addColumn('released_date', 'bigint', (c) => c.notNull())
    /** Submitted sessions, not cancelled: kept in the transaction of each submit or cancel. */
    .addColumn('sessions_submitted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('quizzes_released').on('quizzes').columns(['deleted', 'released_date', 'quizid']).execute();
  await db.schema.createIndex('quizzes_category').on('quizzes').columns(['category']).execute();

  await withId(db, db.schema.createTable('quiz_revisions'), 'quiz_revisionid')
    .addColumn('quizid', 'integer', (c) => c.notNull().references('quizzes.quizid').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('passing_score', 'integer', (c) => c.notNull())
    /** The SurveyJS JSON, validated element by element. */
    .addColumn('quiz_json', 'text', (c) => c.notNull())
    .addColumn('non_media_count', 'integer', (c) => c.notNull())
    .addColumn('modified_by', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quiz_revisions_quiz').on('quiz_revisions').columns(['quizid', 'quiz_revisionid']).execute();

  await db.schema.createTable('quiz_attachments')
    /** guide | wiki */
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('quizid', 'integer', (c) => c.notNull().references('quizzes.quizid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('quiz_attachments_pk', ['doctype', 'docid'])
    .execute();
  await db.schema.createIndex('quiz_attachments_quiz').on('quiz_attachments').columns(['quizid', 'doctype', 'docid']).execute();

  await withId(db, db.schema.createTable('quiz_sessions'), 'quiz_sessionid')
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('quizid', 'integer', (c) => c.notNull().references('quizzes.quizid').onDelete('cascade'))
    .addColumn('quiz_revisionid', 'integer', (c) => c.notNull())
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('doc_revisionid', 'integer', (c) => c.notNull())
    .addColumn('response_json', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('init_date', 'bigint', (c) => c.notNull())
    .addColumn('end_date', 'bigint')
    /** Percentage, 0 to 100. */
    .addColumn('score', 'real')
    .addColumn('passed', 'integer')
    .addColumn('cancelled', 'integer', boolColumn)
    .addColumn('cancelled_by', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('last_modified', 'bigint', (c) => c.notNull())
    /** 1 while the session is in progress (not submitted, not cancelled); null otherwise, so that the unique index allows one open session per user, quiz and document. */
    .addColumn('open', 'integer')
    .execute();
  await db.schema.createIndex('quiz_sessions_open').unique().on('quiz_sessions').columns(['userid', 'quizid', 'doctype', 'docid', 'open']).execute();
  await db.schema.createIndex('quiz_sessions_user').on('quiz_sessions').columns(['userid', 'quiz_sessionid']).execute();
  await db.schema.createIndex('quiz_sessions_doc').on('quiz_sessions').columns(['doctype', 'docid', 'userid']).execute();
  await db.schema.createIndex('quiz_sessions_quiz').on('quiz_sessions').columns(['quizid', 'quiz_sessionid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['quiz_sessions', 'quiz_attachments', 'quiz_revisions', 'quizzes']) await db.schema.dropTable(t).ifExists().execute();
}
