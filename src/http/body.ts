// JSON bodies are parsed whatever the client says the type is (a real client of this
// API sends its login as text/plain, or with no Content-Type at all). Areas that take
// raw bytes (media uploads) register their own parser in their own scope.
import { EventEmitter } from 'node:events';
import type { FastifyInstance, FastifyRequest, HTTPMethods, preHandlerHookHandler, preValidationHookHandler } from 'fastify';
import sjson from 'secure-json-parse';
import { HttpError, invalidField } from './errors.js';
import { CASE_INSENSITIVE } from './schemas.js';

export function parseJsonBody(body: string): unknown {
  if (body.trim() === '') return undefined;
  try {
    return sjson.parse(body, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
}

/** Whether a route's method carries a body (Fastify parses none for GET and HEAD). */
const takesBody = (method: HTTPMethods | HTTPMethods[]) => [method].flat().some((m) => m !== 'GET' && m !== 'HEAD');

export function registerBodyParsers(app: FastifyInstance, bodyLimit: number) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // No body at all reads as `{}`: a route with required fields then says which field is
  // missing (422 missing_field) instead of "body must be object", and a route whose
  // fields are all optional needs no body. A hook of the routes that take a body only: a
  // route with no preValidation hook (every GET) skips that stage's runner.
  const emptyBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
    if ((request.body === undefined || request.body === null) && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
    done();
  };
  app.addHook('onRoute', (route) => {
    if (takesBody(route.method)) route.preValidation = [emptyBodyAsObject, ...[route.preValidation ?? []].flat()];
  });
}

type Schema = Record<string, any>;

const DIGITS = /^\d{1,16}$/;

/** The types a schema admits, through anyOf/oneOf (TypeBox's Union and Nullable). */
function typesOf(schema: Schema): Set<string> {
  const out = new Set<string>();
  const stack = [schema];
  while (stack.length) {
    const s = stack.pop()!;
    if (Array.isArray(s.type)) s.type.forEach((t: string) => out.add(t));
    else if (typeof s.type === 'string') out.add(s.type);
    for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) stack.push(...s[k]);
  }
  return out;
}

/** The branch of a schema that describes an object, or an array (a Union's member). */
function branch(schema: Schema, type: 'object' | 'array'): Schema | undefined {
  if (schema.type === type || (type === 'object' && schema.properties)) return schema;
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const s of schema[k] ?? []) {
      const b = branch(s, type);
      if (b) return b;
    }
  }
  return undefined;
}

/**
 * Ids sent as strings: clients of this API's lineage send every id in a JSON body as a
 * string (`{"guideid": "1"}`). Wherever the body's schema takes an integer and not a
 * string, a string of digits that is a safe integer becomes that integer before
 * validation; anything else is left for the validator to refuse (422). Enum values of a
 * `CaseInsensitiveEnum` become the documented case too.
 */
export function digitStringsToIntegers(schema: Schema, body: unknown): void {
  rewriteStrings(schema, body, (sub, x) => {
    if (DIGITS.test(x) && Number.isSafeInteger(Number(x))) {
      const types = typesOf(sub);
      if (types.has('integer') && !types.has('string')) return Number(x);
    }
    const values = caseInsensitiveValues(sub);
    return values ? canonicalCase(values, x) : x;
  });
}

/**
 * Query and path parameters: enum values in any case become the documented case before
 * validation (a body gets this in `digitStringsToIntegers`). Null when the schema has no
 * such enum, so that other routes pay nothing.
 */
export function caseInsensitiveEnumsOf(schema: Schema): ((data: unknown) => void) | null {
  if (!JSON.stringify(schema).includes(CASE_INSENSITIVE)) return null;
  return (data) => rewriteStrings(schema, data, (sub, x) => {
    const values = caseInsensitiveValues(sub);
    return values ? canonicalCase(values, x) : x;
  });
}

