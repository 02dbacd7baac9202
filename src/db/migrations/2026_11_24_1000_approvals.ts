// Frozen in time: never edit a migration that has landed; add a new one.
// Approvals: processes (sequential stages signed by a user or by members of a team), the
// categories they are attached to, the site default's history, requests that copy their
// process's stages when they open, signatures, and single-use signing tokens. Releases
// gain the request that decides them; guides the revision readers see under a process.
import type { Kysely } from 'kysely';
import { withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('approval_processes'), 'approval_processid')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('allow_repeated_signatures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('enabled'))
    /** null: the site setting (WEBHOOKS_APPROVALS_DEFAULT). */
    .addColumn('webhooks_enabled', 'integer')
    .addColumn('revisionid', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approval_processes_name').on('approval_processes').columns(['name_lower', 'approval_processid']).execute();

  await withId(db, db.schema.createTable('approval_process_revisions'), 'revisionid')
    .addColumn('approval_processid', 'integer', (c) => c.notNull().references('approval_processes.approval_processid').onDelete('cascade'))
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approval_process_revisions_process').on('approval_process_revisions').columns(['approval_processid', 'revisionid']).execute();

  // Stages are never changed: a PATCH of the stages retires the old rows (active 0) and adds new ones.
  await withId(db, db.schema.createTable('approval_process_stages'), 'approval_process_stageid')
    .addColumn('approval_processid', 'integer', (c) => c.notNull().references('approval_processes.approval_processid').onDelete('cascade'))
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('teamid', 'integer')
    .addColumn('num_required', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('approval_process_stages_process').on('approval_process_stages').columns(['approval_processid', 'active', 'orderby']).execute();

  await db.schema.createTable('approval_category_processes')
    .addColumn('wikiid', 'integer', (c) => c.primaryKey().references('wikis.wikiid').onDelete('cascade'))
    .addColumn('approval_processid', 'integer', (c) => c.notNull().references('approval_processes.approval_processid').onDelete('cascade'))
    .addColumn('userid', 'integer')
    .addColumn('date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approval_category_processes_process').on('approval_category_processes').columns(['approval_processid', 'wikiid']).execute();

  // The default for new guides: each row starts an era of guideids (the default applies to guides created after it was set).
  await withId(db, db.schema.createTable('approval_defaults'), 'defaultid')
    .addColumn('from_guideid', 'integer', (c) => c.notNull())
    .addColumn('approval_processid', 'integer', (c) => c.references('approval_processes.approval_processid').onDelete('cascade'))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approval_defaults_from').on('approval_defaults').columns(['from_guideid', 'defaultid']).execute();

  await withId(db, db.schema.createTable('approval_requests'), 'approval_requestid')
    .addColumn('approval_processid', 'integer', (c) => c.notNull().references('approval_processes.approval_processid').onDelete('cascade'))
    .addColumn('releaseid', 'integer', (c) => c.notNull().references('guide_releases.releaseid').onDelete('cascade'))
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    /** The process's revision when the request opened. */
    .addColumn('process_revisionid', 'integer', (c) => c.notNull())
    .addColumn('allow_repeated_signatures', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    /** pending | approved | rejected | cancelled */
    .addColumn('status', 'text', (c) => c.notNull())
    /** The orderby of the current stage (pending requests). */
    .addColumn('current_stage', 'integer', (c) => c.notNull().defaultTo(0))
    /** Bumped by every signature: the row lock that orders signers of one request. */
    .addColumn('sign_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('init_date', 'bigint', (c) => c.notNull())
    .addColumn('end_date', 'bigint')
    .execute();
  await db.schema.createIndex('approval_requests_status').on('approval_requests').columns(['status', 'approval_requestid']).execute();
  await db.schema.createIndex('approval_requests_process').on('approval_requests').columns(['approval_processid', 'status', 'approval_requestid']).execute();
  await db.schema.createIndex('approval_requests_guide').on('approval_requests').columns(['guideid', 'langid', 'approval_requestid']).execute();
  await db.schema.createIndex('approval_requests_user').on('approval_requests').columns(['userid', 'approval_requestid']).execute();

  // The stages a request started with (copied from its process).
  await withId(db, db.schema.createTable('approval_request_stages'), 'approval_request_stageid')
    .addColumn('approval_requestid', 'integer', (c) => c.notNull().references('approval_requests.approval_requestid').onDelete('cascade'))
    .addColumn('approval_process_stageid', 'integer', (c) => c.notNull())
    .addColumn('orderby', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer')
    .addColumn('teamid', 'integer')
    .addColumn('num_required', 'integer', (c) => c.notNull())
    /** waiting | pending | complete | rejected | cancelled */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('end_date', 'bigint')
    .execute();
  await db.schema.createIndex('approval_request_stages_request').on('approval_request_stages').columns(['approval_requestid', 'orderby']).execute();
  await db.schema.createIndex('approval_request_stages_user').on('approval_request_stages').columns(['userid', 'status']).execute();
  await db.schema.createIndex('approval_request_stages_team').on('approval_request_stages').columns(['teamid', 'status']).execute();

  await withId(db, db.schema.createTable('approval_signatures'), 'approval_request_stage_signatureid')
    .addColumn('approval_requestid', 'integer', (c) => c.notNull().references('approval_requests.approval_requestid').onDelete('cascade'))
    .addColumn('approval_request_stageid', 'integer', (c) => c.notNull().references('approval_request_stages.approval_request_stageid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.notNull())
    /** approve | reject */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    /** The guide revision signed. */
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    /** password | token */
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('sign_date', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('approval_signatures_once', ['approval_request_stageid', 'userid'])
    .execute();
  await db.schema.createIndex('approval_signatures_request').on('approval_signatures').columns(['approval_requestid', 'approval_request_stage_signatureid']).execute();

  await db.schema.createTable('approval_sign_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('approval_requestid', 'integer', (c) => c.notNull().references('approval_requests.approval_requestid').onDelete('cascade'))
    .addColumn('approval_request_stageid', 'integer', (c) => c.notNull())
    .addColumn('userid', 'integer', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('expires_date', 'bigint', (c) => c.notNull())
    .addColumn('used_date', 'bigint')
    .execute();

  await db.schema.alterTable('guide_releases').addColumn('approval_requestid', 'integer').execute();
  /** The revision readers who may not edit see while a process applies (pinned when the guide came under one, moved by approved releases). */
  await db.schema.alterTable('guides').addColumn('reader_revisionid', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('guides').dropColumn('reader_revisionid').execute();
  await db.schema.alterTable('guide_releases').dropColumn('approval_requestid').execute();
  for (const t of ['approval_sign_tokens', 'approval_signatures', 'approval_request_stages', 'approval_requests', 'approval_defaults', 'approval_category_processes', 'approval_process_stages', 'approval_process_revisions', 'approval_processes']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
