// A small round-robin HTTP reverse proxy: the load balancer of `npm run cluster:local`
// (scripts/cluster-local.ts) and of the two-node test (test/deployment/two-nodes.test.ts).
// Not for production (use nginx, HAProxy or the platform's balancer); it does what they do
// for this server's topology (docs/deployment.md):
//   - a health check: GET /readyz on each node every `healthIntervalMs`, on a connection of
//     its own; a node is in rotation while it answers 200 and out while it answers anything
//     else (503 `draining` after a SIGTERM) or nothing; a connection refused takes it out at once;
//   - requests go to the nodes in rotation in turn, bodies streamed both ways, over
//     keep-alive connections on both sides; hop-by-hop headers are not passed on (a node's
//     `Connection: close` while it drains closes the proxy's connection to it, not the client's);
//   - every answer names its node in `X-Served-By`;
//   - a request without a body sent on a kept-alive connection that the node closed at that
//     very moment (ECONNRESET on a reused socket) is sent again once, as Node's documentation
//     advises; any other failure before the answer is a 502, after it the client's connection
//     is closed. No node in rotation: 503.
//
// `node --import tsx scripts/round-robin-proxy.ts --port 3000 a=http://127.0.0.1:3001 b=http://127.0.0.1:3002`
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface Backend {
  /** Named in X-Served-By and in the log. */
  name: string;
  /** http://host:port, without a path. */
  url: string;
}

export interface ProxyOptions {
  port: number;
  host?: string;
  backends: Backend[];
  healthPath?: string;
  healthIntervalMs?: number;
  /** Longest a health check may take; then the node is out. */
  healthTimeoutMs?: number;
  /** Where changes of a node's state are told (none by default). */
  log?: (line: string) => void;
}

export interface ProxyStats {
  /** Answers passed on, per node. */
  served: Record<string, number>;
  /** Requests sent again after a reset on a reused connection. */
  retried: number;
  /** 502s: a node failed before its answer. */
  failed: number;
  /** 503s: no node in rotation. */
  noNode: number;
}

export interface RunningProxy {
  url: string;
  port: number;
  stats: ProxyStats;
  /** The names of the nodes in rotation. */
  inRotation(): string[];
  /** Stops the health checks and the listener; requests in hand finish. */
  close(): Promise<void>;
}

// RFC 9110 7.6.1: headers meant for one connection, never passed on.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
  const out: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

interface Node extends Backend {
  up: boolean;
  host: string;
  port: number;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const healthPath = options.healthPath ?? '/readyz';
  const interval = options.healthIntervalMs ?? 1000;
  const healthTimeout = options.healthTimeoutMs ?? 2000;
  const log = options.log ?? (() => {});
  const nodes: Node[] = options.backends.map((b) => {
    const u = new URL(b.url);
    return { ...b, up: false, host: u.hostname, port: Number(u.port || 80) };
  });
  const stats: ProxyStats = { served: Object.fromEntries(nodes.map((n) => [n.name, 0])), retried: 0, failed: 0, noNode: 0 };
  const agent = new Agent({ keepAlive: true });
  let turn = 0;

  const mark = (node: Node, up: boolean, why: string) => {
    if (node.up === up) return;
    node.up = up;
    log(`${node.name} ${up ? 'in rotation' : `out of rotation (${why})`}`);
  };

  const check = (node: Node) => new Promise<void>((done) => {
    const req = request({ host: node.host, port: node.port, path: healthPath, agent: false, timeout: healthTimeout }, (res) => {
      res.resume();
      res.on('end', () => { mark(node, res.statusCode === 200, `${healthPath} answered ${res.statusCode}`); done(); });
      res.on('error', () => { mark(node, false, `${healthPath} failed`); done(); });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => { mark(node, false, `${healthPath}: ${(err as NodeJS.ErrnoException).code ?? err.message}`); done(); });
    req.end();
  });
  let checking: Promise<unknown> | null = null;
  const checkAll = () => (checking ??= Promise.all(nodes.map(check)).finally(() => { checking = null; }));
  await checkAll();
  const timer = setInterval(() => void checkAll(), interval);

  const pick = (): Node | undefined => {
    const up = nodes.filter((n) => n.up);
    if (!up.length) return undefined;
    return up[turn++ % up.length];
  };

  const forward = (req: IncomingMessage, res: ServerResponse, retry: boolean) => {
    const node = pick();
    if (!node) {
      stats.noNode++;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ status: 'no node in rotation' }));
      return;
    }
    const bodiless = (req.headers['content-length'] === undefined || req.headers['content-length'] === '0') && req.headers['transfer-encoding'] === undefined;
    const headers = endToEnd(req.headers);
    const client = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;
    const up = request({ host: node.host, port: node.port, method: req.method, path: req.url, headers, agent });
    let answered = false;
    up.on('response', (upRes) => {
      answered = true;
      stats.served[node.name]++;
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, { ...endToEnd(upRes.headers), 'x-served-by': node.name });
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) {
        res.destroy();
        return;
      }
      // The node closed an idle kept-alive connection as this request went out on it.
      if (retry && up.reusedSocket && err.code === 'ECONNRESET' && bodiless && ['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? '')) {
        stats.retried++;
        forward(req, res, false);
        return;
      }
      if (err.code === 'ECONNREFUSED') mark(node, false, 'connection refused');
      stats.failed++;
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'bad gateway', node: node.name, error: err.code ?? err.message }));
      }
    });
    // The client went away before its answer ended: so does the request to the node.
    res.on('close', () => { if (!res.writableFinished) up.destroy(); });
    if (bodiless) up.end();
    else req.pipe(up);
  };

  const server = createServer((req, res) => forward(req, res, true));
  // The nodes bound their requests (REQUEST_TIMEOUT_MS); a long upload is not cut here.
  server.requestTimeout = 0;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host ?? '127.0.0.1', () => ok());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    stats,
    inRotation: () => nodes.filter((n) => n.up).map((n) => n.name),
    async close() {
      clearInterval(timer);
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      });
      await checking;
      agent.destroy();
    },
  };
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: process.env.PORT ?? '3000' }, host: { type: 'string', default: '127.0.0.1' }, interval: { type: 'string', default: '1000' } } });
  if (!positionals.length) {
    process.stderr.write('usage: round-robin-proxy.ts [--port 3000] [--host 127.0.0.1] [--interval 1000] name=http://host:port ...\n');
    process.exit(2);
  }
  const backends = positionals.map((p, i) => {
    const eq = p.indexOf('=');
    return eq > 0 ? { name: p.slice(0, eq), url: p.slice(eq + 1) } : { name: String.fromCharCode(97 + i), url: p };
  });
  const say = (line: string) => process.stdout.write(`proxy: ${line}\n`);
  const proxy = await startProxy({ port: Number(values.port), host: values.host, backends, healthIntervalMs: Number(values.interval), log: say });
  say(`listening at ${proxy.url}, in rotation: ${proxy.inRotation().join(', ') || 'none yet'}`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
