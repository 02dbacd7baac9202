// A graceful drain (http/drain.ts, server.ts): the real server as a child process, 24
// keep-alive clients reading under load, then SIGTERM. For SHUTDOWN_DRAIN_MS the server
// still serves, answers /readyz 503 `draining` and closes each connection after its answer;
// the clients stop sending once /readyz says so (as a load balancer takes the node out of
// rotation) and finish what they sent. No client sees a connection error, every request
// sent is answered 200, and the process exits 0. Both databases.
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';

const { dir, newDatabase } = scratchDatabases('drain');
const CLIENTS = 24;
const DRAIN_MS = 4_000;

type Answer = { status: number; connection: string | undefined; body: string };

function get(url: string, agent: Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('SIGTERM under keep-alive load', () => {
  it('loses no request: /readyz 503 while it still serves, every answer given, no reset, exit 0', async () => {
    const server = await startServer({ databaseUrl: await newDatabase('drain'), dataDir: dir, env: { SHUTDOWN_DRAIN_MS: String(DRAIN_MS) } });
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
      const read = `${server.url}/api/2.0/guides?limit=5`;
      const errors: string[] = [];
      const statuses = new Map<number, number>();
      let sent = 0;
      let answered = 0;
      let closingAnswers = 0;
      let drainingSeen = false;
      let answeredWhileDraining = 0;
      let stop = false;

      const client = async () => {
        let afterDrain = 0;
        // Past the drain's start, each client sends a few more requests, then leaves the node.
        while (!stop && afterDrain < 5) {
          if (drainingSeen) afterDrain++;
          sent++;
          try {
            const res = await get(read, agent);
            answered++;
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.connection === 'close') closingAnswers++;
            if (drainingSeen) answeredWhileDraining++;
          } catch (err) {
            errors.push(`${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`);
          }
        }
      };

      const clients = Array.from({ length: CLIENTS }, client);
      // Under load with every connection kept alive and busy, then the signal.
      const deadline = Date.now() + 60_000;
      while (answered < CLIENTS * 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(answered).toBeGreaterThanOrEqual(CLIENTS * 4);
      const readyz: number[] = [];
      server.proc.kill('SIGTERM');
      // The load balancer's health check: /readyz on a connection of its own.
      while (!drainingSeen && Date.now() < deadline) {
        try {
          const res = await get(`${server.url}/readyz`, false);
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
      // No drain seen (the server went away at once): the clients stop too.
      if (!drainingSeen) stop = true;
      await Promise.all(clients);
      const code = await server.exited;
      agent.destroy();

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
