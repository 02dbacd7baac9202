// `npm run -s openapi`: prints the OpenAPI document without listening or touching data.
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { buildApp } from './app.js';

const config = { ...loadConfig(), databaseUrl: 'sqlite::memory:', jobPollMs: 0 };
// An empty database in memory: the document depends on no data (PostgreSQL's options do not apply).
const handle = openDatabase(config.databaseUrl);
const app = await buildApp({ config, handle, logger: false });
await app.ready();
process.stdout.write(JSON.stringify(app.swagger(), null, 2) + '\n');
await app.close();
await handle.destroy();
