// A valid request for an operation, as a given caller would send it: path parameters
// from existing records (the caller's own, or someone else's), required query parameters
// (the current `revisionid` of a versioned resource), a minimal valid body. A few
// foundation routes need what no schema says (the caller's password, a reset token): their
// recipes are below; every other route, including those of areas that land later, is
// built from its schemas alone.
import { newToken } from '../../../src/http/passwords.js';
import { BASE_PATH } from '../../../src/app.js';
import { RESET_TTL } from '../../../src/areas/users/users.service.js';
import { example, type Pools } from './gen.js';
import { jsonBodySchema, type Operation } from './openapi.js';
import { multipart, PNG, poolsFor } from './requests.js';
import type { LightMyRequestResponse } from 'fastify';
import { pathHint, type Identity, type World } from './world.js';
import { scormPackage } from '../../../src/areas/training-modules/modules.packages.js';
import { ASSESSMENT_RECIPES } from './assessments-recipes.js';

export interface ValidRequest {
  method: Operation['method'];
  url: string;
  /** A JSON body, or undefined. */
  body: unknown;
  /** A body that is not JSON (an upload): its bytes and type. */
  raw?: { contentType: string; payload: Buffer };
  params: Record<string, string>;
}

/** Sends a ValidRequest through the app, JSON or raw. */
export function injectValid(world: World, r: ValidRequest, token: string | undefined, extraHeaders: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(token ? { authorization: `api ${token}` } : {}), ...extraHeaders };
  let payload: string | Buffer | undefined;
  if (r.raw) {
    headers['content-type'] = r.raw.contentType;
    payload = r.raw.payload;
  } else if (r.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(r.body);
  }
  return world.t.app.inject({ method: r.method, url: r.url, headers, payload });
}

/** A raw body for a route that takes bytes: a tiny PNG (as a multipart form when it takes one). */
function rawBody(op: Operation, pools: Pools, n: number): ValidRequest['raw'] {
  const types = Object.keys(op.body?.content ?? {});
  if (!op.body || types.length === 0 || types.includes('application/json')) return undefined;
  const multi = types.find((t) => t.startsWith('multipart/'));
  if (multi) {
    const schema = op.body.content[multi];
    const props = Object.entries<any>(schema.properties ?? {});
    const fileField = props.find(([, s]) => s.format === 'binary')?.[0] ?? 'file';
    const fields = Object.fromEntries(props.filter(([k]) => k !== fileField && (schema.required ?? []).includes(k)).map(([k, s]) => [k, String(example(s, k, pools, n))]));
    const m = multipart(fields, [{ field: fileField, filename: `reliability-${n}.png`, type: 'image/png', bytes: PNG }]);
    return { contentType: m.contentType, payload: m.payload };
  }
  return { contentType: types[0], payload: Buffer.from(PNG) };
}

export type Scope = 'own' | 'others' | 'team';

type Recipe = (world: World, caller: Identity | null, n: number) => Promise<{ body?: unknown; params?: Record<string, string>; raw?: ValidRequest['raw'] }>;

const anyUser = (world: World, caller: Identity | null) => caller ?? world.ids.user;

