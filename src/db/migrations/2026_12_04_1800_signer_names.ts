// Frozen in time: never edit a migration that has landed; add a new one.
// Signatures show the signer's printed name (issue 63, item 5): an approval signature and a
// sign-off response keep the name the signer had when they signed (`signer_name`), so a
// later change of display name does not change what a signed record shows. Rows signed
// before this migration get the signer's name as it is now.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('approval_signatures').addColumn('signer_name', 'text', (c) => c.notNull().defaultTo('')).execute();
  await sql`update approval_signatures set signer_name = coalesce((select u.username from users u where u.userid = approval_signatures.userid), '')`.execute(db);
  await db.schema.alterTable('signoff_requests').addColumn('signer_name', 'text').execute();
  await sql`update signoff_requests set signer_name = (select u.username from users u where u.userid = signoff_requests.userid_requestee)
    where response_value is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signoff_requests').dropColumn('signer_name').execute();
  await db.schema.alterTable('approval_signatures').dropColumn('signer_name').execute();
}
