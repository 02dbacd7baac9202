// The authorization matrix, generated from every route's declared access (x-access in the
// OpenAPI document): each route against no token, an expired token, a revoked token, a
// User, an Author, a Moderator, an Admin, a team lead on their team, and a User acting on
// another user's resource. A request below the declared level gets exactly 401 or 403;
// an allowed caller never 401 and never 5xx; an Admin never 403; a User writing to
// someone else's resource 403 or 404; a lead on their team what an Admin gets (see
// lib/access-rules.ts for the routes where the resource-level rule differs). Every refused
// write stored nothing. Then impersonation and token lifetime.
import { afterAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildWorld, pathHint, type Identity } from './lib/world.js';
import { isWrite, openApiDocument, operations, type Access, type Operation } from './lib/openapi.js';
import { checkResponse } from './lib/validate.js';
import { changedTables, checksum } from './lib/checksum.js';
import { injectValid, validRequest, type Scope, type ValidRequest } from './lib/valid-request.js';
import { RULES, SELF_SERVICE } from './lib/access-rules.js';
import { makeUser } from '../helpers/factories.js';
import { issueToken } from '../../src/areas/users/users.service.js';
import { BASE_PATH } from '../../src/app.js';

const world = await buildWorld();
const { t, ids } = world;
const ops = operations(openApiDocument(t.app));

// Tokens that must not work: one past its lifetime, one revoked by logging out.
const expiredUser = await makeUser(t, { username: 'Rel expired' });
t.clock.advance(-(t.config.tokenTtl + 60));
const expiredToken = (await issueToken(t.db, t.config, t.clock, expiredUser.userid)).token;
t.clock.advance(t.config.tokenTtl + 60);
const revokedUser = await makeUser(t, { username: 'Rel revoked' });
const logout = await t.del('/user/token', { token: revokedUser.token });
if (logout.statusCode !== 204) throw new Error(`logout answered ${logout.statusCode}`);

type Privilege = 'User' | 'Author' | 'Moderator' | 'Admin';
interface Cell {
  name: string;
  token: () => string | undefined;
  caller: () => Identity | null;
  privilege: Privilege | null;
  scope: Scope;
}

const CELLS: Cell[] = [
  { name: 'no token', token: () => undefined, caller: () => null, privilege: null, scope: 'team' },
  { name: 'expired token', token: () => expiredToken, caller: () => null, privilege: null, scope: 'team' },
  { name: 'revoked token', token: () => revokedUser.token, caller: () => null, privilege: null, scope: 'team' },
  { name: 'User', token: () => ids.user.token, caller: () => ids.user, privilege: 'User', scope: 'own' },
  { name: 'Author', token: () => ids.author.token, caller: () => ids.author, privilege: 'Author', scope: 'own' },
  { name: 'Moderator', token: () => ids.moderator.token, caller: () => ids.moderator, privilege: 'Moderator', scope: 'own' },
  { name: "another user's resource", token: () => ids.other.token, caller: () => ids.other, privilege: 'User', scope: 'others' },
  { name: 'team lead', token: () => ids.lead.token, caller: () => ids.lead, privilege: 'User', scope: 'team' },
  { name: 'Admin', token: () => ids.admin.token, caller: () => ids.admin, privilege: 'Admin', scope: 'team' },
];

function satisfies(p: Privilege, access: Access): boolean {
  if (access === 'none' || access === 'user' || p === 'Admin') return true;
  return (access === 'author' && p === 'Author') || (access === 'moderator' && p === 'Moderator');
}

const table: Array<[string, Record<string, number>]> = [];
let ownerColumns = new Map<string, string | null>();

afterAll(async () => {
  const reached = table.filter(([, row]) => Object.values(row).some((s) => s >= 200 && s < 300)).length;
  const lines = table.map(([id, row]) => `${id.padEnd(58)} ${CELLS.map((c) => String(row[c.name] ?? '-').padStart(4)).join(' ')}`);
  console.log(`[auth matrix] ${table.length} routes x ${CELLS.length} identities = ${table.length * CELLS.length} cells (${t.dialect}); ${reached} routes reached a 2xx\n` +
    `${''.padEnd(58)} ${CELLS.map((c) => c.name.slice(0, 4).padStart(4)).join(' ')}\n${lines.join('\n')}`);
  await world.close();
});

const send = (r: ValidRequest, token: string | undefined): Promise<LightMyRequestResponse> => injectValid(world, r, token);

async function ownerColumnOf(op: Operation): Promise<string | null> {
  if (!ownerColumns.has(op.id)) {
    const names = op.pathParams.map((p) => p.name);
    ownerColumns.set(op.id, names.length ? (await world.ownedTuples(names, { hint: pathHint(op.path) })).ownerColumn : null);
  }
  return ownerColumns.get(op.id)!;
}

