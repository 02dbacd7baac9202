// Frozen in time: never edit a migration that has landed; add a new one.
import type { Kysely } from 'kysely';
import { boolColumn, withId } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('site_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('jobs'), 'jobid')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('finished_date', 'bigint')
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();

  await withId(db, db.schema.createTable('images'), 'imageid')
    .addColumn('guid', 'text', (c) => c.notNull().unique())
    .addColumn('userid', 'integer')
    .addColumn('width', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('height', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mime', 'text', (c) => c.notNull().defaultTo('image/jpeg'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('images_user').on('images').columns(['userid', 'imageid']).execute();

  await withId(db, db.schema.createTable('users'), 'userid')
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_lower', 'text', (c) => c.notNull())
    .addColumn('unique_username', 'text', (c) => c.unique())
    .addColumn('join_date', 'bigint', (c) => c.notNull())
    .addColumn('reputation', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('imageid', 'integer', (c) => c.references('images.imageid').onDelete('set null'))
    .addColumn('privileges', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('banned', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sso_userid', 'text', (c) => c.unique())
    .addColumn('employee_id', 'text', (c) => c.unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('about', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('users_username_lower').on('users').columns(['username_lower', 'userid']).execute();
  await db.schema.createIndex('users_join_date').on('users').columns(['join_date', 'userid']).execute();
  await db.schema.createIndex('users_created_by').on('users').columns(['created_by', 'userid']).execute();

  await db.schema.createTable('tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('expires_date', 'bigint', (c) => c.notNull())
    .addColumn('revoked_date', 'bigint')
    .addColumn('impersonated_by', 'integer')
    .execute();
  await db.schema.createIndex('tokens_user').on('tokens').column('userid').execute();

  await db.schema.createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .addColumn('expires_date', 'bigint', (c) => c.notNull())
    .addColumn('used_date', 'bigint')
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('userid').execute();

  await withId(db, db.schema.createTable('teams'), 'teamid')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('owner', 'integer', (c) => c.notNull().references('users.userid'))
    .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('reputation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('imageid', 'integer', (c) => c.references('images.imageid').onDelete('set null'))
    .addColumn('join_code', 'text', (c) => c.notNull())
    .addColumn('created_date', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('teams_name_lower').on('teams').columns(['name_lower', 'teamid']).execute();

  await db.schema.createTable('team_members')
    .addColumn('teamid', 'integer', (c) => c.notNull().references('teams.teamid').onDelete('cascade'))
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    .addColumn('is_lead', 'integer', boolColumn)
    .addColumn('join_date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['teamid', 'userid'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').columns(['userid', 'teamid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['team_members', 'teams', 'password_resets', 'tokens', 'users', 'images', 'jobs', 'site_state']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
