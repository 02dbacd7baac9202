// Frozen in time: never edit a migration that has landed; add a new one.
// Stored guide records (src/areas/guides/guides.stored.ts): the serialized bytes of each
// guide's current full record, kept in the database so that a read that misses the
// process cache is one primary-key read and no rendering, in every process and after a
// restart. One row per guide, language and viewer variant, overwritten in place: never one
// per revision. A row is valid while the guide's (revisionid, cache_stamp) are the ones it
// was built at (the stamps of migration 2026_11_22_1420_guide_cache) and the 'guide_titles'
// stamp is (2026_11_25_0510), while its media URLs keep enough life, and if it was built by
// a process configured alike (public URL, languages, media URL key); nothing else needs to
// keep it (a stale row is rebuilt and overwritten).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('guide_records')
    .addColumn('guideid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    // '' (the same for every caller), or a viewer class, optionally of the released revision.
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('revisionid', 'integer', (c) => c.notNull())
    .addColumn('cache_stamp', 'integer', (c) => c.notNull())
    // The 'guide_titles' stamp (migration 2026_11_25_0510) it was built under: titles of linked guides.
    .addColumn('titles_stamp', 'integer', (c) => c.notNull())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    // What it took of the building process's configuration (its public URL, languages, media URL key):
    // a process configured otherwise does not serve it.
    .addColumn('built_by', 'text', (c) => c.notNull())
    .addColumn('body', isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addPrimaryKeyConstraint('guide_records_pk', ['guideid', 'langid', 'variant'])
    .execute();
  // Rendered texts (a step's lines, a guide's introduction and conclusion), so that a record
  // rebuilt after a write that did not change them (a comment, a flag) renders nothing again.
  // Keyed by what they are of ('s<stepid>', 'g<guideid>/<langid>'), valid while the texts hash
  // to `hash`, under the same titles stamp, young enough and built by a process configured alike.
  await db.schema.createTable('guide_rendered')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('titles_stamp', 'integer', (c) => c.notNull())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    .addColumn('built_by', 'text', (c) => c.notNull())
    .addColumn('body', isPostgres(db) ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('guide_rendered').ifExists().execute();
  await db.schema.dropTable('guide_records').ifExists().execute();
}
