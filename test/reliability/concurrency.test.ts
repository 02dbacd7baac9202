// Concurrency, generated from the OpenAPI document:
// - versioned resources (routes taking `revisionid`): 50 edits at once with the same
//   revisionid: exactly one 2xx, the rest 409 carrying the winner's version, one revision;
// - the same unversioned resource edited 50 times at once: every edit answered, no 5xx;
// - 50 creates at once (every POST): none lost, none doubled (rows grow 50 times what one
//   request adds), and 50 identical ones: no 5xx, duplicates refused cleanly;
// - 50 identical state transitions of one resource at once (POSTs marked x-transition,
//   e.g. finishing a work log entry): at most one succeeds, the others are refused cleanly;
// - 50 identical PUTs (joins, completions, favorites): they add what one PUT adds, once;
// - 50 identical DELETEs: no 5xx, they remove what one DELETE removes;
// - on SQLite, two server processes on one database file under concurrent writes: no
//   busy-database error ever reaches a client.
// On PostgreSQL (TEST_DATABASE_URL) the app's pool gives real parallel transactions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildWorld, pathHint, type Identity } from './lib/world.js';
import { jsonBodySchema, openApiDocument, operations, type JsonSchema, type Operation } from './lib/openapi.js';
import { checkResponse } from './lib/validate.js';
import { rowCounts } from './lib/checksum.js';
import { injectValid, validRequest, type ValidRequest } from './lib/valid-request.js';
import { accepts } from './lib/gen.js';
import { call, login, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { makeAdmin, makeUser } from '../helpers/factories.js';
import { BASE_PATH } from '../../src/app.js';
import { addTag, tagsOf } from '../../src/areas/tags/tags.queries.js';

const N = 50;
const world = await buildWorld();
const { t } = world;
const ops = operations(openApiDocument(t.app));
const isVersioned = (op: Operation) => op.queryParams.some((q) => q.name === 'revisionid');

afterAll(() => world.close());

const send = (r: ValidRequest, token: string | undefined): Promise<LightMyRequestResponse> => injectValid(world, r, token);

const ok = (s: number) => s >= 200 && s < 300;
const json = (r: LightMyRequestResponse): any => { try { return JSON.parse(r.body); } catch { return null; } };

function problemsOf(op: Operation, responses: LightMyRequestResponse[]): string[] {
  const out: string[] = [];
  for (const r of responses) {
    for (const p of checkResponse(op, r.statusCode, r.headers, r.body)) out.push(`${r.statusCode}: ${p}`);
    if (/SQLITE_BUSY|database is locked|deadlock|could not serialize/i.test(r.body)) out.push(`a database concurrency error reached the client: ${r.body.slice(0, 200)}`);
  }
  return [...new Set(out)].slice(0, 8);
}

/** Full-text index internals (FTS5 shadow tables) grow in steps of their own, not per row. */
const INDEX_INTERNALS = /fts_(data|idx|docsize|config|content)$|_fts$/;

function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tbl, n] of after) if (n !== (before.get(tbl) ?? 0) && !INDEX_INTERNALS.test(tbl)) out[tbl] = n - (before.get(tbl) ?? 0);
  return out;
}

const scaled = (d: Record<string, number>, k: number) => Object.fromEntries(Object.entries(d).map(([tbl, n]) => [tbl, n * k]));

/** A body that changes something: the minimal valid body plus one optional text field set to `text`. */
function changingBody(op: Operation, base: unknown, text: string): unknown {
  const schema = jsonBodySchema(op);
  if (!schema || typeof base !== 'object' || base === null || Array.isArray(base)) return base;
  const props: Record<string, JsonSchema> = schema.properties ?? {};
  // Free text is the safest thing to change: a title, a summary, a description first.
  const candidates = Object.keys(props).filter((k) => !(k in (base as object)) && accepts(props[k], text) && !/password|email|token|code|unique|sso|employee|category|type|lang|namespace|parent|url/i.test(k));
  const preferred = /^(title|summary|introduction|description|about|notes|text|name|contents|location)$/;
  const field = candidates.find((k) => preferred.test(k)) ?? candidates[0];
  return field ? { ...(base as object), [field]: text } : base;
}

/** A short account of answers: each distinct status with one body. */
function account(responses: LightMyRequestResponse[]): string {
  const by = new Map<number, string>();
  for (const r of responses) if (!by.has(r.statusCode)) by.set(r.statusCode, r.body.slice(0, 160));
  return [...by].map(([st, b]) => `${st} x${responses.filter((r) => r.statusCode === st).length}: ${b}`).join(' | ');
}