describe('authorization matrix', () => {
  it('covers every route of the OpenAPI document', () => {
    expect(ops.length).toBeGreaterThan(20);
    ownerColumns = new Map();
  });

  it.each(ops)('$id ($access)', async (op) => {
    const row: Record<string, number> = {};
    const classes: Record<string, boolean> = {};
    const problems: string[] = [];
    let otherCheck: { status: number; where: string; allowed: number[] } | null = null;
    for (const [n, cell] of CELLS.entries()) {
      await world.repair();
      await world.restore();
      const req = await validRequest(world, ops, op, cell.caller(), cell.scope, n);
      const before = await checksum(world.db);
      const res = await send(req, cell.token());
      row[cell.name] = res.statusCode;
      classes[cell.name] = res.statusCode >= 200 && res.statusCode < 300;
      const where = `${cell.name}: ${req.method} ${req.url}${req.body !== undefined ? ` ${JSON.stringify(req.body).slice(0, 200)}` : ''} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
      for (const p of checkResponse(op, res.statusCode, res.headers, res.body)) problems.push(`${where}\n      ${p}`);
      if (res.statusCode >= 400 && isWrite(op)) {
        const changed = changedTables(before, await checksum(world.db));
        if (changed.length) problems.push(`${where}\n      refused, yet stored: ${changed.join(', ')}`);
      }
      const s = res.statusCode;
      const fail = (why: string) => problems.push(`${where}\n      ${why}`);
      if (cell.privilege === null) {
        // One rule for every refusal of a caller without a token: 401, never 403.
        if (s === 403) fail('403 to a caller without a valid token: expected 401');
        if (cell.name !== 'no token') {
          if (s !== 401) fail('expected 401: the token is not valid');
          else if (res.json().code !== 'invalid_token') fail('expected code invalid_token');
        } else if (op.access !== 'none' && s !== 401) fail(`expected 401: the route needs ${op.access}`);
        continue;
      }
      if (!satisfies(cell.privilege, op.access)) {
        if (s !== 403) fail(`expected 403: ${cell.privilege} is below ${op.access}`);
        continue;
      }
      if (s === 401) fail('401 for a valid token on a route its privilege allows');
      const rule = RULES[op.id] ?? {};
      if (cell.name === 'Admin' && s === 403 && !rule.admin?.includes(403)) fail('an Admin was refused (403)');
      if (cell.name === "another user's resource" && isWrite(op) && op.pathParams.length && !SELF_SERVICE.has(op.id) && (await ownerColumnOf(op))) {
        otherCheck = { status: s, where, allowed: rule.other ?? [403, 404] };
      }
    }
    // A User writing to someone else's resource is refused, unless the request was one no
    // one could make (an Admin got a 409 or 422 for the same request too: inconclusive).
    if (otherCheck && !otherCheck.allowed.includes(otherCheck.status) && !(otherCheck.status >= 400 && [409, 422].includes(row.Admin))) {
      problems.push(`${otherCheck.where}\n      a User wrote to another user's resource: expected ${otherCheck.allowed.join(' or ')}`);
    }
    // A lead does on their team (a /teams/{teamid}... route) what an Admin does there, unless the route says otherwise.
    if (op.pathParams[0]?.name === 'teamid') {
      const rule = RULES[op.id]?.lead;
      const lead = row['team lead'];
      if (rule) {
        if (!rule.includes(lead)) problems.push(`team lead: expected ${rule.join(' or ')}, got ${lead}`);
      } else if (classes['team lead'] !== classes.Admin && satisfies('User', op.access)) {
        problems.push(`team lead got ${lead} where an Admin got ${row.Admin} on the same team`);
      }
    }
    table.push([op.id, row]);
    if (problems.length) throw new Error(`${op.id} (access ${op.access}):\n  ${problems.join('\n  ')}`);
  });

  it('reaches a 2xx on most routes with the generated requests (coverage of the success paths)', () => {
    const reached = table.filter(([, row]) => Object.values(row).some((s) => s >= 200 && s < 300));
    const missing = table.filter(([, row]) => !Object.values(row).some((s) => s >= 200 && s < 300)).map(([id]) => id);
    if (missing.length) console.log(`[auth matrix] no identity reached a 2xx on: ${missing.join(', ')}`);
    expect(reached.length / Math.max(1, table.length)).toBeGreaterThanOrEqual(0.8);
  });
});

