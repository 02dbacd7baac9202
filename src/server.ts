// `npm start`: migrate, load the demo site the first time, listen, and shut down
// gracefully (in-flight requests finish; background work stops) on SIGINT/SIGTERM.
import closeWithGrace from 'close-with-grace';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './clock.js';
import { buildApp, BASE_PATH } from './app.js';
import { seedDemoOnce } from './demo/seed.js';

const config = loadConfig();
const handle = openDatabase(config.databaseUrl);
const ran = await migrateToLatest(handle.db);
const app = await buildApp({ config, handle, clock: systemClock });
if (ran.length) app.log.info({ migrations: ran }, 'database migrated');

if (config.seedDemo) {
  const out = await seedDemoOnce(handle.db, config, systemClock, (l) => console.log(l));
  if (out.seeded) {
    console.log('\nDemo site ready. Log in with:');
    console.log(`  curl -X POST ${config.publicUrl}${BASE_PATH}/user/token -d '{"email": "${config.adminEmail}", "password": "${out.password}"}'`);
    console.log(`  (also author@example.com, moderator@example.com, user@example.com with the same password)\n`);
  }
}

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
  // Only after every plugin's onClose hook: those may still write (buffered view history).
  // A root onClose hook added here would run before them (hooks run last-added first).
  await handle.destroy();
});

await app.listen({ port: config.port, host: config.host });
app.jobs.start();
console.log(`Content Platform API 2.0 at ${config.publicUrl}${BASE_PATH} (reference: ${config.publicUrl}${BASE_PATH}/docs), database: ${handle.dialect}`);