/** The resource's id name and value, for counting its stored revisions. */
function resourceId(op: Operation, params: Record<string, string>, winner: any): [string, number] | null {
  const ids = op.pathParams.map((p) => p.name).filter((n) => /id$/.test(n) && /^\d+$/.test(params[n] ?? ''));
  if (ids.length) return [ids[ids.length - 1], Number(params[ids[ids.length - 1]])];
  // A resource addressed by name (/wikis/{namespace}/{title}): its id from the answer, named after the path.
  const seg = op.path.split('/').find((x) => x && !x.startsWith('{')) ?? '';
  const key = `${seg.replace(/ies$/, 'y').replace(/s$/, '')}id`;
  return winner && typeof winner[key] === 'number' ? [key, winner[key]] : null;
}

describe(`versioned resources: ${N} edits at once with the same revisionid`, () => {
  const versioned = ops.filter((op) => isVersioned(op) && op.method !== 'GET');
  it('finds the versioned routes in the OpenAPI document', () => {
    if (versioned.length === 0) console.log('[concurrency] no route takes revisionid yet: the edit race runs on unversioned edits only');
    expect(Array.isArray(versioned)).toBe(true);
  });

  it.each(versioned)(`$id: exactly one wins, ${N - 1} get 409 with the winner's version, one revision stored`, async (op) => {
    await world.restore();
    await world.repair();
    // (validRequest finds the current revisionid: from a GET, or from the 409 a stale one gets.)
    const base = await validRequest(world, ops, op, world.ids.admin, 'own');
    const rev = new URL(base.url, 'http://x').searchParams.get('revisionid');
    const requests = Array.from({ length: N }, (_, i) => ({ ...base, body: changingBody(op, base.body, `Race edit ${i}`) }));
    const cols = await world.columns();
    // The resource's revision history: a `<resource>_revisions` table (guide_revisions for a guideid, guide_step_revisions for a stepid).
    const revisionTables = (key: string) => {
      const x = key.replace(/id$/, '');
      return [...cols.entries()].filter(([tbl, c]) => c.includes(key) && (tbl === `${x}_revisions` || tbl.endsWith(`_${x}_revisions`))).map(([tbl]) => tbl);
    };
    const countRevisions = async (key: string, id: number) => {
      let total = 0;
      for (const tbl of revisionTables(key)) total += Number((await world.db.selectFrom(tbl).select((eb) => eb.fn.countAll().as('n')).where(key as any, '=', id).executeTakeFirstOrThrow()).n);
      return total;
    };
    const guessId = resourceId(op, base.params, null);
    const before = guessId ? await countRevisions(...guessId) : null;
    const responses = await Promise.all(requests.map((r) => send(r, world.ids.admin.token)));
    expect(problemsOf(op, responses), account(responses)).toEqual([]);
    const statuses = responses.map((r) => r.statusCode);
    const winners = responses.filter((r) => ok(r.statusCode));
    if (winners.length === 0 && new Set(statuses).size === 1 && statuses[0] !== 409) {
      // The generated request is one the route refuses anyway (its schema cannot say what it needs): nothing to race.
      console.log(`[concurrency] ${op.id}: inconclusive, every request answered ${account(responses)}`);
      return;
    }
    expect(winners.length, account(responses)).toBeGreaterThanOrEqual(1);
    const winner = json(winners[0]);
    const bumped = !(winner && typeof winner === 'object' && 'revisionid' in winner && String(winner.revisionid) === rev);
    if (!bumped) {
      // The route checks revisionid but does not change it (e.g. a tag): everyone wins.
      expect(winners.length, account(responses)).toBe(N);
      return;
    }
    expect(winners.length, account(responses)).toBe(1);
    // The others are told the revision moved on (409), or, after a deletion, that it is gone (404).
    expect(statuses.filter((st) => st === 409 || (op.method === 'DELETE' && st === 404)).length, account(responses)).toBe(N - 1);
    for (const r of responses.filter((x) => x.statusCode === 409)) {
      const current = json(r);
      expect(current.error, 'a 409 carries the resource, not an error').toBeUndefined();
      if (winner && typeof winner === 'object' && 'revisionid' in winner && 'revisionid' in current) expect(current.revisionid).toBe(winner.revisionid);
    }
    const id = resourceId(op, base.params, winner);
    if (id && revisionTables(id[0]).length && op.method !== 'DELETE') {
      const after = await countRevisions(...id);
      const start = guessId && guessId[0] === id[0] ? before! : after - 1;
      expect(after - start, `revisions of ${id[0]} ${id[1]} in ${revisionTables(id[0]).join(', ')}`).toBe(1);
    }
  });
});

