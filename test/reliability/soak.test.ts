// The soak (bench/soak.ts) as a test: the real server on a fresh database (SQLite, or
// PostgreSQL when TEST_DATABASE_URL is set) under the mixed load. The short run (npm test)
// is a 3-second smoke: no failed request. The long run (npm run test:long) is the
// documented 60 seconds: no failed request and flat memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prepare, soak } from '../../bench/soak.js';
import { SERVER_PASSWORD, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { adminQuery, dropDatabase, withDatabase } from '../helpers/pg.js';
import { LONG } from './lib/settings.js';

const PG = process.env.TEST_DATABASE_URL;
const DURATION = LONG ? 60 : 3;
const CONNECTIONS = LONG ? 16 : 4;

describe(`soak on ${PG ? 'PostgreSQL' : 'SQLite'}`, () => {
  it(`${DURATION} s of mixed load: no failed request${LONG ? ', flat memory' : ''}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-soak-'));
    let pgName: string | null = null;
    let server: ServerProcess | null = null;
    try {
      let databaseUrl = `sqlite:${join(dir, 'soak.sqlite')}`;
      if (PG) {
        pgName = `cp_soak_${process.pid}_${randomBytes(3).toString('hex')}`;
        await adminQuery(`CREATE DATABASE ${pgName}`);
        databaseUrl = withDatabase(PG, pgName);
      }
      server = await startServer({ databaseUrl, dataDir: dir, env: { PASSWORD_HASH_COST: '8', JOB_POLL_MS: '500' } });
      const context = await prepare(server.url, { email: 'admin@example.com', password: SERVER_PASSWORD });
      const report = await soak({ url: server.url, context, duration: DURATION, connections: CONNECTIONS, maxGrowthMb: 24, serverLog: () => server!.output() });
      console.log(`[soak] ${PG ? 'postgres' : 'sqlite'}: ${report.requests} requests in ${DURATION} s (${report.requestsPerSecond}/s), p99 ${report.latencyMs.p99} ms, errors ${report.errors}, timeouts ${report.timeouts}, non-2xx ${report.non2xx}; heap floor during the run ${report.memory.heapFloorFirstMb} -> ${report.memory.heapFloorLastMb} MB${LONG ? `, idle heap ${report.memory.heapSettledBeforeMb} -> ${report.memory.heapSettledAfterMb} MB` : ''}`);
      expect(report.failures).toEqual([]);
      expect(report.requests).toBeGreaterThan(DURATION * 20);
    } finally {
      await server?.stop();
      if (pgName) await dropDatabase(pgName);
      rmSync(dir, { recursive: true, force: true });
    }
  }, (DURATION + 150) * 1000);
});
