// `npm run migrate`: brings the configured database to the latest schema and exits.
import { loadConfigOrExit } from '../config.js';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

const config = loadConfigOrExit();
const handle = openDatabase(config.databaseUrl, { namedStatements: config.pgPreparedStatements });
try {
  const ran = await migrateToLatest(handle.db);
  console.log(ran.length ? `migrated: ${ran.join(', ')}` : 'already up to date');
} finally {
  await handle.destroy();
}
