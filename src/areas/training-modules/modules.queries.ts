// Row loaders of the external training modules area: no decisions about who may see them.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { TrainingModuleAttemptTable, TrainingModuleImportTable, TrainingModuleTable } from './modules.tables.js';

export type ModuleRow = Selectable<TrainingModuleTable>;
export type ImportRow = Selectable<TrainingModuleImportTable>;
export type AttemptRow = Selectable<TrainingModuleAttemptTable>;

export const findModule = (db: Kysely<Database>, id: number) =>
  db.selectFrom('training_modules').selectAll().where('external_training_moduleid', '=', id).executeTakeFirst();

export const findImport = (db: Kysely<Database>, importid: number) =>
  db.selectFrom('training_module_imports').selectAll().where('importid', '=', importid).executeTakeFirst();

export async function importsById(db: Kysely<Database>, ids: number[]): Promise<Map<number, ImportRow>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('training_module_imports').selectAll().where('importid', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.importid, r]));
}

export const findAttemptByToken = (db: Kysely<Database>, tokenHash: string) =>
  db.selectFrom('training_module_attempts').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** The permissions column of a user ('' when none). */
export async function userPermissions(db: Kysely<Database>, userid: number): Promise<string[]> {
  const row = await db.selectFrom('users').select('permissions').where('userid', '=', userid).executeTakeFirst();
  return (row?.permissions ?? '').split(',').filter(Boolean);
}