/** A webhook subscription made through the API as the Admin (its id, as a path value). */
async function webhookSubscription(w: World, n: number): Promise<string> {
  const res = await w.t.app.inject({
    method: 'POST', url: '/api/2.0/webhooks/subscriptions', headers: { authorization: `api ${w.ids.admin.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ title: `Reliability hook ${n}`, url: 'https://example.com/hooks', eventKeys: ['Guides.Published'], secretKey: 'reliability-secret-key' }),
  });
  return String(JSON.parse(res.body).id);
}

/** A new external training module import (CREATED), made through the API as the Admin. */
async function freshImport(w: World): Promise<string> {
  const res = await w.t.app.inject({ method: 'POST', url: '/api/2.0/external_training_modules/imports', headers: { authorization: `api ${w.ids.admin.token}`, 'content-type': 'application/json' }, payload: '{}' });
  return String(JSON.parse(res.body).importid);
}

/** A module with a completed current import (the demo's "Safe lifting"). */
async function currentModule(w: World): Promise<{ id: number; importid: number }> {
  const row = await w.db.selectFrom('training_modules').select(['external_training_moduleid', 'current_importid']).where('current_importid', 'is not', null).orderBy('external_training_moduleid').executeTakeFirstOrThrow();
  return { id: row.external_training_moduleid, importid: row.current_importid };
}

/**
 * A commit token of an attempt of its own (a preview attempt of the Admin on the current
 * module, planted as a launch would store it), so that requests at once do not share one.
 */
let plantedAttempts = 0;
async function commitToken(w: World): Promise<string> {
  const { id, importid } = await currentModule(w);
  const { token, hash } = newToken();
  const now = w.t.clock.now();
  await w.db.insertInto('training_module_attempts').values({
    userid: w.ids.admin.userid, importid, external_training_moduleid: id, attempt: 1_000_000 + (process.pid % 100_000) * 1000 + ++plantedAttempts, preview: 1, token_hash: hash, token_expires: now + 3600,
    state: null, lesson_status: null, completion_status: null, success_status: null, score: null, completed: 0, commit_count: 0, created_date: now, modified_date: now, completed_date: null,
  }).execute();
  return token;
}

/** A fresh course (one stage on a guide) per n, so that assignments of the same team never collide. */
async function freshCourse(w: World, n: number): Promise<number> {
  const now = w.t.clock.now();
  const title = `Reliability course ${n} ${Math.random().toString(36).slice(2, 8)}`;
  const { wikiid } = await w.db.insertInto('courses').values({ langid: 'en', title, title_lower: title.toLowerCase(), contents_raw: '', publish_date: null, userid: w.ids.admin.userid, created_date: now, modified_date: now, revisionid: 0 })
    .returning('wikiid').executeTakeFirstOrThrow();
  const guide = await w.db.selectFrom('guides').select('guideid').where('deleted', '=', 0).orderBy('guideid').executeTakeFirst();
  if (guide) await w.db.insertInto('course_stages').values({ wikiid, position: 0, doctype: 'guide', docid: guide.guideid }).execute();
  return wikiid;
}

/** Routes whose valid request needs a secret or a side channel. */
export const RECIPES: Record<string, Recipe> = {
  'POST /user/token': async (w, c) => ({ body: { email: anyUser(w, c).email, password: anyUser(w, c).password } }),
  'POST /users/reset_password': async (w, c) => ({ body: { email: anyUser(w, c).email } }),
  'POST /users/reset_password/complete': async (w, c) => {
    // The token only travels by mail; plant one as the mail would carry it.
    const { token, hash } = newToken();
    const now = w.t.clock.now();
    await w.db.insertInto('password_resets').values({ token_hash: hash, userid: anyUser(w, c).userid, created_date: now, expires_date: now + RESET_TTL, used_date: null }).execute();
    return { body: { token, password: 'a new password 123' } };
  },
  'POST /user/token/impersonate': async (w) => ({ body: { userid: w.ids.member.userid } }),
  // Creations whose bodies name ids or keys the generator cannot guess (a signer, a reviewer,
  // an event key): one valid body each, a different name per n.
  'POST /webhooks/subscriptions': async (_w, _c, n) => ({ body: { title: `Reliability hook ${n}`, url: 'https://example.com/hooks', eventKeys: ['Guides.Published'], secretKey: 'reliability-secret-key' } }),
  'GET /webhooks/subscriptions/{id}': async (w, _c, n) => ({ params: { id: await webhookSubscription(w, n) } }),
  'PATCH /webhooks/subscriptions/{id}': async (w, _c, n) => ({ params: { id: await webhookSubscription(w, n) }, body: { title: `Reliability hook ${n} renamed` } }),
  'DELETE /webhooks/subscriptions/{id}': async (w, _c, n) => ({ params: { id: await webhookSubscription(w, n) } }),
  'GET /webhooks/subscriptions/{id}/logs': async (w, _c, n) => ({ params: { id: await webhookSubscription(w, n) } }),
  'POST /approvals/process': async (w, _c, n) => ({ body: { name: `Reliability process ${n}`, stages: [{ userid: w.ids.admin.userid }] } }),
  // External training modules: a fresh import per request to start or cancel (a package as
  // the upload's raw body), the demo's completed import for previews and versions, a
  // preview launch's commit token for commits.
  'POST /external_training_modules/imports': async () => ({ body: {} }),
  'POST /external_training_modules/imports/{importid}/start/byUpload': async (w) => ({
    params: { importid: await freshImport(w) }, raw: { contentType: 'application/octet-stream', payload: scormPackage('1.2', 'Reliability package') },
  }),
  'POST /external_training_modules/imports/{importid}/start/byUrl': async (w) => ({ params: { importid: await freshImport(w) }, body: { url: 'https://example.com/package.zip' } }),
  'POST /external_training_modules/imports/{importid}/cancel': async (w) => ({ params: { importid: await freshImport(w) } }),
  'GET /external_training_modules/{id}/imports': async (w) => ({ params: { id: String((await currentModule(w)).id) } }),
  'GET /external_training_modules/{id}/usage': async (w) => ({ params: { id: String((await currentModule(w)).id) } }),
  // The demo's module is a stage of a course assigned to Uma User (the `user` identity).
  'GET /external_training_modules/{id}/player': async (w) => ({ params: { id: String((await currentModule(w)).id) } }),
  'GET /external_training_modules/imports/{importid}/preview': async (w) => ({ params: { importid: String((await currentModule(w)).importid) } }),
  'PUT /external_training_modules/{id}/current': async (w) => {
    const m = await currentModule(w);
    return { params: { id: String(m.id) }, body: { importid: m.importid } };
  },
  'PUT /external_training_modules/{id}/draft': async (w) => {
    const m = await currentModule(w);
    return { params: { id: String(m.id) }, body: { importid: m.importid } };
  },
  'POST /external_training_modules/commits/{commit_token}': async (w) => ({ params: { commit_token: await commitToken(w) }, body: { cmi: { core: { lesson_status: 'incomplete' }, suspend_data: 'page=1' } } }),
  // Courses: an assignment of a fresh course to the team fixture (its leads may assign; none collide), stage completions of a stage assigned to the team's member.
  'POST /course_assignments': async (w, _c, n) => ({ body: { wikiid: await freshCourse(w, n), assignee_teamid: w.teamid, due_within: 86_400 } }),
  'POST /course_assignments/stage_completions': async (w, _c, n) => {
    const wikiid = await freshCourse(w, n);
    const now = w.t.clock.now();
    await w.db.insertInto('course_assignments').values({ wikiid, assignee_userid: null, assignee_teamid: w.teamid, userid_assigner: w.ids.admin.userid, due_within: null, created_date: now }).execute();
    const stage = await w.db.selectFrom('course_stages').select('course_stageid').where('wikiid', '=', wikiid).executeTakeFirst();
    return { body: { completions: [{ userid: w.ids.member.userid, course_stageid: stage?.course_stageid ?? 1 }] } };
  },
  'POST /periodic_review': async (w, _c, n) => ({ body: { name: `Reliability schedule ${n}`, recurrence: 'interval', interval_days: 180, window_days: 14, userids: [w.ids.admin.userid] } }),
  // One path, `{id}`, for two specification names: a review document's prdid (DELETE), a user's userid (GET).
  'GET /periodic_review/documents/{id}': async (w, c) => ({ params: { id: String((c ?? w.ids.admin).userid) } }),
  'DELETE /periodic_review/documents/{id}': async (w) => {
    const d = await w.db.selectFrom('review_documents').select('prdid').orderBy('prdid').executeTakeFirst();
    return { params: { id: String(d?.prdid ?? 1) } };
  },
  // Quizzes, sign-offs, skills (lib/assessments-recipes.ts).
  ...ASSESSMENT_RECIPES,
};

/** The `revisionid` of the object in a JSON value whose `key` is `id` (a step inside its guide), or of the root. */
function revisionIn(body: unknown, key: string | undefined, id: string | undefined): string | null {
  const stack: unknown[] = [body];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (key && id !== undefined && String(o[key]) === id && o.revisionid != null) return String(o.revisionid);
      stack.push(...Object.values(o));
    }
  }
  const root = body as Record<string, unknown> | null;
  return root && typeof root === 'object' && root.revisionid != null ? String(root.revisionid) : null;
}

/**
 * The current revisionid of the resource a route modifies: from the GET of its path, or
 * of the nearest enclosing path that has one (a step's revisionid from its guide).
 */
export async function currentRevision(world: World, ops: Operation[], op: Operation, params: Record<string, string>): Promise<string | null> {
  let path = op.path;
  let get = ops.find((o) => o.method === 'GET' && o.path === path);
  while (!get && path.lastIndexOf('/') > 0) {
    path = path.slice(0, path.lastIndexOf('/'));
    get = ops.find((o) => o.method === 'GET' && o.path === path && o.pathParams.length > 0);
  }
  if (!get) return null;
  const url = BASE_PATH + path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(params[n] ?? '1'));
  const res = await world.t.app.inject({ method: 'GET', url, headers: { authorization: `api ${world.ids.admin.token}` } });
  if (res.statusCode !== 200) return null;
  const last = op.pathParams[op.pathParams.length - 1]?.name;
  // The modified object is the route's own (its last path parameter), when the GET is of an enclosing resource.
  return revisionIn(res.json(), get.path === op.path ? undefined : last, get.path === op.path ? undefined : params[last]);
}

/**
 * Path values for a caller: `own` prefers records the caller owns, `others` records owned
 * by someone else, `team` the shared team fixture (and its plain member for a userid).
 */
export async function pathValues(world: World, op: Operation, caller: Identity | null, scope: Scope, n = 0): Promise<Record<string, string> | null> {
  const names = op.pathParams.map((p) => p.name);
  if (names.length === 0) return {};
  const fixed: Record<string, string> = {};
  if (scope === 'team' || scope === 'others') {
    if (names.includes('teamid')) fixed.teamid = String(world.teamid);
    if (names.includes('userid') && (scope === 'team' || names.includes('teamid'))) fixed.userid = String(world.ids.member.userid);
  }
  const tries = scope === 'own' && caller ? [{ owner: caller.userid, fixed }, { fixed }]
    : scope === 'others' && caller ? [{ notOwner: caller.userid, fixed }, { fixed }]
      : [{ fixed }];
  for (const filter of tries) {
    const { rows } = await world.ownedTuples(names, { ...filter, hint: pathHint(op.path) });
    if (rows.length) return { ...rows[n % rows.length], ...fixed };
  }
  // Nothing holds these names: a value valid by the schema (likely a 404).
  const out: Record<string, string> = {};
  for (const p of op.pathParams) out[p.name] = fixed[p.name] ?? String(example(p.schema, p.name));
  return out;
}

/** `pick` chooses among the existing records that fit (0: the first). */
export async function validRequest(world: World, ops: Operation[], op: Operation, caller: Identity | null, scope: Scope, n = 0, pools?: Pools, pick = 0): Promise<ValidRequest> {
  const recipe = RECIPES[op.id] ? await RECIPES[op.id](world, caller, n) : {};
  const params = { ...((await pathValues(world, op, caller, scope, pick)) ?? {}), ...(recipe.params ?? {}) };
  const query: Array<[string, string]> = [];
  let revisionUnknown = false;
  for (const q of op.queryParams) {
    if (q.name === 'revisionid') {
      const rev = await currentRevision(world, ops, op, params);
      if (rev !== null) query.push(['revisionid', rev]);
      else if (q.required) {
        query.push(['revisionid', '2147483647']);
        revisionUnknown = true;
      }
    } else if (q.required) {
      query.push([q.name, String(example(q.schema, q.name, pools ?? {}, n))]);
    }
  }
  const schema = jsonBodySchema(op);
  const body = recipe.body !== undefined ? recipe.body : schema ? example(schema, '', pools ?? (await poolsFor(world, op)), n) : undefined;
  const raw = recipe.raw ?? (schema ? undefined : rawBody(op, pools ?? {}, n));
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(params[name]));
  const build = () => BASE_PATH + path + (query.length ? `?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : '');
  if (revisionUnknown) {
    // No GET tells the current revision: a stale one does (409 with the current resource, which changes nothing).
    const probe = await world.t.app.inject({ method: op.method, url: build(), headers: { authorization: `api ${world.ids.admin.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, payload: body !== undefined ? JSON.stringify(body) : undefined });
    let current: unknown;
    try {
      current = probe.statusCode === 409 ? JSON.parse(probe.body)?.revisionid : undefined;
    } catch {}
    const i = query.findIndex(([k]) => k === 'revisionid');
    query[i] = ['revisionid', current !== undefined && current !== null ? String(current) : '1'];
  }
  return { method: op.method, url: build(), body, raw, params };
}
