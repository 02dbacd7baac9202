// A webhook receiver on 127.0.0.1 for the tests: it keeps every request and answers from
// a script (status and headers per request; 200 once the script is used up).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

export interface Received {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export class Receiver {
  readonly received: Received[] = [];
  script: Array<{ status: number; headers?: Record<string, string> }> = [];
  private server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      this.received.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const answer = this.script.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers ?? {});
      res.end('ok');
    });
  });
  url = '';

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** Closes every object of a schema (an undocumented field fails), as a deep copy. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Asserts that `body` matches `schema` exactly (objects closed); answers the problems or []. */
export function schemaProblems(schema: TSchema, body: unknown): string[] {
  const validate = ajv.compile(closed(JSON.parse(JSON.stringify(schema))) as object);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
