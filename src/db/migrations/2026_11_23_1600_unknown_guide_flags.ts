// Frozen in time: never edit a migration that has landed; add a new one.
// Until now PUT /guides/{id}/flags/{flagid} stored any id that was a property of a plain
// object (`constructor`, `__proto__`...); those rows are no flag and are removed. The
// route now checks ids against the known set.
import type { Kysely } from 'kysely';

const KNOWN_FLAGS = ['GUIDE_IN_PROGRESS', 'DANGER', 'DEATH', 'GUIDE_DELETE', 'GUIDE_STARRED'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('guide_flags').where('flagid', 'not in', KNOWN_FLAGS).execute();
}

export async function down(): Promise<void> {
  // The removed rows were never flags: nothing to put back.
}
