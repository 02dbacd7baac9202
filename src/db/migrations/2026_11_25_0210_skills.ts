// Skills: the weights of the rating model (groups top, user, management; seeded with
// the defaults) and supervisor ratings of users on documents.
import type { Kysely } from 'kysely';

export const DEFAULT_WEIGHTS: Array<{ group_name: string; component: string; value: number }> = [
  { group_name: 'top', component: 'user', value: 0.5 },
  { group_name: 'top', component: 'management', value: 0.5 },
  { group_name: 'user', component: 'training', value: 0.5 },
  { group_name: 'user', component: 'quiz', value: 0.3 },
  { group_name: 'user', component: 'practice', value: 0.2 },
  { group_name: 'management', component: 'signoff', value: 0.5 },
  { group_name: 'management', component: 'supervisor', value: 0.5 },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('skills_weights')
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('value', 'real', (c) => c.notNull())
    .addPrimaryKeyConstraint('skills_weights_pk', ['group_name', 'component'])
    .execute();
  await db.insertInto('skills_weights').values(DEFAULT_WEIGHTS).execute();

  await db.schema.createTable('skills_supervisor_ratings')
    .addColumn('userid', 'integer', (c) => c.notNull().references('users.userid').onDelete('cascade'))
    /** guide | wiki */
    .addColumn('doctype', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    /** 0 to 1. */
    .addColumn('rating', 'real', (c) => c.notNull())
    .addColumn('rated_by', 'integer', (c) => c.references('users.userid').onDelete('set null'))
    .addColumn('date', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('skills_supervisor_ratings_pk', ['userid', 'doctype', 'docid'])
    .execute();
  await db.schema.createIndex('skills_supervisor_ratings_doc').on('skills_supervisor_ratings').columns(['doctype', 'docid', 'userid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['skills_supervisor_ratings', 'skills_weights']) await db.schema.dropTable(t).ifExists().execute();
}
