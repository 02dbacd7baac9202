// A graceful drain (SIGTERM, server.ts): for SHUTDOWN_DRAIN_MS the node keeps serving while
// /readyz answers 503 `draining` (a load balancer takes it out of rotation), and every
// response says `Connection: close`, so that a keep-alive client opens its next connection
// elsewhere instead of finding this one closed under its next request. Then the server
// closes: it accepts nothing new, finishes the requests in hand, and the job worker returns
// the leases of the jobs it cancels (jobs/queue.ts).
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain;
  }
}

export class Drain {
  draining = false;

  constructor(private app: FastifyInstance) {}

  /** Starts draining: /readyz says 503 and every response closes its connection. */
  start(): void {
    if (this.draining) return;
    this.draining = true;
    // Before Fastify's own listener, so that the header is set before any answer is written.
    this.app.server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('connection', 'close');
    });
    // Idle keep-alive connections are left open: a client may be sending its next request on
    // one right now, and closing it would reset that request. Each is closed after its next
    // answer, or when the server closes after the drain.
  }
}

export function registerDrain(app: FastifyInstance): Drain {
  const drain = new Drain(app);
  app.decorate('drain', drain);
  return drain;
}