function caseInsensitiveValues(sub: Schema): readonly string[] | undefined {
  if (sub[CASE_INSENSITIVE] && Array.isArray(sub.enum)) return sub.enum;
  for (const k of ['anyOf', 'oneOf'] as const) for (const s of sub[k] ?? []) if (s[CASE_INSENSITIVE] && Array.isArray(s.enum)) return s.enum;
  return undefined;
}

function canonicalCase(values: readonly string[], x: string): string {
  if (values.includes(x)) return x;
  const lower = x.toLowerCase();
  return values.find((v) => v.toLowerCase() === lower) ?? x;
}

/** Walks the data along its schema and replaces each string by what `rewrite` makes of it. Iterative: bodies may be deep. */
function rewriteStrings(schema: Schema, data: unknown, rewrite: (sub: Schema, x: string) => unknown): void {
  const stack: Array<[Schema, unknown]> = [[schema, data]];
  while (stack.length) {
    const [s, v] = stack.pop()!;
    if (!Array.isArray(v) && !isData(v)) continue;
    const slot = (sub: Schema | undefined, holder: any, key: string | number) => {
      if (!sub || typeof sub !== 'object') return;
      const x = holder[key];
      if (typeof x === 'string') holder[key] = rewrite(sub, x);
      else if (x !== null && typeof x === 'object') stack.push([sub, x]);
    };
    if (Array.isArray(v)) {
      const arr = branch(s, 'array');
      const items = arr?.items;
      if (items && typeof items === 'object' && !Array.isArray(items)) for (let i = 0; i < v.length; i++) slot(items, v, i);
    } else {
      const obj = branch(s, 'object');
      if (!obj) continue;
      for (const key of Object.keys(v)) {
        const sub = Object.hasOwn(obj.properties ?? {}, key) ? obj.properties[key] : typeof obj.additionalProperties === 'object' ? obj.additionalProperties : undefined;
        slot(sub, v, key);
      }
    }
  }
}

/** Data to look into: parsed JSON, query and path objects; not streams (an upload's body), buffers or emitters. */
function isData(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof EventEmitter || v instanceof Date) return false;
  return typeof (v as { pipe?: unknown }).pipe !== 'function';
}

/** The path (`lines[2].text`) of the first string holding a NUL character, or null. */
export function findNul(value: unknown, root: string): string | null {
  // Iterative: a body may be nested deeper than the call stack allows. Only data is walked
  // (a raw upload's stream is not), each object once.
  const stack: Array<[unknown, string]> = [[value, root]];
  const seen = new Set<object>();
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v) || isData(v)) {
      if (seen.has(v)) continue;
      seen.add(v);
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
      } else {
        for (const [k, x] of Object.entries(v)) {
          if (k.includes('\u0000')) return path || 'body';
          stack.push([x, path ? `${path}.${k}` : k]);
        }
      }
    }
  }
  return null;
}

/**
 * Text with a NUL character is refused (422) in every parameter and body field: PostgreSQL
 * cannot store it, and no client means it; refusing it on SQLite too keeps the two alike.
 * Only API routes. Parameters and the query come from the URL, where a NUL can only arrive
 * as `%00` (the HTTP parser refuses a raw one): the one onRequest hook (app.ts) asks
 * `nulInUrl` once it knows the caller, so that a GET passes no other hook for it. A body is
 * checked by a preHandler of the routes that take one (a route without a hook of a kind
 * skips that stage's runner).
 */
export function nulInUrl(request: FastifyRequest): HttpError | undefined {
  if (!request.url.includes('%00') || !request.routeOptions.config?.auth) return undefined;
  const where = findNul(request.params, '') ?? findNul(request.query, '');
  return where === null ? undefined : nulRefused(where);
}

const nulRefused = (where: string) => invalidField(where || 'body', `${where || 'The request'} must not contain the NUL character.`);

export function registerBodyTextGuard(app: FastifyInstance) {
  const guard: preHandlerHookHandler = (request, _reply, done) => {
    const where = request.body === undefined ? null : findNul(request.body, '');
    done(where === null ? undefined : nulRefused(where));
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth && takesBody(route.method)) route.preHandler = [guard, ...[route.preHandler ?? []].flat()];
  });
}
