// Once per test run: on PostgreSQL (TEST_DATABASE_URL set), build the migrated template
// that every test file clones.
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { adminQuery, dropDatabase, withDatabase } from './pg.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', null);
    return;
  }
  const template = `cp_tpl_${process.pid}`;
  await dropDatabase(template);
  await adminQuery(`CREATE DATABASE ${template}`);
  const handle = openDatabase(withDatabase(url, template));
  await migrateToLatest(handle.db);
  await handle.destroy();
  project.provide('pgTemplate', template);
  return async () => {
    await dropDatabase(template);
  };
}