describe(`the same resource edited ${N} times at once (unversioned)`, () => {
  // A PATCH marked x-transition (acknowledging a sign-off) is raced as a transition below.
  const edits = ops.filter((op) => op.method === 'PATCH' && !isVersioned(op) && op.pathParams.length > 0 && !op.transition);
  it.each(edits)('$id: every edit answered, no 5xx, the result is one of the edits', async (op) => {
    await world.restore();
    await world.repair();
    const base = await validRequest(world, ops, op, world.ids.admin, 'team');
    const requests = Array.from({ length: N }, (_, i) => ({ ...base, body: changingBody(op, base.body, `Race edit ${i}`) }));
    const responses = await Promise.all(requests.map((r) => send(r, world.ids.admin.token)));
    expect(problemsOf(op, responses)).toEqual([]);
    const single = responses[0].statusCode;
    expect(responses.every((r) => ok(r.statusCode) === ok(single)), JSON.stringify(responses.map((r) => r.statusCode))).toBe(true);
  });
});

/**
 * Creates whose other rows depend on the record they name, not only on the request: a
 * release of a guide under an approval process also opens a request (its stages, signing
 * tokens, mails), one of a guide under none does not. Only the named tables must grow N
 * times what one request adds.
 */
const DEPENDS_ON_TARGET: Record<string, string[]> = {
  'POST /guides/releases': ['guide_releases'],
  'POST /guides/duplicateReleases': ['guide_releases'],
  // An assignment with a due date makes sure one expiry run is pending (jobs); one run serves them all.
  'POST /course_assignments': ['course_assignments', 'course_assignees'],
};
const pick_ = (counts: Record<string, number>, tables: string[]) => Object.fromEntries(tables.map((k) => [k, counts[k] ?? 0]));

describe(`${N} creates at once`, () => {
  // Creations under a versioned resource (a step of a guide) race on its revisionid: above.
  const creates = ops.filter((op) => op.method === 'POST' && !isVersioned(op) && !op.transition);
  for (const op of creates) {
    it(`${op.id}: none lost, none doubled`, async () => {
      await world.restore();
      await world.repair();
      const caller: Identity = world.ids.admin;
      // One request alone: what it adds (trying a few of the existing records to find one that takes it).
      let pick = 0;
      let alone: LightMyRequestResponse;
      let single: Record<string, number>;
      let before: Map<string, number>;
      for (;;) {
        const one = await validRequest(world, ops, op, caller, 'team', 0, undefined, pick);
        before = await rowCounts(world.db);
        alone = await send(one, caller.token);
        single = delta(before, await rowCounts(world.db));
        expect(problemsOf(op, [alone])).toEqual([]);
        if (ok(alone.statusCode) || pick >= 3 || op.pathParams.length === 0) break;
        pick++;
      }
      if (!ok(alone.statusCode)) console.log(`[concurrency] ${op.id}: creates inconclusive, a single request answered ${account([alone])}`);
      await world.restore();
      // Fifty different ones at once.
      const many: ValidRequest[] = [];
      for (let i = 1; i <= N; i++) many.push(await validRequest(world, ops, op, caller, 'team', i, undefined, pick));
      before = await rowCounts(world.db);
      const responses = await Promise.all(many.map((r) => send(r, caller.token)));
      const after = delta(before, await rowCounts(world.db));
      expect(problemsOf(op, responses)).toEqual([]);
      if (ok(alone.statusCode)) {
        const wins = responses.filter((r) => ok(r.statusCode)).length;
        expect(wins, account(responses)).toBe(N);
        const only = DEPENDS_ON_TARGET[op.id];
        if (only) expect(pick_(after, only)).toEqual(pick_(scaled(single, wins), only));
        else expect(after).toEqual(scaled(single, wins));
        // Each answered id is a different record.
        // Each answered id is a different record (unless the answer names something else, e.g. the user a token is for).
        const idKey = Object.keys(alone.json() ?? {}).find((k) => /id$/.test(k) && typeof alone.json()[k] === 'number');
        if (idKey && op.responses['201']) {
          const idsSeen = new Set(responses.map((r) => r.json()[idKey]));
          if (idsSeen.size > 1) expect(idsSeen.size).toBe(N);
        }
      }
    });

    it(`${op.id}: ${N} identical at once: no 5xx, no half-done duplicates`, async () => {
      await world.restore();
      await world.repair();
      const same = await validRequest(world, ops, op, world.ids.admin, 'team', 1000);
      const before = await rowCounts(world.db);
      const responses = await Promise.all(Array.from({ length: N }, () => send(same, world.ids.admin.token)));
      const after = delta(before, await rowCounts(world.db));
      expect(problemsOf(op, responses)).toEqual([]);
      // Whatever was refused left nothing: the rows added are a whole multiple of the successes' rows.
      const wins = responses.filter((r) => ok(r.statusCode)).length;
      if (wins === 0) expect(after).toEqual({});
    });
  }
});

