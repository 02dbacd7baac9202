// Requests generated from an operation: path parameters (existing records, schema-valid
// values, hostile values), query parameters (valid, invalid, unknown, repeated), bodies
// (valid, one field broken, garbage), with no token, a User token or an Admin token.
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { BASE_PATH } from '../../../src/app.js';
import { GARBAGE_BODIES, HOSTILE_PATH_VALUES, invalid, REFERENCE_NAME, valid, type Pools } from './gen.js';
import { jsonBodySchema, walkProperties, type Operation } from './openapi.js';
import { pathHint, type World } from './world.js';

export type FuzzIdentity = 'none' | 'user' | 'admin';

export type PathChoice = { mode: 'existing' } | { mode: 'value'; value: string } | { mode: 'raw'; value: string };

export type BodyChoice =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string | null }
  | { kind: 'raw'; text: string; contentType: string | null }
  | { kind: 'multipart'; fields: Record<string, string>; files: Array<{ field: string; filename: string; type: string; bytes: number[] }> };

export interface Case {
  identity: FuzzIdentity;
  /** Which existing record (tuple of path values) to use; modulo the number there are. */
  pick: number;
  path: Record<string, PathChoice>;
  query: Array<[string, string]>;
  body: BodyChoice;
}

function toQueryText(v: unknown): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap((x) => toQueryText(x)).slice(0, 5);
  if (v !== null && typeof v === 'object') return [JSON.stringify(v)];
  return [String(v)];
}

/** Names of id-like fields in an operation's body: their pools come from the database. */
export function bodyIdFields(op: Operation): string[] {
  const names = new Set<string>();
  for (const schema of Object.values(op.body?.content ?? {})) {
    walkProperties(schema, (name) => {
      if (REFERENCE_NAME.test(name)) names.add(name);
    });
  }
  return [...names];
}

/** Pools for the id-like body fields of an operation. */
export async function poolsFor(world: World, op: Operation): Promise<Pools> {
  const pools: Pools = {};
  for (const name of bodyIdFields(op)) {
    const rows = await world.tuples([name], pathHint(op.path));
    if (rows.length) pools[name] = rows.map((r) => (/^-?\d+$/.test(r[name]) ? Number(r[name]) : r[name]));
  }
  // A document named by a pair (doctype, docid) takes both from one row, so that the pair exists.
  for (const [kind, id] of [['doctype', 'docid'], ['doc_type', 'docid']]) {
    if (!(kind in pools) || !(id in pools)) continue;
    const rows = await world.tuples([kind, id], pathHint(op.path));
    if (!rows.length) continue;
    pools[kind] = rows.map((r) => r[kind]);
    pools[id] = rows.map((r) => Number(r[id]));
  }
  return pools;
}

// A 1x1 PNG, for upload routes.
export const PNG = [137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 255, 255, 63, 0, 5, 254, 2, 254, 167, 53, 129, 132, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130];

export const TRAVERSAL_FILENAMES = ['../../../../tmp/rel-traversal.png', '..\\..\\..\\rel-traversal.png', '/etc/passwd', 'a/../../rel-traversal.png', '....//....//rel-traversal.png', '%2e%2e%2frel-traversal.png', 'nul\u0000.png', 'con.png', '.htaccess', ' .png', 'ü😀.png', 'x'.repeat(300) + '.png'];

