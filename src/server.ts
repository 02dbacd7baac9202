// `npm start`: migrate, load the demo site the first time, listen, and shut down
// gracefully (in-flight requests finish; background work stops) on SIGINT/SIGTERM; on
// SIGTERM after a drain of SHUTDOWN_DRAIN_MS (http/drain.ts).
//
// WEB_CONCURRENCY=N (N > 1): a process of its own migrates and seeds once, then N server
// processes (node:cluster) share the port and the database. What each keeps in
// memory (guide and list caches, the hierarchy) is checked against stamps the database
// keeps, so a write in one process is never read stale from another; jobs are claimed
// by leases, so any process may run them. A process that dies is replaced.
import cluster from 'node:cluster';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import closeWithGrace from 'close-with-grace';
import { loadConfigOrExit, type Config } from './config.js';
import { databaseProblem } from './db/reachable.js';
import { openDatabase, requestBounds } from './db/database.js';
import { startStampUpkeep } from './db/stamp-upkeep.js';
import { systemClock } from './clock.js';
import { orphanSweepInterval, scheduleOrphanSweep } from './storage/orphans.js';
import { BASE_PATH } from './http/base-path.js';

const config = loadConfigOrExit();
if (cluster.isPrimary) {
  const problem = await databaseProblem(config.databaseUrl);
  if (problem) {
    process.stderr.write(`configuration: ${problem}\n`);
    process.exit(78);
  }
}

/**
 * Loads the demo site the first time (an empty database), and says how to log in: on stderr,
 * so that stdout holds only the logger's JSON lines. A password the operator set is never
 * printed; a generated one is written to DATA_DIR/admin-password (mode 0600) and shown only
 * on a terminal.
 */
async function seedDemo(config: Config, handle: ReturnType<typeof openDatabase>) {
  if (!config.seedDemo) return;
  const { seedDemoOnce } = await import('./demo/seed.js');
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const out = await seedDemoOnce(handle.longWorkDb, config, systemClock, say);
  if (!out.seeded) return;
  const login = `${config.publicUrl}${BASE_PATH}/user/token`;
  if (config.adminPassword) {
    say(`\nDemo site ready. Log in as ${config.adminEmail} (and author@, moderator@, user@example.com) with ADMIN_PASSWORD: POST ${login}\n`);
    return;
  }
  const file = join(config.dataDir, 'admin-password');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `${out.password}\n`, { mode: 0o600 });
  say('\nDemo site ready. Log in with:');
  if (process.stderr.isTTY) say(`  curl -X POST ${login} -d '{"email": "${config.adminEmail}", "password": "${out.password}"}'`);
  say(`  (the generated password of ${config.adminEmail} is in ${file}; author@example.com, moderator@example.com and user@example.com share it)\n`);
}

/**
 * The node keys against the fingerprints the database keeps (node-keys.ts): a key that
 * differs from the other nodes' stops the start, naming its setting, with 78 like any
 * other configuration error.
 */
async function checkKeysOrExit(config: Config, handle: ReturnType<typeof openDatabase>): Promise<void> {
  const { checkNodeKeys } = await import('./node-keys.js');
  const problems = await checkNodeKeys(handle.longWorkDb, config, systemClock.now());
  if (!problems.length) return;
  for (const line of problems) process.stderr.write(`configuration: ${line}\n`);
  // At once, as for the other configuration errors (nothing was written but fingerprints).
  process.exit(78);
}

// The app is imported (dynamically) by the processes that run it, never by a supervisor,
// whose memory would otherwise hold every area's code and schemas for nothing.

/** Migrates the database and loads the demo site the first time, with the app built (not listening). */
async function prepare(config: Config) {
  const { buildApp } = await import('./app.js');
  const { migrateToLatest } = await import('./db/migrate.js');
  const handle = openDatabase(config.databaseUrl, { namedStatements: config.pgPreparedStatements, ...requestBounds(config) });
  const ran = await migrateToLatest(handle.longWorkDb);
  await checkKeysOrExit(config, handle);
  const app = await buildApp({ config, handle, clock: systemClock });
  if (ran.length) app.log.info({ migrations: ran }, 'database migrated');
  await seedDemo(config, handle);
  await app.close();
  await handle.destroy();
}