// Who oversees whom (src/areas/shared/oversight.ts): on every route that asks "Admins and the
// user's team leads", a lead is refused for their own account and for a user they invited who
// has not accepted; the lead's accepted member is the control (allowed), and an Admin acts on
// their own account (marked self_override, see test/areas/shared/oversight.test.ts). A
// refused write stores nothing.
describe('oversight: self-oversight and invited membership', async () => {
  const { makePublishedGuide } = await import('../helpers/factories/guides.js');
  const { makeCourse } = await import('../helpers/factories/assessments.js');
  type Req = { method: 'GET' | 'POST' | 'PATCH'; url: string; body?: unknown };
  const fixture = async () => {
    await world.restore();
    await world.repair();
    const invitee = await makeUser(t, { username: 'Rel invitee' });
    const invited = await t.put(`/teams/${world.teamid}/users/${invitee.userid}`, { token: ids.lead.token });
    if (invited.statusCode !== 202) throw new Error(`invitation answered ${invited.statusCode} ${invited.body}`);
    const guide = await makePublishedGuide(t, ids.author as any);
    const course = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid }], [ids.lead.userid, ids.member.userid, invitee.userid, ids.admin.userid]);
    return { invitee, guideid: guide.guideid as number, stageid: course.stageids[0] };
  };
  type F = Awaited<ReturnType<typeof fixture>>;
  // [route, request for a user, whether the user reads it about themself]
  const ROWS: Array<[string, (userid: number, f: F) => Req, boolean]> = [
    ['PATCH /course_assignments/User/completeAll/{assignee_userid}', (u) => ({ method: 'PATCH', url: `/course_assignments/User/completeAll/${u}` }), false],
    ['PATCH /course_assignments/User/invalidateAll/{assignee_userid}', (u) => ({ method: 'PATCH', url: `/course_assignments/User/invalidateAll/${u}` }), false],
    ['PATCH /course_assignments/invalidate/{doctype}/{docid}/{userid}', (u, f) => ({ method: 'PATCH', url: `/course_assignments/invalidate/guide/${f.guideid}/${u}` }), false],
    ['POST /course_assignments/stage_completions', (u, f) => ({ method: 'POST', url: '/course_assignments/stage_completions', body: { completions: [{ userid: u, course_stageid: f.stageid }] } }), false],
    ['POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}', (u, f) => ({ method: 'POST', url: `/skills/ratings/supervisor/guide/${f.guideid}/${u}`, body: { rating: 1 } }), false],
    ['POST /skills/ratings/supervisor', (u, f) => ({ method: 'POST', url: '/skills/ratings/supervisor', body: { ratings: [{ userid: u, doctype: 'guide', docid: f.guideid, rating: 1 }] } }), false],
    ['GET /skills/ratings/{doctype}/{docid}/{userid}', (u, f) => ({ method: 'GET', url: `/skills/ratings/guide/${f.guideid}/${u}` }), false],
    ['PATCH /quizzes/sessions/userInvalidateAll/{userid}', (u) => ({ method: 'PATCH', url: `/quizzes/sessions/userInvalidateAll/${u}` }), false],
    ['GET /quizzes/sessions?userid=', (u) => ({ method: 'GET', url: `/quizzes/sessions?userid=${u}` }), true],
    ['GET /course_assignments/completion/user/{userid}', (u) => ({ method: 'GET', url: `/course_assignments/completion/user/${u}` }), true],
    ['GET /course_assignments/individualSummaries/{userid}', (u) => ({ method: 'GET', url: `/course_assignments/individualSummaries/${u}` }), true],
    ['GET /course_assignments/sources/user/{assigneeid}', (u) => ({ method: 'GET', url: `/course_assignments/sources/user/${u}` }), true],
    ['GET /courses/stage-sign-offs/requests/pending/{userid}', (u) => ({ method: 'GET', url: `/courses/stage-sign-offs/requests/pending/${u}` }), true],
    ['GET /courses/stage-sign-offs/responses/unacknowledged/{userid}', (u) => ({ method: 'GET', url: `/courses/stage-sign-offs/responses/unacknowledged/${u}` }), true],
  ];
  const call = (r: Req, who: Identity) => t.app.inject({ method: r.method, url: BASE_PATH + r.url, headers: { authorization: `api ${who.token}` }, ...(r.body !== undefined ? { payload: r.body as object } : {}) });

  it.each(ROWS)('%s', async (_route, build, selfRead) => {
    const f = await fixture();
    const problems: string[] = [];
    const expectRefused = async (cell: string, r: Req) => {
      const before = await checksum(world.db);
      const res = await call(r, ids.lead);
      if (res.statusCode !== 403) problems.push(`${cell}: ${r.method} ${r.url} -> ${res.statusCode} ${res.body.slice(0, 200)} (expected 403)`);
      if (r.method !== 'GET') {
        const changed = changedTables(before, await checksum(world.db));
        if (changed.length) problems.push(`${cell}: refused, yet stored: ${changed.join(', ')}`);
      }
    };
    const expectAllowed = async (cell: string, r: Req, who: Identity) => {
      const res = await call(r, who);
      if (res.statusCode < 200 || res.statusCode >= 300) problems.push(`${cell}: ${r.method} ${r.url} -> ${res.statusCode} ${res.body.slice(0, 200)} (expected 2xx)`);
    };
    // the invited user is overseen by no one of the team until they accept
    await expectRefused('lead on an invited user', build(f.invitee.userid, f));
    if (selfRead) await expectAllowed('lead on their own account (reading their own)', build(ids.lead.userid, f), ids.lead);
    else await expectRefused('lead on their own account', build(ids.lead.userid, f));
    await expectAllowed('lead on their accepted member', build(ids.member.userid, f), ids.lead);
    await expectAllowed('Admin on their own account', build(ids.admin.userid, f), ids.admin);
    // accepted, the invitation makes the lead their overseer
    const accepted = await t.put(`/teams/${world.teamid}/users/${f.invitee.userid}/accept`, { token: f.invitee.token });
    if (accepted.statusCode !== 200) problems.push(`accept answered ${accepted.statusCode}`);
    await expectAllowed('lead on the invited user once accepted', build(f.invitee.userid, f), ids.lead);
    await t.db.deleteFrom('team_members').where('userid', '=', f.invitee.userid).execute();
    if (problems.length) throw new Error(problems.join('\n'));
  });
});

