// `npm run media:sweep [-- --dry-run] [--grace SECONDS]`: one run of the orphan sweep
// (storage/orphans.ts) on the configured storage and database, beside running servers
// (a sweep the job runs meanwhile deletes the same files; deleting one twice is harmless).
// Progress on stderr; the last line of stdout is the summary as JSON. `--dry-run` deletes
// nothing and counts what it would delete. Exits 0, 1 on an error, 64 on a usage error.
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config.js';
import { openDatabase } from '../db/database.js';
import { systemClock } from '../clock.js';
import { areas } from '../areas/index.js';
import { configuredStores, sweepOrphanObjects } from './orphans.js';

const USAGE = 'usage: npm run media:sweep -- [--dry-run] [--grace SECONDS]\n';
let values;
try {
  values = parseArgs({ options: { 'dry-run': { type: 'boolean' }, grace: { type: 'string' } } }).values;
} catch (err) {
  process.stderr.write(`media:sweep: ${(err as Error).message}\n${USAGE}`);
  process.exit(64);
}
const config = loadConfigOrExit(process.env);
const graceSeconds = values.grace === undefined ? config.mediaOrphanGraceS : /^\d+$/.test(values.grace) ? Number(values.grace) : NaN;
if (!Number.isSafeInteger(graceSeconds)) {
  process.stderr.write(`media:sweep: --grace must be a number of seconds, got "${values.grace}"\n${USAGE}`);
  process.exit(64);
}
const dryRun = values['dry-run'] === true;
const say = (line: string) => process.stderr.write(`media:sweep: ${line}\n`);
const handle = openDatabase(config.databaseUrl);
try {
  say(`${dryRun ? 'dry run: ' : ''}deleting stored files no row references, last written more than ${graceSeconds} s ago (${config.storage.kind === 's3' ? `bucket ${config.storage.bucket}` : config.dataDir})`);
  const counts = await sweepOrphanObjects(handle.db, configuredStores(config), systemClock, {
    graceSeconds, dryRun, rules: areas.flatMap((a) => a.storedFiles ?? []), log: (line) => say(line),
  });
  process.stdout.write(`${JSON.stringify({ dryRun, graceSeconds, ...counts })}\n`);
} catch (err) {
  say((err as Error).message);
  process.exitCode = 1;
} finally {
  await handle.destroy();
}
