// Frozen in time: never edit a migration that has landed; add a new one.
// Browser sessions: a login may also set the `session_cp` cookie, a secret of its own
// tied to the token it issued. Only its hash is stored, beside the token's, so that the
// cookie works exactly while its token does (docs/security.md, "The session cookie").
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('session_hash', 'text').execute();
  await db.schema.createIndex('tokens_session_hash').unique().on('tokens').column('session_hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tokens_session_hash').ifExists().execute();
  await db.schema.alterTable('tokens').dropColumn('session_hash').execute();
}
