// Frozen in time: never edit a migration that has landed; add a new one.
// External training modules (SCORM 1.2 and 2004 packages): modules, their imports (each
// a version of the module, unpacked under DATA_DIR/modules/<importid>), the learners'
// attempts (a commit token each, stored hashed) with the data model values they committed,
// and `users.permissions` (manage-external-training-module).
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('permissions', 'text', (c) => c.notNull().defaultTo('')).execute();

  await withId(db, db.schema.createTable('training_modules'), 'external_training_moduleid')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('current_importid', 'integer')
    .addColumn('draft_importid', 'integer')
    .addColumn('import_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('userid_created', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('training_modules_current').on('training_modules').columns(['current_importid']).execute();
  await db.schema.createIndex('training_modules_draft').on('training_modules').columns(['draft_importid']).execute();

  await withId(db, db.schema.createTable('training_module_imports'), 'importid')
    .addColumn('external_training_moduleid', 'integer', (c) => c.notNull().references('training_modules.external_training_moduleid').onDelete('cascade'))
    /** 1, 2, ... within the module. */
    .addColumn('sequence', 'integer', (c) => c.notNull())
    /** CREATED | RUNNING | COMPLETE | ERROR | CANCELLED */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('percent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    /** upload | url, once started */
    .addColumn('source', 'text')
    .addColumn('source_url', 'text')
    .addColumn('title', 'text')
    /** 1.2 | 2004 */
    .addColumn('scorm_version', 'text')
    .addColumn('launch_path', 'text')
    .addColumn('manifest_version', 'text')
    .addColumn('provider_version_number', 'integer', (c) => c.notNull())
    .addColumn('file_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('userid_created', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('started_date', 'bigint')
    .addColumn('finished_date', 'bigint')
    .addUniqueConstraint('training_module_imports_sequence', ['external_training_moduleid', 'sequence'])
    .execute();
  await db.schema.createIndex('training_module_imports_versions').on('training_module_imports').columns(['external_training_moduleid', 'provider_version_number', 'importid']).execute();

  await withId(db, db.schema.createTable('training_module_attempts'), 'module_attemptid')
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('importid', 'integer', (c) => c.notNull().references('training_module_imports.importid').onDelete('cascade'))
    .addColumn('external_training_moduleid', 'integer', (c) => c.notNull())
    /** 1, 2, ... per learner and import. */
    .addColumn('attempt', 'integer', (c) => c.notNull())
    /** A preview by a manager: commits are kept, nothing is completed. */
    .addColumn('preview', 'integer', boolColumn)
    /** SHA-256 of the current commit token, hex. */
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_expires', 'bigint', (c) => c.notNull())
    /** The last committed data model (JSON), restored into the runtime on the next launch. */
    .addColumn('state', 'text')
    .addColumn('lesson_status', 'text')
    .addColumn('completion_status', 'text')
    .addColumn('success_status', 'text')
    .addColumn('score', 'text')
    .addColumn('completed', 'integer', boolColumn)
    .addColumn('commit_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addColumn('completed_date', 'bigint')
    .addUniqueConstraint('training_module_attempts_number', ['userid', 'importid', 'preview', 'attempt'])
    .execute();

  /** The data model values committed in an attempt, one row per element (as Moodle keeps SCORM tracks). */
  await db.schema.createTable('training_module_values')
    .addColumn('module_attemptid', 'integer', (c) => c.notNull().references('training_module_attempts.module_attemptid').onDelete('cascade'))
    .addColumn('element', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('training_module_values_pk', ['module_attemptid', 'element'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('training_module_values').execute();
  await db.schema.dropTable('training_module_attempts').execute();
  await db.schema.dropTable('training_module_imports').execute();
  await db.schema.dropTable('training_modules').execute();
  await db.schema.alterTable('users').dropColumn('permissions').execute();
}