/** One server process. `prepared`: the supervisor's preparing process migrated and seeded already. */
async function serve(config: Config, prepared: boolean) {
  const { buildApp } = await import('./app.js');
  const { migrateToLatest } = await import('./db/migrate.js');
  // Requests' statements are bounded (DB_STATEMENT_TIMEOUT_MS); migrations, the demo seed,
  // jobs and the stamps' upkeep run on `longWorkDb`, without that bound.
  const handle = openDatabase(config.databaseUrl, { backgroundCheckpoints: true, namedStatements: config.pgPreparedStatements, ...requestBounds(config) });
  const ran = prepared ? [] : await migrateToLatest(handle.longWorkDb);
  await checkKeysOrExit(config, handle);
  const app = await buildApp({ config, handle, clock: systemClock });
  if (ran.length) app.log.info({ migrations: ran }, 'database migrated');
  if (!prepared) await seedDemo(config, handle);
  const stampUpkeep = handle.dialect === 'postgres' ? startStampUpkeep(handle.longWorkDb, (err) => app.log.warn({ err }, 'the stamps table\'s upkeep failed')) : undefined;

  // Under a supervisor, a terminal's Ctrl-C reaches every process of the group and the
  // supervisor passes it on as SIGTERM: one signal, one graceful shutdown (a second would
  // make close-with-grace exit at once).
  if (prepared) process.on('SIGINT', () => {});
  // SIGTERM (a deployment's stop): first a drain of SHUTDOWN_DRAIN_MS (http/drain.ts), still
  // serving, /readyz 503, every answer closing its connection; then the close.
  closeWithGrace({ delay: config.shutdownDrainMs + 10_000, ...(prepared ? { skip: ['SIGINT'] } : {}) }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    if (signal === 'SIGTERM' && config.shutdownDrainMs > 0) {
      app.drain.start();
      app.log.info({ drainMs: config.shutdownDrainMs }, 'draining: /readyz answers 503, connections close after their answer');
      await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    }
    await app.close();
    await stampUpkeep?.stop();
    // Only after every plugin's onClose hook: those may still write (buffered view history).
    // A root onClose hook added here would run before them (hooks run last-added first).
    await handle.destroy();
  });

  // The orphan sweep's next run, unless one is waiting or running (one for all nodes: storage/orphans.ts).
  await scheduleOrphanSweep(handle.longWorkDb, systemClock, systemClock.now() + orphanSweepInterval(config));

  await app.listen({ port: config.port, host: config.host });
  // JOB_WORKERS=false: no polling here; the jobs this node enqueues are claimed by other nodes.
  app.jobs.start();
  if (!config.jobWorkers) app.log.info('JOB_WORKERS=false: this node claims no jobs');
  if (!prepared) console.error(`Content Platform API 2.0 at ${config.publicUrl}${BASE_PATH} (reference: ${config.publicUrl}${BASE_PATH}/docs), database: ${handle.dialect}`);
}

async function supervise(config: Config) {
  // Migrated and seeded once, by a process of its own that then exits (returning its memory).
  const code = await new Promise<number | null>((resolve) => cluster.fork({ CONTENT_PLATFORM_ROLE: 'prepare' }).once('exit', (c) => resolve(c)));
  if (code !== 0) {
    console.error('preparing the database failed; not starting the server processes');
    // A configuration problem found there (a node key that differs) keeps its 78.
    process.exit(code === 78 ? 78 : 1);
  }
  let stopping = false;
  let listening = 0;
  let failedStarts = 0;
  const start = () => cluster.fork({ CONTENT_PLATFORM_PREPARED: '1' });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // Processes that die before any listens (a port in use, a bad setting) would die again.
    if (listening === 0 && ++failedStarts >= config.webConcurrency * 2) {
      console.error('server processes keep exiting before they listen; stopping');
      process.exit(1);
    }
    console.error(`server process ${worker.process.pid} exited (${signal ?? code}); starting another`);
    start();
  });
  for (let i = 0; i < config.webConcurrency; i++) start();
  cluster.on('listening', () => {
    if (++listening === config.webConcurrency) {
      console.error(`Content Platform API 2.0 at ${config.publicUrl}${BASE_PATH} (reference: ${config.publicUrl}${BASE_PATH}/docs), ${config.webConcurrency} server processes`);
    }
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Each process finishes its requests and flushes its buffers (its own graceful shutdown).
    const workers = Object.values(cluster.workers ?? {});
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const w of workers) {
      w?.once('exit', () => { if (--left === 0) process.exit(0); });
      w?.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (cluster.isPrimary && config.webConcurrency > 1) await supervise(config);
else if (cluster.isWorker && process.env.CONTENT_PLATFORM_ROLE === 'prepare') {
  await prepare(config);
  // The channel to the supervisor would keep this process alive.
  process.exit(0);
}
else await serve(config, cluster.isWorker && process.env.CONTENT_PLATFORM_PREPARED === '1');
