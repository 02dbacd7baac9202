// A graceful drain (http/drain.ts, server.ts): the real server as a child process, 24
// keep-alive clients reading under load, then SIGTERM. For SHUTDOWN_DRAIN_MS the server
// still serves, answers /readyz 503 `draining` and closes each connection after its answer;
// the clients stop sending once /readyz says so (as a load balancer takes the node out of
// rotation) and finish what they sent. No client sees a connection error, every request
// sent is answered 200, and the process exits 0. Both databases.
import { describe, expect, it } from 'vitest';
import { startServer } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { getOnce, KeepAliveLoad } from '../helpers/keep-alive-load.js';

const { dir, newDatabase } = scratchDatabases('drain');
const CLIENTS = 24;
const DRAIN_MS = 4_000;

describe('SIGTERM under keep-alive load', () => {
  it('loses no request: /readyz 503 while it still serves, every answer given, no reset, exit 0', async () => {
    const server = await startServer({ databaseUrl: await newDatabase('drain'), dataDir: dir, env: { SHUTDOWN_DRAIN_MS: String(DRAIN_MS) } });
    try {
      const load = new KeepAliveLoad(`${server.url}/api/2.0/guides?limit=5`, CLIENTS);
      let drainingSeen = false;
      let answeredWhileDraining = 0;
      load.onAnswer = () => { if (drainingSeen) answeredWhileDraining++; };
      // Under load with every connection kept alive and busy, then the signal.
      const deadline = Date.now() + 60_000;
      await load.until(() => load.answered >= CLIENTS * 4);
      const readyz: number[] = [];
      const errors: string[] = [];
      server.proc.kill('SIGTERM');
      // The load balancer's health check: /readyz on a connection of its own.
      while (!drainingSeen && Date.now() < deadline) {
        try {
          const res = await getOnce(`${server.url}/readyz`, false);
          readyz.push(res.status);
          if (res.status === 503) {
            expect(JSON.parse(res.body)).toEqual({ status: 'draining' });
            drainingSeen = true;
          }
        } catch (err) {
          errors.push(`readyz: ${(err as Error).message}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      // Past the drain's start, each client sends a few more requests, then leaves the node;
      // no drain seen (the server went away at once): the clients stop.
      if (drainingSeen) await load.leaveAfter(5);
      else await load.stop();
      const code = await server.exited;
      const { answered, sent, statuses, closingAnswers } = load;
      errors.push(...load.errors);

      expect(drainingSeen, `readyz answers: ${readyz.join(',')}`).toBe(true);
      expect(errors).toEqual([]);
      expect(answered).toBe(sent);
      expect([...statuses.keys()]).toEqual([200]);
      // Served while draining, each such answer closing its connection.
      expect(answeredWhileDraining).toBeGreaterThanOrEqual(CLIENTS);
      expect(closingAnswers).toBeGreaterThanOrEqual(CLIENTS);
      expect(code).toBe(0);
    } finally {
      await server.kill();
    }
  }, 180_000);
});