describe('media ownership', () => {
  // Private library items of another user, named by every write that takes a media id.
  // Each is a 422 naming the field, and nothing is stored.
  const now = () => t.clock.now();
  const privateItems = async () => {
    const owner = ids.other.userid;
    const image = (await t.db.insertInto('images').values({ guid: `mx${Date.now()}${Math.random()}`.replace(/\W/g, '').slice(0, 16), userid: owner, width: 8, height: 8, mime: 'image/png', created_date: now() }).returning('imageid').executeTakeFirstOrThrow()).imageid;
    const video = (await t.db.insertInto('videos').values({ guid: `mv${Date.now()}${Math.random()}`.replace(/\W/g, '').slice(0, 16), userid: owner, filename: 'v.mp4', created_date: now() }).returning('videoid').executeTakeFirstOrThrow()).videoid;
    const document = (await t.db.insertInto('documents').values({ guid: `md${Date.now()}${Math.random()}`.replace(/\W/g, '').slice(0, 16), userid: owner, filename: 'p.pdf', mime: 'application/pdf', size: 1, md5: null, blob_key: 'originals/none', created_date: now() }).returning('documentid').executeTakeFirstOrThrow()).documentid;
    return { image, video, document };
  };
  const sharedGuide = async () => {
    const category = (await t.db.selectFrom('wikis').select('title').where('namespace', '=', 'CATEGORY').limit(1).executeTakeFirstOrThrow()).title;
    const g = (await t.post('/guides', { token: ids.author.token, body: { type: 'replacement', title: 'Media matrix guide', category, public: true } })).json();
    await t.put(`/guides/${g.guideid}/users/${ids.user.userid}`, { token: ids.author.token });
    return g as { guideid: number; revisionid: number };
  };
  const wikiid = async () => (await t.db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'WIKI').limit(1).executeTakeFirstOrThrow()).wikiid;
  type Row = [string, () => Identity, (m: Awaited<ReturnType<typeof privateItems>>) => Promise<{ method: 'POST' | 'PATCH'; url: string; body: unknown; field: string }>];
  const ROWS: Row[] = [
    ['guide documents (collaborator)', () => ids.user, async (m) => { const g = await sharedGuide(); return { method: 'PATCH', url: `/guides/${g.guideid}?revisionid=${g.revisionid}`, body: { documents: [m.document] }, field: 'documents[0]' }; }],
    ['guide image (collaborator)', () => ids.user, async (m) => { const g = await sharedGuide(); return { method: 'PATCH', url: `/guides/${g.guideid}?revisionid=${g.revisionid}`, body: { imageid: m.image }, field: 'imageid' }; }],
    ['step image (collaborator)', () => ids.user, async (m) => { const g = await sharedGuide(); return { method: 'POST', url: `/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, body: { lines: [{ text: 'x' }], media: { type: 'image', data: [m.image] } }, field: 'media.data[0]' }; }],
    ['step video (Author)', () => ids.author, async (m) => { const g = await sharedGuide(); return { method: 'POST', url: `/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, body: { lines: [{ text: 'x' }], media: { type: 'object', data: m.video } }, field: 'media.data' }; }],
    ['avatar (User)', () => ids.user, async (m) => ({ method: 'PATCH', url: `/users/${ids.user.userid}`, body: { imageid: m.image }, field: 'imageid' })],
    ['avatar (Admin for a user)', () => ids.admin, async (m) => ({ method: 'PATCH', url: `/users/${ids.user.userid}`, body: { imageid: m.image }, field: 'imageid' })],
    ['team image (lead)', () => ids.lead, async (m) => ({ method: 'PATCH', url: `/teams/${world.teamid}`, body: { imageid: m.image }, field: 'imageid' })],
    ['comment media (User)', () => ids.user, async (m) => ({ method: 'POST', url: `/comments/wiki/${await wikiid()}`, body: { text: 'A comment of twelve characters at least.', media: [{ type: 'video', id: m.video }] }, field: 'media[0].id' })],
    ['wiki image (Author)', () => ids.author, async (m) => ({ method: 'POST', url: '/wikis', body: { namespace: 'WIKI', title: `Matrix ${Date.now()}`, contents: 'x', image: m.image }, field: 'image' })],
  ];
  it.each(ROWS)('%s: another user\'s private item is a 422 and stores nothing', async (_name, who, build) => {
    await world.restore();
    const req = await build(await privateItems());
    const before = await checksum(world.db);
    const res = await t.app.inject({ method: req.method, url: BASE_PATH + req.url, headers: { authorization: `api ${who().token}` }, payload: req.body as object });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(req.field);
    expect(changedTables(before, await checksum(world.db))).toEqual([]);
  });
});

