// Frozen in time: never edit a migration that has landed; add a new one.
// Token rules (src/http/auth.ts):
//  - `users.credentials_version` counts the account's password changes and resets;
//    a token carries the version that was current when its password was checked and
//    works only while the two are equal, so a login racing a password change cannot
//    outlive it. Compared in the one lookup that resolves the token.
//  - `tokens_impersonated_by`: demoting, disabling or banning an Admin revokes every
//    token they made by impersonation, found through this index.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('credentials_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('tokens').addColumn('credentials_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('tokens_impersonated_by').on('tokens').column('impersonated_by').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tokens_impersonated_by').ifExists().execute();
  await db.schema.alterTable('tokens').dropColumn('credentials_version').execute();
  await db.schema.alterTable('users').dropColumn('credentials_version').execute();
}
