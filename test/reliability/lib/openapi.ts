// The API as the app describes it: every operation of the OpenAPI document
// (`app.swagger()`), with its declared access (`x-access`, written by src/http/auth.ts),
// its parameters, body and response schemas converted from OpenAPI 3.0 to JSON Schema.
// The reliability suites are generated from this list, so a route that lands in an area
// is covered without editing them.
import type { FastifyInstance } from 'fastify';

export type Access = 'none' | 'user' | 'author' | 'moderator' | 'admin';
export const ACCESS_LEVELS: Access[] = ['none', 'user', 'author', 'moderator', 'admin'];

export type JsonSchema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** `GET /users/{userid}`: the key used in reports and seeds. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path, relative to the base path: `/users/{userid}`. */
  path: string;
  access: Access;
  tags: string[];
  summary: string;
  deprecated: boolean;
  /** `x-transition`: a POST that moves an existing resource to another state (not a creation). */
  transition: boolean;
  pathParams: Param[];
  queryParams: Param[];
  /** Request body schemas by content type (JSON Schema, as declared). */
  body: { required: boolean; content: Record<string, JsonSchema> } | null;
  /** Response schemas by status, converted and closed (undocumented fields fail); null: no content. */
  responses: Record<string, JsonSchema | null>;
  /** Media types other than JSON a status declares (a PDF): such a body is checked by its content-type only. */
  otherMedia?: Record<string, string[]>;
  /** Response schemas by status as declared (objects not closed): for reading field names. */
  rawResponses: Record<string, JsonSchema | null>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** OpenAPI-only keywords that JSON Schema (and Ajv in strict mode) does not know. */
const OPENAPI_ONLY = new Set(['nullable', 'example', 'xml', 'externalDocs', 'discriminator']);

/**
 * OpenAPI 3.0 schema -> JSON Schema (draft 2019-09, as Ajv2019 reads it): `nullable`
 * becomes a null type, `$ref`s to components are inlined, OpenAPI-only keywords are
 * dropped. With `close`, every object schema that says nothing about extra properties
 * refuses them: a response with a field the document does not declare fails.
 */
