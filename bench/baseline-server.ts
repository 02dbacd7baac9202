// The benchmark's baseline: the framework's own ceiling. A bare Fastify route (no hooks,
// no plugins, no schema, no database) that answers each read scenario with the same
// bytes the real server answered, from memory: GET /b/<scenario>/anything. A conditional
// read's sample is `{"status": 304, "etag": tag}`: a request naming that tag in
// `If-None-Match` gets a 304 with the tag and no body, what the real server answers. A
// gzipped one's is `{"gzip": base64}`: those bytes, sent with `Content-Encoding: gzip`. A
// file's (an image variant) is `{"file": base64, "type": mime}`: those bytes with that type.
//
//   node --import tsx bench/baseline-server.ts <port> <samples.json>
// samples.json: {"<scenario>": "<the response body>" | {"status": 304, "etag": "<tag>"} | {"gzip": "<base64>"} | {"file": "<base64>", "type": "<mime>"}};
// prints "ready" when listening.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

type Sample = string | { status: 304; etag: string } | { gzip: string } | { file: string; type: string };

const [port, file] = process.argv.slice(2);
const samples = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Sample>;
const gzipped = new Set(Object.entries(samples).filter(([, v]) => typeof v === 'object' && 'gzip' in v).map(([k]) => k));
const types = new Map(Object.entries(samples).map(([k, v]) => [k, typeof v === 'object' && 'file' in v ? v.type : 'application/json']));
const bodies = new Map(Object.entries(samples).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : 'gzip' in v ? Buffer.from(v.gzip, 'base64') : 'file' in v ? Buffer.from(v.file, 'base64') : v]));
const app = Fastify({ logger: false });
app.get('/b/:scenario/*', (request, reply) => {
  const { scenario } = request.params as { scenario: string };
  const body = bodies.get(scenario);
  if (!body) return reply.code(404).send();
  if (Buffer.isBuffer(body)) {
    if (gzipped.has(scenario)) reply.header('content-encoding', 'gzip');
    return reply.header('content-type', types.get(scenario)!).send(body);
  }
  // Not the tag: a 412 (any status but 304 counts as a failure of the scenario).
  if (request.headers['if-none-match'] !== body.etag) return reply.code(412).send();
  return reply.code(304).header('etag', body.etag).send();
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('ready');