export function caseArb(op: Operation, pools: Pools): fc.Arbitrary<Case> {
  const pathArb: fc.Arbitrary<Record<string, PathChoice>> = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, fc.oneof(
    { weight: 6, arbitrary: fc.constant<PathChoice>({ mode: 'existing' }) },
    { weight: 2, arbitrary: valid(p.schema, p.name).map((v): PathChoice => ({ mode: 'value', value: String(v) })).filter((c) => c.mode !== 'value' || c.value !== '') },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_PATH_VALUES).map((v): PathChoice => ({ mode: 'value', value: v })) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '%00', '%2F..%2F', 'a%2Fb').map((v): PathChoice => ({ mode: 'raw', value: v })) },
  )])));

  const queryArb = fc.tuple(
    ...op.queryParams.map((p) => fc.oneof(
      { weight: 4, arbitrary: fc.constant<string[]>([]) },
      { weight: 4, arbitrary: valid(p.schema, p.name).map(toQueryText) },
      { weight: 2, arbitrary: invalid(p.schema, p.name).map(toQueryText) },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_PATH_VALUES).map((v) => [v]) },
      { weight: 1, arbitrary: fc.tuple(valid(p.schema, p.name), valid(p.schema, p.name)).map(([a, b]) => [...toQueryText(a), ...toQueryText(b)]) },
    ).map((values) => values.map((v): [string, string] => [p.name, v]))),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<Array<[string, string]>>([]) },
      { weight: 1, arbitrary: fc.constantFrom<Array<[string, string]>>([['pretty', '']], [['unknown_param', 'x']], [['__proto__', 'x']], [['limit', '1'], ['limit', '2']]) },
      { weight: op.method === 'GET' ? 1 : 0, arbitrary: fc.constant<Array<[string, string]>>([['format', 'xml']]) },
    ),
  ).map((parts) => parts.flat());

  const jsonSchema = jsonBodySchema(op);
  const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant<string | null>('application/json') }, { weight: 1, arbitrary: fc.constantFrom<string | null>(null, 'text/plain', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded') });
  let bodyArb: fc.Arbitrary<BodyChoice>;
  if (op.body && op.body.content['multipart/form-data']) {
    const schema = op.body.content['multipart/form-data'];
    const fileFields = Object.entries<any>(schema.properties ?? {}).filter(([, s]) => s.format === 'binary' || s.type === 'string' && /file|image|video|upload/i.test(String(s.description ?? ''))).map(([k]) => k);
    const textFields = Object.entries<any>(schema.properties ?? {}).filter(([k]) => !fileFields.includes(k));
    bodyArb = fc.oneof(
      fc.record({
        fields: fc.record(Object.fromEntries(textFields.map(([k, s]) => [k, valid(s, k).map((v) => String(v))]))),
        files: fc.tuple(fc.constantFrom(...(fileFields.length ? fileFields : ['file'])), fc.oneof(fc.constant('image.png'), fc.constantFrom(...TRAVERSAL_FILENAMES)), fc.constantFrom('image/png', 'application/octet-stream', 'text/html', 'image/svg+xml'), fc.oneof(fc.constant(PNG), fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })))
          .map(([field, filename, type, bytes]) => [{ field, filename, type, bytes }]),
      }).map((m): BodyChoice => ({ kind: 'multipart', ...m })),
      fc.constantFrom(...GARBAGE_BODIES.slice(0, 12)).map((text): BodyChoice => ({ kind: 'raw', text, contentType: 'multipart/form-data; boundary=x' })),
      fc.constant<BodyChoice>({ kind: 'none' }),
    );
  } else if (op.body && !jsonSchema && Object.keys(op.body.content).length) {
    // Raw bytes (an upload): an image, random bytes, nothing, or the wrong type.
    const type = Object.keys(op.body.content)[0];
    bodyArb = fc.oneof(
      { weight: 4, arbitrary: fc.constant<BodyChoice>({ kind: 'raw', text: Buffer.from(PNG).toString('latin1'), contentType: type }) },
      { weight: 2, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 200 }).map((b): BodyChoice => ({ kind: 'raw', text: Buffer.from(b).toString('latin1'), contentType: type })) },
      { weight: 1, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
      { weight: 1, arbitrary: fc.constantFrom(...GARBAGE_BODIES.slice(0, 12)).map((text): BodyChoice => ({ kind: 'raw', text, contentType: 'application/json' })) },
    );
  } else if (jsonSchema) {
    bodyArb = fc.oneof(
      { weight: 10, arbitrary: fc.tuple(valid(jsonSchema, '', { pools }), contentType).map(([value, ct]): BodyChoice => ({ kind: 'json', value, contentType: ct })) },
      { weight: 5, arbitrary: fc.tuple(invalid(jsonSchema), contentType).filter(([v]) => v !== undefined).map(([value, ct]): BodyChoice => ({ kind: 'json', value, contentType: ct })) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...GARBAGE_BODIES), contentType).map(([text, ct]): BodyChoice => ({ kind: 'raw', text, contentType: ct })) },
      { weight: 1, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
    );
  } else {
    bodyArb = fc.oneof(
      { weight: 9, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
      { weight: 1, arbitrary: fc.constantFrom(...GARBAGE_BODIES.slice(0, 24)).map((text): BodyChoice => ({ kind: 'raw', text, contentType: 'application/json' })) },
    );
  }

  return fc.record({
    identity: fc.constantFrom<FuzzIdentity>('none', 'user', 'admin'),
    pick: fc.nat(10_000),
    path: pathArb,
    query: queryArb,
    body: bodyArb,
  });
}

