// Schema fuzzing, generated from the OpenAPI document: for every route, fast-check
// builds path parameters (existing records, valid values, hostile values), query
// parameters and bodies (valid, one field broken, garbage), sent with no token, a User
// token and an Admin token. Every response must be: not a 5xx; a declared 2xx whose body
// validates strictly against the route's response schema; the one error shape (a 409 the
// current resource). A refused request, and any GET, must leave every table as it was.
// Short run: fixed seed, FUZZ_RUNS cases per route. `npm run test:fuzz`: a long run.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { buildWorld } from './lib/world.js';
import { openApiDocument, operations, type Operation } from './lib/openapi.js';
import { checkResponse } from './lib/validate.js';
import { changedTables, checksum, LAUNCHING_GETS } from './lib/checksum.js';
import { buildRequest, caseArb, describe as describeRequest, inject, poolsFor } from './lib/requests.js';
import { BASE_SEED, fuzzRuns, LONG, replayHint, seedFor } from './lib/settings.js';

const FILE = 'test/reliability/fuzz.test.ts';
const world = await buildWorld();
const ops = orderForFuzzing(operations(openApiDocument(world.t.app)));
const FUZZ_RUNS = fuzzRuns(ops.length);
const statusTally: Record<string, number> = {};
let requests = 0;

afterAll(async () => {
  console.log(`[fuzz] seed ${BASE_SEED}, ${ops.length} routes, ${requests} requests (${world.t.dialect}); statuses ${JSON.stringify(Object.fromEntries(Object.entries(statusTally).sort()))}`);
  await world.close();
});

/** Reads first, then creations and edits, deletions last (deepest paths first), so that deletions do not starve the other routes of records. */
function orderForFuzzing(list: Operation[]): Operation[] {
  const rank = { GET: 0, POST: 1, PUT: 2, PATCH: 3, DELETE: 4 } as const;
  const depth = (op: Operation) => op.path.split('/').length;
  return [...list].sort((a, b) => rank[a.method] - rank[b.method] || (a.method === 'DELETE' ? depth(b) - depth(a) : 0));
}

function xmlRequested(url: string, method: string) {
  return method === 'GET' && /[?&]format=xml(&|$)/.test(url);
}

describe(`schema fuzzing (seed ${BASE_SEED}, ${FUZZ_RUNS} cases per route${LONG ? ', long run' : ''})`, () => {
  it('the OpenAPI document lists the API, each route with its declared access', () => {
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) expect(['none', 'user', 'author', 'moderator', 'admin']).toContain(op.access);
    // Every API route the app registered is in the document, or hidden on purpose (file serving, pages).
    const documented = new Set(ops.map((o) => `${o.method} /api/2.0${o.path.replace(/\{([^}]+)\}/g, ':$1')}`));
    const api = world.t.app.routeTable.filter((r) => r.url.startsWith('/api/2.0') && !r.url.includes('/docs'));
    const missing = api.filter((r) => !r.hidden && !documented.has(`${r.method} ${r.url}`)).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
    const hidden = api.filter((r) => r.hidden).map((r) => `${r.method} ${r.url}`);
    if (hidden.length) console.log(`[fuzz] routes outside the OpenAPI document (covered by the traversal and header checks): ${hidden.join(', ')}`);
  });

  it.each(ops)('$id', async (op) => {
    const pools = await poolsFor(world, op);
    const seed = seedFor(op.id);
    const cases = fc.sample(caseArb(op, pools), { seed, numRuns: FUZZ_RUNS });
    const failures: string[] = [];
    for (const [i, c] of cases.entries()) {
      await world.restore();
      const before = await checksum(world.db);
      const req = await buildRequest(world, op, c);
      const res = await inject(world, req);
      requests++;
      statusTally[res.statusCode] = (statusTally[res.statusCode] ?? 0) + 1;
      let problems: string[];
      if (xmlRequested(req.url, req.method) && res.headers['content-type'] === 'application/xml') {
        const valid = XMLValidator.validate(res.body);
        problems = res.statusCode >= 500 ? [`${res.statusCode}: ${res.body.slice(0, 200)}`] : res.body.startsWith('<?xml') && valid === true ? [] : [`?format=xml answered a body that is not well-formed XML: ${JSON.stringify(valid)}`];
      } else if (xmlRequested(req.url, req.method) && res.statusCode < 300 && res.statusCode !== 204) {
        problems = [`?format=xml answered ${String(res.headers['content-type'])}`];
      } else {
        problems = checkResponse(op, res.statusCode, res.headers, res.body);
      }
      if (res.statusCode >= 400 || op.method === 'GET') {
        const launches = res.statusCode < 400 ? LAUNCHING_GETS[op.id] : undefined;
        const changed = changedTables(before, await checksum(world.db)).filter((t) => !launches?.test(t));
        if (changed.length) problems.push(`${res.statusCode >= 400 ? `refused (${res.statusCode})` : 'a GET'} yet changed: ${changed.join(', ')}`);
      }
      if (problems.length) {
        failures.push(`case ${i}: ${describeRequest(req, c.identity)}\n    -> ${res.statusCode} ${res.body.slice(0, 300)}\n    ${problems.join('\n    ')}`);
        if (failures.length >= 5) break;
      }
    }
    if (failures.length) {
      throw new Error(`${op.id}: ${failures.length} failing case(s) (route seed ${seed}; ${replayHint(FILE, op.id)})\n  ${failures.join('\n  ')}`);
    }
  }, LONG ? 600_000 : 60_000);
});