describe('impersonation', () => {
  it('an Admin gets a token that acts as the user, with the user\'s privileges, recorded as impersonated', async () => {
    await world.restore();
    const res = await t.post('/user/token/impersonate', { token: ids.admin.token, body: { userid: ids.member.userid } });
    expect(res.statusCode).toBe(201);
    const token = res.json().authToken as string;
    const me = await t.get('/user', { token });
    expect(me.statusCode).toBe(200);
    expect(me.json().userid).toBe(ids.member.userid);
    expect(me.json().privileges).toEqual(['User']);
    // The Admin's power does not come along.
    for (const op of ops.filter((o) => o.access === 'admin')) {
      const req = await validRequest(world, ops, op, ids.member, 'own');
      const before = await checksum(world.db);
      const out = await send(req, token);
      expect(out.statusCode, `${op.id} with an impersonation token`).toBe(403);
      expect(changedTables(before, await checksum(world.db))).toEqual([]);
    }
    // It cannot impersonate onwards.
    expect((await t.post('/user/token/impersonate', { token, body: { userid: ids.admin.userid } })).statusCode).toBe(403);
    const row = await t.db.selectFrom('tokens').select(['impersonated_by', 'expires_date']).where('userid', '=', ids.member.userid).where('impersonated_by', 'is not', null).orderBy('created_date', 'desc').executeTakeFirstOrThrow();
    expect(row.impersonated_by).toBe(ids.admin.userid);
    // It lives no longer than any token, and logging out ends it.
    expect(row.expires_date).toBe(t.clock.now() + t.config.tokenTtl);
    expect((await t.del('/user/token', { token })).statusCode).toBe(204);
    expect((await t.get('/user', { token })).statusCode).toBe(401);
  });

  it('only an Admin impersonates, and only an existing user', async () => {
    await world.restore();
    for (const who of [ids.user, ids.author, ids.moderator, ids.lead]) {
      const before = await checksum(world.db);
      expect((await t.post('/user/token/impersonate', { token: who.token, body: { userid: ids.admin.userid } })).statusCode).toBe(403);
      expect(changedTables(before, await checksum(world.db))).toEqual([]);
    }
    expect((await t.post('/user/token/impersonate', { body: { userid: ids.user.userid } })).statusCode).toBe(401);
    expect((await t.post('/user/token/impersonate', { token: ids.admin.token, body: { userid: 2_000_000_000 } })).statusCode).toBe(404);
  });

  it('an impersonation token works only while its Admin is an enabled Admin, on every route', async () => {
    await world.restore();
    const impersonator = await makeUser(t, { privileges: ['Admin', 'User'], username: 'Rel impersonator' });
    const res = await t.post('/user/token/impersonate', { token: impersonator.token, body: { userid: ids.admin.userid } });
    expect(res.statusCode).toBe(201);
    const token = res.json().authToken as string;
    expect((await t.get('/user', { token })).statusCode).toBe(200);
    // Demoted behind the API's back (no revocation ran): the token's next use is refused.
    await t.db.updateTable('users').set({ privileges: 'User' }).where('userid', '=', impersonator.userid).execute();
    for (const op of ops.filter((o) => o.access !== 'none')) {
      const req = await validRequest(world, ops, op, ids.admin, 'team');
      const before = await checksum(world.db);
      const out = await send(req, token);
      expect(out.statusCode, `${op.id} with the token of a demoted impersonator`).toBe(401);
      expect(changedTables(before, await checksum(world.db))).toEqual([]);
    }
    // Every route with two checksums of every table: on PostgreSQL a checksum is about 0.1 s
    // (82 tables), so the loop takes about 45 s, past the default 30.
  }, 180_000);

  it('impersonating a disabled account gives a token that does not work', async () => {
    await world.restore();
    const u = await makeUser(t);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', u.userid).execute();
    const res = await t.post('/user/token/impersonate', { token: ids.admin.token, body: { userid: u.userid } });
    if (res.statusCode === 201) expect((await t.get('/user', { token: res.json().authToken })).statusCode).toBe(401);
    else expect([403, 422]).toContain(res.statusCode);
  });
});