export function multipart(fields: Record<string, string>, files: Array<{ field: string; filename: string; type: string; bytes: number[] }>) {
  const boundary = '----reliability' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename.replace(/"/g, '%22')}"\r\nContent-Type: ${f.type}\r\n\r\n`));
    parts.push(Buffer.from(f.bytes));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface BuiltRequest {
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Percent-encodes text; a lone surrogate (which UTF-8 cannot carry) becomes U+FFFD as a client would send it. */
const enc = (v: string) => encodeURIComponent(v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

/** The URL for an operation given path values (encoded unless raw) and query pairs. */
export function urlFor(op: Operation, values: Record<string, PathChoice & { mode: 'value' | 'raw' }>, query: Array<[string, string]>): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const c = values[name];
    return c.mode === 'raw' ? c.value : enc(c.value);
  });
  const qs = query.map(([k, v]) => `${enc(k)}${v === '' && k === 'pretty' ? '' : `=${enc(v)}`}`).join('&');
  return BASE_PATH + path + (qs ? `?${qs}` : '');
}

/** Resolves a case against the current database (existing records) into a request. */
export async function buildRequest(world: World, op: Operation, c: Case): Promise<BuiltRequest & { existing: Record<string, string> | null }> {
  const names = op.pathParams.map((p) => p.name);
  const tuples = await world.tuples(names, pathHint(op.path));
  const tuple = tuples.length ? tuples[c.pick % tuples.length] : null;
  const values: Record<string, PathChoice & { mode: 'value' | 'raw' }> = {};
  for (const n of names) {
    const choice = c.path[n];
    if (choice.mode === 'existing') values[n] = { mode: 'value', value: tuple?.[n] ?? String((c.pick % 7) + 1) };
    else values[n] = choice;
  }
  const headers: Record<string, string> = {};
  if (c.identity !== 'none') headers.authorization = `api ${world.ids[c.identity].token}`;
  let payload: string | Buffer | undefined;
  if (c.body.kind === 'json' || c.body.kind === 'raw') {
    payload = c.body.kind === 'json' ? JSON.stringify(c.body.value) ?? '' : c.body.contentType && !/json|text/.test(c.body.contentType) ? Buffer.from(c.body.text, 'latin1') : c.body.text;
    if (c.body.contentType) headers['content-type'] = c.body.contentType;
  } else if (c.body.kind === 'multipart') {
    const m = multipart(c.body.fields, c.body.files);
    payload = m.payload;
    headers['content-type'] = m.contentType;
  }
  return { method: op.method, url: urlFor(op, values, c.query), headers, payload, existing: tuple };
}

export function inject(world: World, r: BuiltRequest): Promise<LightMyRequestResponse> {
  return world.t.app.inject({ method: r.method, url: r.url, headers: r.headers, payload: r.payload } as InjectOptions);
}

/** A short, replayable description of a request. */
export function describe(r: BuiltRequest, identity: string): string {
  const body = r.payload === undefined ? '' : ` body=${(Buffer.isBuffer(r.payload) ? `<${r.payload.length} bytes>` : r.payload.length > 300 ? `${r.payload.slice(0, 300)}... (${r.payload.length} chars)` : r.payload)}`;
  const ct = r.headers['content-type'] ? ` content-type=${r.headers['content-type']}` : '';
  return `${r.method} ${r.url.length > 300 ? r.url.slice(0, 300) + '...' : r.url} as ${identity}${ct}${body}`;
}
