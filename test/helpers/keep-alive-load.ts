// Keep-alive clients reading in a loop, for the tests of a stop under load
// (test/reliability/drain.test.ts: one node; test/deployment/two-nodes.test.ts: two nodes
// behind the round-robin proxy). Each client sends one GET after another on a shared
// keep-alive agent; every answer and every connection error is counted.
import { Agent, request } from 'node:http';

export type LoadAnswer = { status: number; connection: string | undefined; servedBy: string | undefined; body: string };

/** One GET on `agent` (false: a connection of its own); a connection error rejects. */
export function getOnce(url: string, agent: Agent | false): Promise<LoadAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, servedBy: res.headers['x-served-by'] as string | undefined, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export class KeepAliveLoad {
  readonly agent: Agent;
  sent = 0;
  answered = 0;
  /** Answers with `Connection: close`. */
  closingAnswers = 0;
  readonly errors: string[] = [];
  readonly statuses = new Map<number, number>();
  /** Answers per X-Served-By (the proxy's name of the node). */
  readonly servedBy = new Map<string, number>();
  private leaving: number | null = null;
  private stopped = false;
  private readonly clients: Array<Promise<void>>;
  /** Called with each answer (for counts a test keeps of its own). */
  onAnswer: (a: LoadAnswer) => void = () => {};

  constructor(readonly url: string, clients: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: clients });
    this.clients = Array.from({ length: clients }, () => this.client());
  }

  private async client() {
    let after = 0;
    while (!this.stopped && (this.leaving === null || after++ < this.leaving)) {
      this.sent++;
      try {
        const res = await getOnce(this.url, this.agent);
        this.answered++;
        this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
        if (res.servedBy) this.servedBy.set(res.servedBy, (this.servedBy.get(res.servedBy) ?? 0) + 1);
        if (res.connection === 'close') this.closingAnswers++;
        this.onAnswer(res);
      } catch (err) {
        this.errors.push(`${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`);
      }
    }
  }

  /** Polls (20 ms) until `check()` holds, or throws past `timeoutMs`. */
  async until(check: () => boolean, timeoutMs = 60_000, what = 'the load') {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (answered ${this.answered}, errors ${this.errors.length})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Each client sends `more` requests from now on, then stops; resolves when all have. */
  async leaveAfter(more: number) {
    this.leaving ??= more;
    await Promise.all(this.clients);
    this.agent.destroy();
  }

  /** Each client stops after the request in hand. */
  async stop() {
    this.stopped = true;
    await Promise.all(this.clients);
    this.agent.destroy();
  }
}