describe('anonymous reads of private content', () => {
  it('every read the Admin may make of a private guide and what hangs on it answers 401 to a caller without a token, never 403', async () => {
    await world.restore();
    // Every guide private for the time of the test: whatever a read reaches is then private.
    const saved = await t.db.selectFrom('guides').select(['guideid', 'langid', 'public']).execute();
    await t.db.updateTable('guides').set({ public: 0 }).execute();
    const refused: string[] = [];
    let hidden = 0;
    try {
      for (const op of ops.filter((o) => o.method === 'GET' && o.access === 'none' && o.pathParams.length > 0)) {
        const req = await validRequest(world, ops, op, ids.admin, 'team');
        const admin = await send(req, ids.admin.token);
        const anonymous = await send(req, undefined);
        if (anonymous.statusCode === 403) refused.push(`${op.id} ${req.url}: 403`);
        // What the Admin reads and an anonymous caller may not: 401 (or 404 where existence is hidden).
        if (admin.statusCode === 200 && anonymous.statusCode >= 400 && ![401, 404].includes(anonymous.statusCode)) refused.push(`${op.id} ${req.url}: ${anonymous.statusCode}`);
        if (admin.statusCode === 200 && anonymous.statusCode === 401) hidden++;
      }
      // What hangs on a private guide by another route: a comment on it and on its step.
      // A guide that is there (the loop's requests may have deleted some), the same one on every database.
      const guide = (await t.db.selectFrom('guides').select(['guideid', 'langid']).where('deleted', '=', 0).orderBy('guideid').orderBy('langid').limit(1).executeTakeFirstOrThrow());
      const record = (await t.get(`/guides/${guide.guideid}?langid=${guide.langid}`, { token: ids.admin.token })).json();
      const contexts = [`guide/${guide.guideid}`, ...(record.steps?.length ? [`step/${record.steps[0].stepid}`] : [])];
      for (const context of contexts) {
        const made = await t.post(`/comments/${context}`, { token: ids.admin.token, body: { text: 'A comment on a private guide.' } });
        expect(made.statusCode, context).toBe(201);
        const res = await t.get(`/comments/${made.json().commentid}`);
        if (res.statusCode !== 401) refused.push(`GET /comments/{commentid} on a ${context}: ${res.statusCode}`);
        else hidden++;
      }
    } finally {
      for (const g of saved) await t.db.updateTable('guides').set({ public: g.public }).where('guideid', '=', g.guideid).where('langid', '=', g.langid).execute();
    }
    expect(refused).toEqual([]);
    expect(hidden, 'reads of private guides refused to an anonymous caller').toBeGreaterThan(3);
  });
});

describe('token lifetime', () => {
  it('a token works until its expiry second and not from it on', async () => {
    await world.restore();
    const u = await makeUser(t);
    const login = await t.post('/user/token', { body: { email: u.email, password: u.password } });
    expect(login.statusCode).toBe(201);
    const { authToken, token_expires } = login.json();
    expect(token_expires).toBe(t.clock.now() + t.config.tokenTtl);
    const start = t.clock.now();
    try {
      t.clock.set(token_expires - 1);
      expect((await t.get('/user', { token: authToken })).statusCode).toBe(200);
      t.clock.set(token_expires);
      const out = await t.get('/user', { token: authToken });
      expect(out.statusCode).toBe(401);
      expect(out.json().code).toBe('invalid_token');
      // Expired is expired on public routes too, and nothing is written with it.
      expect((await t.get('/users', { token: authToken })).statusCode).toBe(401);
      const before = await checksum(world.db);
      expect((await t.patch(`/users/${u.userid}`, { token: authToken, body: { about: 'late' } })).statusCode).toBe(401);
      expect(changedTables(before, await checksum(world.db))).toEqual([]);
      // A new login works again.
      const again = await t.post('/user/token', { body: { email: u.email, password: u.password } });
      expect(again.statusCode).toBe(201);
      expect((await t.get('/user', { token: again.json().authToken })).statusCode).toBe(200);
    } finally {
      t.clock.set(start);
    }
  });

  it('logging out revokes that token only; a password change revokes the others', async () => {
    await world.restore();
    const u = await makeUser(t);
    const second = (await t.post('/user/token', { body: { email: u.email, password: u.password } })).json().authToken as string;
    expect((await t.del('/user/token', { token: u.token })).statusCode).toBe(204);
    expect((await t.get('/user', { token: u.token })).statusCode).toBe(401);
    expect((await t.get('/user', { token: second })).statusCode).toBe(200);
    const third = (await t.post('/user/token', { body: { email: u.email, password: u.password } })).json().authToken as string;
    expect((await t.patch(`/users/${u.userid}`, { token: second, body: { password: 'another long password', current_password: u.password } })).statusCode).toBe(200);
    expect((await t.get('/user', { token: second })).statusCode).toBe(200);
    expect((await t.get('/user', { token: third })).statusCode).toBe(401);
  });

  it('an empty Authorization header is no header, on every route', async () => {
    await world.restore();
    for (const op of ops) {
      for (const authorization of ['', ' ']) {
        // A request per send: some work once (a reset token).
        await world.restore();
        const none = await send(await validRequest(world, ops, op, null, 'team'), undefined);
        await world.restore();
        const empty = await injectValid(world, await validRequest(world, ops, op, null, 'team'), undefined, { authorization });
        expect(empty.statusCode, `${op.id} with Authorization: "${authorization}" (without: ${none.statusCode})`).toBe(none.statusCode);
      }
    }
  });

  it('malformed Authorization headers are 401, never 500, on every route', async () => {
    await world.restore();
    const headers = ['api', 'api ', 'Basic dXNlcjpwYXNz', `api ${ids.admin.token} extra`, `api  ${ids.admin.token}x`, 'Bearer', 'api \u00e9', `API ${'a'.repeat(5000)}`, 'api null', 'api undefined'];
    for (const op of ops) {
      const url = BASE_PATH + op.path.replace(/\{([^}]+)\}/g, '1');
      for (const authorization of headers) {
        const res = await t.app.inject({ method: op.method, url, headers: { authorization } });
        expect(res.statusCode, `${op.id} with Authorization: ${authorization.slice(0, 40)}`).toBe(401);
      }
    }
  });
});