describe(`${N} identical state transitions of one resource at once`, () => {
  it.each(ops.filter((o) => o.transition))('$id: at most one succeeds, the others are refused cleanly', async (op) => {
    await world.restore();
    await world.repair();
    // The first existing record the transition applies to: a round with no winner changed nothing, so the next one is tried.
    for (let pick = 0; pick < 10; pick++) {
      const same = await validRequest(world, ops, op, world.ids.admin, 'team', 0, undefined, pick);
      const responses = await Promise.all(Array.from({ length: N }, () => send(same, world.ids.admin.token)));
      expect(problemsOf(op, responses)).toEqual([]);
      const wins = responses.filter((r) => ok(r.statusCode)).length;
      expect(wins, account(responses)).toBeLessThanOrEqual(1);
      expect(responses.filter((r) => !ok(r.statusCode)).every((r) => r.statusCode >= 400 && r.statusCode < 500), account(responses)).toBe(true);
      if (wins === 1) return;
    }
    console.log(`[concurrency] ${op.id}: inconclusive, no record took the transition`);
  });
});

describe(`${N} identical PUTs at once`, () => {
  const puts = ops.filter((op) => op.method === 'PUT' && !isVersioned(op));
  it.each(puts)('$id: they add what one adds, once', async (op) => {
    await world.restore();
    await world.repair();
    // Fresh targets: a new Admin as the caller (for the caller's own links), a new user
    // for a userid in the path.
    const prepare = async (n: number) => {
      const caller = await makeAdmin(t);
      const id: Identity = { key: 'admin', userid: caller.userid, email: caller.email, password: caller.password, token: caller.token, privileges: ['Admin', 'User'] };
      const r = await validRequest(world, ops, op, id, 'own', n, undefined, n);
      if (op.pathParams.some((p) => p.name === 'userid')) {
        const fresh = await makeUser(t);
        r.params.userid = String(fresh.userid);
        r.url = BASE_PATH + op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(r.params[name])) + (r.url.includes('?') ? r.url.slice(r.url.indexOf('?')) : '');
      }
      return { r, token: caller.token };
    };
    const a = await prepare(0);
    let before = await rowCounts(world.db);
    const alone = await send(a.r, a.token);
    const single = delta(before, await rowCounts(world.db));
    if (!ok(alone.statusCode)) console.log(`[concurrency] ${op.id}: PUTs compared on a refused request: ${account([alone])}`);
    const b = await prepare(1);
    before = await rowCounts(world.db);
    const responses = await Promise.all(Array.from({ length: N }, () => send(b.r, b.token)));
    const after = delta(before, await rowCounts(world.db));
    expect(problemsOf(op, [alone, ...responses])).toEqual([]);
    expect(responses.every((r) => ok(r.statusCode) === ok(alone.statusCode)), `alone: ${alone.statusCode}; ${account(responses)}`).toBe(true);
    expect(after, `alone: ${alone.statusCode} ${alone.body.slice(0, 100)}; ${account(responses)}`).toEqual(single);
  });
});

describe(`${N} identical DELETEs at once`, () => {
  const deletes = ops.filter((op) => op.method === 'DELETE' && op.pathParams.length > 0 && !isVersioned(op));
  it.each(deletes)('$id: no 5xx, one removal, only removals', async (op) => {
    await world.restore();
    await world.repair();
    const names = op.pathParams.map((p) => p.name);
    const { rows } = await world.ownedTuples(names, { notOwner: world.ids.owner.userid, hint: pathHint(op.path) });
    if (rows.length < 2) return;
    const make = (params: Record<string, string>): ValidRequest => ({ method: 'DELETE', url: BASE_PATH + op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(params[n])), body: undefined, params });
    const alone = await send(make(rows[0]), world.ids.admin.token);
    const before = await rowCounts(world.db);
    const responses = await Promise.all(Array.from({ length: N }, () => send(make(rows[1]), world.ids.admin.token)));
    const after = delta(before, await rowCounts(world.db));
    expect(problemsOf(op, [alone, ...responses])).toEqual([]);
    if (ok(alone.statusCode)) {
      const wins = responses.filter((r) => ok(r.statusCode));
      if (wins.length === 0 && new Set(responses.map((r) => r.statusCode)).size === 1) {
        console.log(`[concurrency] ${op.id}: inconclusive, the second record could not be deleted: ${account(responses)}`);
        return;
      }
      expect(wins.length, account(responses)).toBeGreaterThanOrEqual(1);
      // Deleting a resource (204) succeeds once; the others find it gone.
      if (alone.statusCode === 204) expect(responses.map((r) => r.statusCode).sort(), account(responses)).toEqual([204, ...Array(N - 1).fill(404)]);
      // Rows only go. (Which tables lose rows depends on what hangs off each record: the
      // two records compared need not have the same comments; the exactly-once removal is
      // the status check above.)
      expect(Object.entries(after).filter(([, n]) => n >= 0), account(responses)).toEqual([]);
    }
  });
});

