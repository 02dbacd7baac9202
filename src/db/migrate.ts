import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.js';

// The list of migrations is explicit (not read from a folder) so that the same
// history runs from TypeScript sources and from the compiled build.
const provider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  },
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The next migration not run yet, if any (its name, or none): a tool that names each as it ends (bench/seed.ts). */
export async function migrateUpOne(db: Kysely<any>): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateUp();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has run (for /readyz). */
export async function isMigrated(db: Kysely<any>): Promise<boolean> {
  const migrator = new Migrator({ db, provider });
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
