// `npm run check-config`: reads the settings as the server would (and, on PostgreSQL,
// connects once), prints what it found or one line per problem, and exits 0, or 78 when a
// setting is wrong: the server's own start check, without starting.
import { loadConfigOrExit } from './config.js';
import { maskUrl } from './config.rules.js';
import { dialectOf } from './db/database.js';
import { databaseProblem } from './db/reachable.js';

const config = loadConfigOrExit();
const problem = await databaseProblem(config.databaseUrl);
if (problem) {
  process.stderr.write(`configuration: ${problem}\n`);
  process.exit(78);
}
console.log(`configuration: valid; database ${dialectOf(config.databaseUrl)} (${maskUrl(config.databaseUrl)}), data in ${config.dataDir}, served at ${config.publicUrl} on port ${config.port}`);