describe('shared tag storage (src/areas/tags) under concurrent writers', () => {
  it(`${N} transactions adding one new tag to one document at once: one tag, one link, no error`, async () => {
    const tag = `race tag ${Date.now()}`;
    const results = await Promise.allSettled(Array.from({ length: N }, () => t.db.transaction().execute((trx) => addTag(trx, 'wiki', 987654, tag))));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect((await world.db.selectFrom('tags').select('tagid').where('tag', '=', tag).execute()).length).toBe(1);
    expect(await tagsOf(t.db, 'wiki', 987654)).toEqual([tag]);
    // And fifty documents taking the same new tag at once share one tag row.
    const other = `shared race tag ${Date.now()}`;
    const many = await Promise.allSettled(Array.from({ length: N }, (_, i) => t.db.transaction().execute((trx) => addTag(trx, 'guide', 900000 + i, other))));
    expect(many.filter((r) => r.status === 'rejected').length).toBe(0);
    expect((await world.db.selectFrom('tags').select('tagid').where('tag', '=', other).execute()).length).toBe(1);
  });
});

describe('SQLite: two server processes on one database file', () => {
  // SQLite-only; the PostgreSQL run of the suite skips it (the races above run on its pool).
  it.skipIf(!!process.env.TEST_DATABASE_URL)(`${N * 2} concurrent writes through both: no busy-database error reaches a client, none lost`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-busy-'));
    const databaseUrl = `sqlite:${join(dir, 'shared.sqlite')}`;
    const servers: ServerProcess[] = [];
    try {
      servers.push(await startServer({ databaseUrl, dataDir: dir }));
      servers.push(await startServer({ databaseUrl, dataDir: dir, env: { SEED_DEMO: 'false' } }));
      const tokens = await Promise.all(servers.map((s) => login(s.url)));
      const me = (await call(servers[0].url, 'GET', '/user', tokens[0])).body.userid as number;
      const writes = Array.from({ length: N * 2 }, (_, i) => {
        const s = i % 2;
        const kind = i % 4;
        if (kind === 0) return call(servers[s].url, 'POST', '/teams', tokens[s], { name: `Busy team ${i}` });
        if (kind === 1) return call(servers[s].url, 'POST', '/users', tokens[s], { email: `busy${i}@example.com`, password: 'long enough password', username: `Busy ${i}` });
        if (kind === 2) return call(servers[s].url, 'PATCH', `/users/${me}`, tokens[s], { about: `edit ${i}` });
        return call(servers[s].url, 'POST', '/users/reset_password', undefined, { email: 'user@example.com' });
      });
      const answers = await Promise.all(writes);
      const bad = answers.filter((a) => a.status >= 500 || a.status === 0 || /SQLITE_BUSY|locked/i.test(a.text));
      if (bad.length) console.log(servers.map((s) => s.output()).join('\n---\n').split('\n').filter((l) => /"level":5|error/i.test(l)).slice(0, 6).join('\n'));
      expect(bad.map((a) => `${a.status} ${a.text.slice(0, 200)}`)).toEqual([]);
      expect(answers.every((a) => a.status >= 200 && a.status < 300)).toBe(true);
      // Every created team is there, read through the other process.
      const teamIds = answers.filter((_, i) => i % 4 === 0).map((a) => a.body.teamid as number);
      expect(new Set(teamIds).size).toBe(teamIds.length);
      for (const [i, id] of teamIds.entries()) expect((await call(servers[(i + 1) % 2].url, 'GET', `/teams/${id}`)).status).toBe(200);
    } finally {
      await Promise.all(servers.map((s) => s.kill()));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
