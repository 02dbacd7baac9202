// Course stage sign-offs: a trainee's request that a trainer (a member of the stage
// assessment's signer team) watch them do the work, the trainer's response (pass or fail,
// with feedback, who, when, the work log entry), the trainee's acknowledgement, and the
// single-use over-the-shoulder tokens (stored hashed).
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('signoff_requests'), 'signoff_requestid')
    .addColumn('stage_assessmentid', 'integer', (c) => c.notNull())
    .addColumn('course_stageid', 'integer', (c) => c.notNull())
    .addColumn('wikiid', 'integer', (c) => c.notNull())
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    /** The document revision current when the request was made (the completion is tied to it). */
    .addColumn('doc_revisionid', 'integer')
    .addColumn('teamid_signer', 'integer')
    /** The trainee. */
    .addColumn('userid_requestor', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    /** The trainer who responded (or the one asked, before a response). */
    .addColumn('userid_requestee', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('work_log_entryid', 'integer')
    .addColumn('is_cancelled', 'integer', boolColumn)
    .addColumn('cancelled_at', 'bigint')
    /** pass | fail, null until answered. */
    .addColumn('response_value', 'text')
    .addColumn('response_feedback', 'text')
    /** direct | over_the_shoulder */
    .addColumn('response_type', 'text')
    .addColumn('response_acknowledged', 'integer', boolColumn)
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('acknowledged_at', 'bigint')
    /** 1 until the request is cancelled or its response acknowledged; null after, so that a trainee has one live request per stage. */
    .addColumn('open', 'integer')
    .execute();
  await db.schema.createIndex('signoff_requests_open').unique().on('signoff_requests').columns(['course_stageid', 'userid_requestor', 'open']).execute();
  await db.schema.createIndex('signoff_requests_trainee').on('signoff_requests').columns(['userid_requestor', 'signoff_requestid']).execute();
  await db.schema.createIndex('signoff_requests_team').on('signoff_requests').columns(['teamid_signer', 'signoff_requestid']).execute();
  await db.schema.createIndex('signoff_requests_doc').on('signoff_requests').columns(['doctype', 'docid', 'userid_requestor']).execute();

  await db.schema.createTable('signoff_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('signoff_requestid', 'integer', (c) => c.notNull().references('signoff_requests.signoff_requestid').onDelete('cascade'))
    /** The trainer whose login and password made it: the response is in their name. */
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('signoff_tokens_request').on('signoff_tokens').columns(['signoff_requestid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['signoff_tokens', 'signoff_requests']) await db.schema.dropTable(t).ifExists().execute();
}
