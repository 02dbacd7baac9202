// The benchmark's baseline: the framework's own ceiling. A bare Fastify route (no hooks,
// no plugins, no schema, no database) that answers each read scenario with the same
// bytes the real server answered, from memory: GET /b/<scenario>/anything.
//
//   node --import tsx bench/baseline-server.ts <port> <samples.json>
// samples.json: {"<scenario>": "<the response body>"}; prints "ready" when listening.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, file] = process.argv.slice(2);
const samples = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
const bodies = new Map(Object.entries(samples).map(([k, v]) => [k, Buffer.from(v)]));
const app = Fastify({ logger: false });
app.get('/b/:scenario/*', (request, reply) => {
  const body = bodies.get((request.params as { scenario: string }).scenario);
  if (!body) return reply.code(404).send();
  return reply.header('content-type', 'application/json').send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('ready');
