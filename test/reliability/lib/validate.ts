// Response checks shared by the suites: Ajv in strict mode against the schemas of the
// OpenAPI document (objects closed: an undocumented field fails), the one error shape,
// and the 409 that carries the current resource instead.
import { Ajv2019 } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { ErrorResponse } from '../../../src/http/schemas.js';
import { toJsonSchema, type Operation } from './openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2019) => Ajv2019;

function makeAjv() {
  const ajv = new Ajv2019({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI formats that describe bytes or numbers rather than constrain text.
  for (const f of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) ajv.addFormat(f, true);
  return ajv;
}

const ajv = makeAjv();
const cache = new WeakMap<object, ValidateFunction>();

export function compile(schema: object): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    cache.set(schema, v);
  }
  return v;
}

/** Ajv's errors as short lines. */
export function explain(v: ValidateFunction): string {
  return (v.errors ?? []).slice(0, 6).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}${e.params && 'unevaluatedProperty' in e.params ? ` (${e.params.unevaluatedProperty})` : ''}`).join('; ');
}

const errorSchema = toJsonSchema(JSON.parse(JSON.stringify(ErrorResponse)), {}, true);

/** Problems with an error body (4xx other than 409), or [] when it has the one error shape. */
export function checkErrorBody(status: number, headers: Record<string, unknown>, text: string): string[] {
  const problems: string[] = [];
  if (headers['content-type'] !== 'application/json') problems.push(`error content-type is ${String(headers['content-type'])}`);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `error body is not JSON: ${text.slice(0, 120)}`];
  }
  const v = compile(errorSchema);
  const ok: boolean = v(body);
  if (!ok) problems.push(`error body does not match the error schema: ${explain(v)}`);
  else {
    if (body.message !== body.msg) problems.push('error msg differs from message');
    if (headers['x-request-id'] !== undefined && body.request_id !== headers['x-request-id']) problems.push('error request_id differs from X-Request-Id');
    if (status === 422 && !(Array.isArray(body.errors) && body.errors.length > 0)) problems.push('422 without errors[]');
    if (status === 429 && headers['retry-after'] === undefined) problems.push('429 without Retry-After');
    if (status === 405 && headers.allow === undefined) problems.push('405 without Allow');
  }
  return problems;
}

/** The schema a 409 body must match: the declared 409 schema, else the route's success schema. */
export function conflictSchema(op: Operation): object | null {
  const declared = op.responses['409'];
  if (declared && JSON.stringify(declared) !== JSON.stringify(errorSchema)) return declared;
  for (const s of ['200', '201']) if (op.responses[s]) return op.responses[s];
  return null;
}

/**
 * Problems with a response to `op`, or []. 2xx: declared, and the body validates against
 * the declared schema (strict, closed objects); 409: the current resource, never the error
 * shape; other 4xx: the error shape. A 5xx is always a problem.
 */
export function checkResponse(op: Operation, status: number, headers: Record<string, unknown>, text: string): string[] {
  if (status >= 500) return [`${status}: ${text.slice(0, 300)}`];
  if (status >= 200 && status < 300) {
    const key = String(status);
    if (!(key in op.responses)) return [`status ${status} is not declared in the OpenAPI document (declared: ${Object.keys(op.responses).join(', ')})`];
    const schema = op.responses[key];
    const media = String(headers['content-type'] ?? '').split(';')[0];
    // A document always has bytes; JSON Lines of an empty selection (an export that matched nothing) has none.
    if (schema === null && op.otherMedia?.[key]?.includes(media)) return text !== '' || media === 'application/x-ndjson' ? [] : [`${status} ${media} without a body`];
    if (schema === null) return text === '' ? [] : [`${status} declared without content but the body is ${text.slice(0, 80)}`];
    if (status === 204) return text === '' ? [] : ['204 with a body'];
    if (headers['content-type'] !== 'application/json') return [`content-type is ${String(headers['content-type'])}, not application/json`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${status} body is not JSON`];
    }
    const v = compile(schema);
    return v(body) ? [] : [`${status} body does not match the response schema: ${explain(v)}`];
  }
  if (status === 409) {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return ['409 body is not JSON'];
    }
    if (body && body.error === true) return ['409 answered the error shape instead of the current resource'];
    const schema = conflictSchema(op);
    if (!schema) return [];
    const v = compile(schema);
    return v(body) ? [] : [`409 body does not match the resource schema: ${explain(v)}`];
  }
  if (status >= 400) return checkErrorBody(status, headers, text);
  if (status >= 300) return [`unexpected redirect ${status}`];
  return [`unexpected status ${status}`];
}