export function toJsonSchema(schema: any, doc: any, close: boolean, seen: string[] = []): any {
  if (schema === true || schema === false || schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, doc, close, seen));
  if (typeof schema.$ref === 'string') {
    const ref: string = schema.$ref;
    if (seen.includes(ref)) return {}; // recursive schema: stop here
    const target = ref.startsWith('#/') ? ref.slice(2).split('/').reduce((o: any, k) => o?.[decodeURIComponent(k.replace(/~1/g, '/').replace(/~0/g, '~'))], doc) : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return toJsonSchema(target, doc, close, [...seen, ref]);
  }
  const out: any = {};
  const composite = ['allOf', 'anyOf', 'oneOf'].some((k) => Array.isArray(schema[k]));
  for (const [k, v] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(k) || k.startsWith('x-') || k === '$id') continue;
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as object).map(([name, s]) => [name, toJsonSchema(s, doc, close, seen)]));
    } else if (k === 'allOf') {
      // Members of an allOf are closed together (below), never one by one.
      out[k] = (v as any[]).map((s) => toJsonSchema(s, doc, false, seen));
    } else if (['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'contains', 'propertyNames', 'if', 'then', 'else', 'additionalItems', 'prefixItems'].includes(k)) {
      out[k] = typeof v === 'object' ? toJsonSchema(v, doc, close, seen) : v;
    } else {
      out[k] = v;
    }
  }
  const isObject = out.type === 'object' || (out.type === undefined && out.properties !== undefined);
  if (close && isObject && out.additionalProperties === undefined && out.patternProperties === undefined) {
    if (composite) out.unevaluatedProperties = false;
    else out.additionalProperties = false;
  }
  if (schema.nullable === true) {
    if (out.type !== undefined) {
      out.type = [...new Set([...(Array.isArray(out.type) ? out.type : [out.type]), 'null'])];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else {
      return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

/** A parameter or response the document writes once in `components` and references. */
function deref(node: any, doc: any): any {
  if (!node || typeof node.$ref !== 'string') return node;
  const ref: string = node.$ref;
  const target = ref.startsWith('#/') ? ref.slice(2).split('/').reduce((o: any, k) => o?.[k], doc) : undefined;
  if (!target) throw new Error(`unresolvable $ref ${ref}`);
  return deref(target, doc);
}

/** The OpenAPI document of a ready app. */
export function openApiDocument(app: FastifyInstance): any {
  return (app as any).swagger();
}

/** Every operation of the document, in document order. */
export function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(p, doc));
      const conv = (p: any): Param => ({ name: p.name, in: p.in, required: !!p.required || p.in === 'path', schema: toJsonSchema(p.schema ?? {}, doc, false) });
      const responses: Record<string, JsonSchema | null> = {};
      const rawResponses: Record<string, JsonSchema | null> = {};
      const otherMedia: Record<string, string[]> = {};
      for (const [status, ref] of Object.entries<any>(op.responses ?? {})) {
        const r = deref(ref, doc);
        const other = Object.keys(r?.content ?? {}).filter((m) => m !== 'application/json');
        if (other.length) otherMedia[status] = other;
        const s = r?.content?.['application/json']?.schema;
        responses[status] = s ? toJsonSchema(s, doc, true) : null;
        rawResponses[status] = s ? toJsonSchema(s, doc, false) : null;
      }
      let body: Operation['body'] = null;
      if (op.requestBody?.content) {
        body = {
          required: !!op.requestBody.required,
          content: Object.fromEntries(Object.entries<any>(op.requestBody.content).map(([type, c]) => [type, toJsonSchema(c.schema ?? {}, doc, false)])),
        };
      }
      const access = op['x-access'] as Access | undefined;
      if (!access || !ACCESS_LEVELS.includes(access)) throw new Error(`${m.toUpperCase()} ${path} has no x-access in the OpenAPI document`);
      out.push({
        id: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase() as Operation['method'],
        path,
        access,
        tags: op.tags ?? [],
        summary: op.summary ?? '',
        deprecated: !!op.deprecated,
        transition: op['x-transition'] === true,
        pathParams: params.filter((p) => p.in === 'path').map(conv),
        queryParams: params.filter((p) => p.in === 'query').map(conv),
        body,
        responses,
        otherMedia,
        rawResponses,
      });
    }
  }
  return out;
}

/** Fills `{name}` placeholders (values are URL-encoded). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`no value for path parameter ${name} of ${path}`);
    return encodeURIComponent(values[name]);
  });
}

/** The JSON request body schema of an operation, when it takes JSON. */
export function jsonBodySchema(op: Operation): JsonSchema | null {
  if (!op.body) return null;
  return op.body.content['application/json'] ?? null;
}

/** The 2xx statuses an operation declares. */
export function successStatuses(op: Operation): number[] {
  return Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)).map(Number);
}

/** Whether an operation is a write (anything but GET). */
export const isWrite = (op: Operation) => op.method !== 'GET';

/** How high an access level is; Admin satisfies every level. */
export function accessRank(a: Access): number {
  return ACCESS_LEVELS.indexOf(a);
}

/** Walks a JSON Schema and calls `fn` for every property (name, schema, path). */
export function walkProperties(schema: JsonSchema | null | undefined, fn: (name: string, s: JsonSchema, path: string) => void, path = '', depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 12) return;
  for (const [name, s] of Object.entries<any>(schema.properties ?? {})) {
    const p = path ? `${path}.${name}` : name;
    fn(name, s, p);
    walkProperties(s, fn, p, depth + 1);
  }
  if (schema.items && typeof schema.items === 'object') walkProperties(schema.items, fn, `${path}[]`, depth + 1);
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[k] ?? []) walkProperties(s, fn, path, depth + 1);
}
