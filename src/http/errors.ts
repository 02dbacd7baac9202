// One error shape for the whole API, one handler that formats it.
// {"error": true, "message", "msg", "code", "request_id", "errors"?}; a 409 is the
// exception: its body is the current version of the resource.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDataRangeError, isDatabaseBusy, isDatabaseFull } from '../db/helpers.js';

export interface FieldError {
  /** `lines[2].text` style path of the offending field. */
  field: string;
  /** missing_field | invalid_value | out_of_range | duplicate | ... */
  code: string;
  message: string;
  /** The first array index in the path, when there is one. */
  index?: number;
}

export class HttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly errors?: FieldError[],
    /** Sent as the whole body instead of the error shape (409 with the current resource). */
    public readonly body?: unknown,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'bad_request') => new HttpError(400, code, message);
export const unauthorized = (message = 'Authentication required.', code = 'unauthorized') => new HttpError(401, code, message);
export const forbidden = (message = 'You lack the privileges for this operation.', code = 'forbidden') => new HttpError(403, code, message);
export const notFound = (what = 'Resource') => new HttpError(404, 'not_found', `${what} not found.`);
/** 409 whose body is the current version of the resource. */
export const conflict = (current: unknown) => new HttpError(409, 'conflict', 'The revisionid is not the current one.', undefined, current);

/** When a client should try again after the database was too busy (Retry-After, seconds). */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** 503: the database did not serve in time (db/helpers.ts, `isDatabaseBusy`); the statement or transaction it stopped is rolled back. */
export const unavailable = () => new HttpError(503, 'unavailable', `The database is too busy to answer now; try again in ${BUSY_RETRY_AFTER_SECONDS} seconds.`, undefined, undefined, { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });

/** 507: a write found no disk space; `what` names what was not stored. */
export const insufficientStorage = (what = 'the change') => new HttpError(507, 'insufficient_storage', `The server is out of disk space: ${what} was not stored. Try again once space is freed.`);

/** True for a write that failed for want of disk space: the database's (isDatabaseFull) or a file's (ENOSPC, or EDQUOT: a disk quota). */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || isDatabaseFull(err);
}

export function unprocessable(errors: FieldError[], message?: string): HttpError {
  return new HttpError(422, 'unprocessable_entity', message ?? errors.map((e) => e.message).join(' '), errors);
}

/** A 422 for one field. */
export function invalidField(field: string, message: string, code = 'invalid_value'): HttpError {
  return unprocessable([withIndex({ field, code, message })]);
}

export const missingField = (field: string) => invalidField(field, `${field} is required.`, 'missing_field');

function withIndex(e: FieldError): FieldError {
  const m = /\[(\d+)\]/.exec(e.field);
  return m ? { ...e, index: Number(m[1]) } : e;
}

export function errorBody(request: FastifyRequest, status: number, code: string, message: string, errors?: FieldError[]) {
  return {
    error: true as const,
    message,
    msg: message,
    code,
    request_id: String(request.id),
    ...(errors ? { errors } : {}),
  };
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, any>;
  message?: string;
}

/** `/lines/2/text` (Ajv) to `lines[2].text`. */
function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

const CONTEXT_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Ajv errors to our field errors; the first error per field wins. */
export function validationErrors(errors: AjvError[], context: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const where = CONTEXT_NAMES[context] ?? context;
  for (const e of errors) {
    let field: string;
    let code: string;
    let message: string;
    switch (e.keyword) {
      case 'required':
        field = fieldPath(e.instancePath, e.params.missingProperty);
        code = 'missing_field';
        message = `${field} is required.`;
        break;
      case 'additionalProperties':
        field = fieldPath(e.instancePath, e.params.additionalProperty);
        code = 'invalid_value';
        message = `${field} is not a known field.`;
        break;
      case 'enum':
        field = fieldPath(e.instancePath);
        code = 'invalid_value';
        message = `${field || where} must be one of: ${(e.params.allowedValues ?? []).join(', ')}.`;
        break;
      case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      case 'minLength': case 'maxLength': case 'minItems': case 'maxItems': case 'minProperties': case 'maxProperties':
        field = fieldPath(e.instancePath);
        code = 'out_of_range';
        message = `${field || where} ${e.message ?? 'is out of range'}.`;
        break;
      default:
        field = fieldPath(e.instancePath);
        code = 'invalid_value';
        message = `${field || where} ${e.message ?? 'is invalid'}.`;
    }
    if (!field) field = where;
    if (seen.has(field)) continue;
    // anyOf/oneOf report every branch; the branch errors above say more than the summary.
    if ((e.keyword === 'anyOf' || e.keyword === 'oneOf') && out.some((o) => o.field.startsWith(field))) continue;
    seen.add(field);
    out.push(withIndex({ field, code, message }));
  }
  return out;
}

const FASTIFY_CODES: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'The request body is empty.'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Unsupported Content-Type.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'Content-Length does not match the body.'],
  FST_ERR_BAD_URL: [400, 'bad_request', 'The URL is malformed.'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long', 'A path parameter is too long.'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'The request cannot be routed.'],
};

/** What an error answers: status, body (the error shape, or a 409's resource) and extra headers. */
export function errorReply(request: FastifyRequest, err: unknown): { status: number; body: unknown; headers?: Record<string, string> } {
  if (err instanceof HttpError) {
    // The one 401-vs-403 rule of the API: a caller who sent no token and is refused
    // (`forbidden`: may not read or do this) hears 401, whichever check refused, since
    // logging in may help; 403 is for a caller known to lack the right. Refusals with a
    // code of their own (a disabled account at login) stand. API routes only (they declare
    // config.auth, src/http/auth.ts).
    if (err.status === 403 && err.code === 'forbidden' && !request.user && request.routeOptions.config?.auth) return { status: 401, body: errorBody(request, 401, 'unauthorized', err.message), headers: err.headers };
    if (err.body !== undefined) return { status: err.status, body: err.body, headers: err.headers };
    return { status: err.status, body: errorBody(request, err.status, err.code, err.message, err.errors), headers: err.headers };
  }
  const fe = err as FastifyError & { validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const errors = validationErrors(fe.validation as AjvError[], fe.validationContext ?? 'body');
    return { status: 422, body: errorBody(request, 422, 'unprocessable_entity', errors.map((e) => e.message).join(' '), errors) };
  }
  const known = fe?.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return { status: known[0], body: errorBody(request, known[0], known[1], known[2]) };
  if (isDataRangeError(err)) {
    request.log.warn({ err }, 'a value the database cannot store reached it');
    const e = unprocessable([{ field: 'request', code: 'out_of_range', message: 'A value in the request is outside what can be stored.' }]);
    return { status: 422, body: errorBody(request, 422, e.code, e.message, e.errors) };
  }
  // Pressure on the database or the disk is no bug: said as such, with the cause.
  if (isDatabaseBusy(err)) {
    request.log.warn({ err }, 'the database was too busy to answer in time');
    return errorReply(request, unavailable());
  }
  if (isOutOfSpace(err)) {
    request.log.error({ err }, 'out of disk space');
    return errorReply(request, insufficientStorage());
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = status === 429 ? 'rate_limited' : status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
    return { status, body: errorBody(request, status, code, fe.message || 'Bad request.') };
  }
  // A 5xx is a bug: log it with its stack, tell the client nothing about the inside.
  request.log.error({ err }, 'unhandled error');
  return { status: 500, body: errorBody(request, 500, 'internal_error', 'Internal server error.') };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  const { status, body, headers } = errorReply(request, err);
  if (headers) reply.headers(headers);
  return reply.status(status).send(body);
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
}