// Privacy is per language: a guide public in `en` and private in `de` (its translation).
// Every read that spans a guide's languages, or derives a value from other guides,
// shows each caller only the languages they read: the owner (an Author) and Admins see
// the `de` rows, anonymous callers and other users never do.
describe('per-language privacy', async () => {
  const { buildTestApp } = await import('../helpers/app.js');
  const { makeAdmin, makeAuthor } = await import('../helpers/factories.js');
  const { makeGuide, makePublishedGuide } = await import('../helpers/factories/guides.js');
  const p = await buildTestApp({ config: { languages: ['en', 'de'] } });
  afterAll(() => p.close());
  const [owner, admin, plain, stranger] = [await makeAuthor(p), await makeAdmin(p), await makeUser(p), await makeUser(p)];
  const ok = (res: LightMyRequestResponse, what: string) => {
    if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  // The guide: public in en, private in de; a step, a release, a suspended work log entry and a comment in each.
  const en = await makePublishedGuide(p, owner, 1);
  const de0 = ok(await p.post('/guides', { token: owner.token, body: { guideid: en.guideid, langid: 'de', type: 'replacement', category: en.category, title: 'Geheim' } }), 'translation');
  const de = ok(await p.post(`/guides/${en.guideid}/steps?revisionid=${de0.revisionid}&langid=de`, { token: owner.token, body: { title: 'Geheimer Schritt', lines: [{ text: 'geheim' }] } }), 'step');
  const release = async (langid: string, notes: string) => ok(await p.post('/guides/releases', { token: owner.token, body: { guideid: en.guideid, langid, type: 'major', notes } }), 'release');
  const relEn = await release('en', 'public notes');
  const relDe = await release('de', 'secret notes');
  const suspended = async (who: typeof owner, langid: string) => {
    const e = ok(await p.post('/work_log', { token: who.token, body: { guideid: en.guideid, langid } }), 'work log');
    ok(await p.post(`/work_log/${e.entryid}/suspend`, { token: who.token }), 'suspend');
    return e.entryid as number;
  };
  const entryDe = await suspended(owner, 'de');
  const entryEn = await suspended(owner, 'en');
  const commentDe = ok(await p.post(`/comments/guide/${en.guideid}`, { token: owner.token, body: { text: 'geheimer Kommentar', langid: 'de' } }), 'comment').commentid as number;
  const commentEn = ok(await p.post(`/comments/guide/${en.guideid}`, { token: owner.token, body: { text: 'a public comment', langid: 'en' } }), 'comment').commentid as number;
  const stepCommentDe = ok(await p.post(`/comments/step/${de.steps[0].stepid}`, { token: owner.token, body: { text: 'geheimer Schrittkommentar' } }), 'comment').commentid as number;

  // A public guide whose one prerequisite is private, modified after it.
  const hidden = await makeGuide(p, owner);
  p.clock.advance(100);
  const requiring = await makePublishedGuide(p, owner, 0, { prerequisites: [hidden.guideid] });
  p.clock.advance(100);
  const hiddenNow = ok(await p.patch(`/guides/${hidden.guideid}?revisionid=${hidden.revisionid}`, { token: owner.token, body: { summary: 'changed later' } }), 'edit');

  const ids = (list: Array<Record<string, number>>, key: string) => list.map((x) => x[key]);
  const callers = { anonymous: undefined, 'a User': plain.token, 'another User': stranger.token } as Record<string, string | undefined>;
  const readers = { 'the owner': owner.token, 'an Admin': admin.token } as Record<string, string | undefined>;

  // [row, request, what the de row shows in the answer, what the en row shows]
  const ROWS: Array<[string, string, (body: any) => unknown[], boolean]> = [
    ['GET /guides/{id}/releases', `/guides/${en.guideid}/releases`, (b) => ids(b.releases, 'releaseid'), false],
    ['GET /guides/releases?guideid=', `/guides/releases?guideid=${en.guideid}`, (b) => ids(b.releases, 'releaseid'), false],
    ['GET /work_log/{guideid}/suspended', `/work_log/${en.guideid}/suspended`, (b) => ids(Array.isArray(b) ? b : b.results, 'entryid'), true],
    ['GET /work_log?guideid=', `/work_log?guideid=${en.guideid}`, (b) => ids(Array.isArray(b) ? b : b.results, 'entryid'), true],
    ['GET /comments', '/comments?limit=200', (b) => ids(b, 'commentid'), false],
  ];
  const deIds: Record<string, number[]> = {
    'GET /guides/{id}/releases': [relDe.releaseid], 'GET /guides/releases?guideid=': [relDe.releaseid],
    'GET /work_log/{guideid}/suspended': [entryDe], 'GET /work_log?guideid=': [entryDe], 'GET /comments': [commentDe, stepCommentDe],
  };
  const enIds: Record<string, number[]> = {
    'GET /guides/{id}/releases': [relEn.releaseid], 'GET /guides/releases?guideid=': [relEn.releaseid],
    'GET /work_log/{guideid}/suspended': [], 'GET /work_log?guideid=': [], 'GET /comments': [commentEn],
  };

  for (const [name, path, listed, userOnly] of ROWS) {
    it(`${name}: the private language is left out for those who do not read it, listed for those who do`, async () => {
      for (const [who, token] of Object.entries(callers)) {
        if (userOnly && token === undefined) continue;
        const res = await p.get(path, { token });
        expect(res.statusCode, `${who}: ${res.body}`).toBe(200);
        const seen = listed(res.json());
        for (const id of deIds[name]) expect(seen, `${who} sees a row of the private language`).not.toContain(id);
        for (const id of enIds[name]) expect(seen, `${who} misses a row of the public language`).toContain(id);
      }
      for (const [who, token] of Object.entries(readers)) {
        const seen = listed(ok(await p.get(path, { token }), `${name} as ${who}`));
        for (const id of [...deIds[name], ...(userOnly ? [] : enIds[name])]) expect(seen, `${who} misses ${id}`).toContain(id);
      }
    });
  }

  it('GET /work_log/{entryid} and GET /comments/{id} of the private language: refused to anonymous callers and others, 200 to the owner', async () => {
    expect((await p.get(`/work_log/${entryDe}`, { token: plain.token })).statusCode).toBe(403);
    expect((await p.get(`/work_log/${entryDe}`, { token: owner.token })).statusCode).toBe(200);
    expect((await p.get(`/work_log/${entryEn}`, { token: plain.token })).statusCode).toBe(200);
    for (const id of [commentDe, stepCommentDe]) {
      expect([401, 403]).toContain((await p.get(`/comments/${id}`)).statusCode);
      expect((await p.get(`/comments/${id}`, { token: plain.token })).statusCode).toBe(403);
      expect((await p.get(`/comments/${id}`, { token: owner.token })).statusCode).toBe(200);
    }
    expect((await p.get(`/comments/${commentEn}`)).statusCode).toBe(200);
    // nor may others write into the private language
    const written = await p.post(`/comments/guide/${en.guideid}`, { token: plain.token, body: { text: 'into the private language', langid: 'de' } });
    expect(written.statusCode).toBe(403);
    expect((await p.post(`/comments/guide/${en.guideid}`, { token: plain.token, body: { text: 'into the public language', langid: 'en' } })).statusCode).toBe(201);
  });

  it('a private prerequisite counts for no one who cannot read it, in the record, the list and the cache, whoever read first', async () => {
    const record = (token?: string) => p.get(`/guides/${requiring.guideid}`, { token });
    const listed = async (token?: string) => ok(await p.get(`/guides?guideids=${requiring.guideid}`, { token }), 'list')[0];
    for (const round of [1, 2]) {
      // the second round is answered from the cache
      for (const token of [owner.token, admin.token]) {
        const full = ok(await record(token), 'record');
        expect(full.prereq_modified_date, `round ${round}`).toBe(hiddenNow.modified_date);
        expect(full.prerequisites.map((x: any) => x.guideid)).toEqual([hidden.guideid]);
        expect((await listed(token)).prereq_modified_date).toBe(hiddenNow.modified_date);
      }
      for (const token of [undefined, plain.token]) {
        const full = ok(await record(token), 'record');
        expect(full.prereq_modified_date, `round ${round}`).toBe(0);
        expect(full.prerequisites).toEqual([]);
        expect((await listed(token)).prereq_modified_date).toBe(0);
      }
    }
    // A new language of a prerequisite shows at once in a cached record of that language.
    const pre = await makePublishedGuide(p, owner);
    const deGuide = ok(await p.post('/guides', { token: owner.token, body: { guideid: requiring.guideid, langid: 'de', type: 'replacement', category: pre.category, title: 'Braucht', public: true, prerequisites: [pre.guideid] } }), 'translation');
    expect(ok(await p.get(`/guides/${deGuide.guideid}?langid=de`), 'de').prerequisites.map((x: any) => x.locale)).toEqual(['en']);
    // written by hand, as any writer may (the database's triggers keep the cache right)
    const preRow = await p.db.selectFrom('guides').selectAll().where('guideid', '=', pre.guideid).where('langid', '=', 'en').executeTakeFirstOrThrow();
    await p.db.insertInto('guides').values({ ...preRow, langid: 'de', title: 'Vorher', cache_stamp: 0 }).execute();
    expect(ok(await p.get(`/guides/${deGuide.guideid}?langid=de`), 'de').prerequisites.map((x: any) => [x.locale, x.title])).toEqual([['de', 'Vorher']]);
    // Naming a private guide one does not read as a prerequisite is as naming none.
    const mine = await makePublishedGuide(p, owner);
    ok(await p.put(`/guides/${mine.guideid}/users/${plain.userid}`, { token: owner.token }), 'collaborator');
    const named = await p.patch(`/guides/${mine.guideid}?revisionid=${mine.revisionid}`, { token: plain.token, body: { prerequisites: [hidden.guideid] } });
    expect(named.statusCode, named.body).toBe(422);
    expect(named.json().errors[0]).toMatchObject({ field: 'prerequisites[0]', message: `There is no guide ${hidden.guideid}.` });
  });
});
