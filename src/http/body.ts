// JSON bodies are parsed whatever the client says the type is (a real client of this
// API sends its login as text/plain, or with no Content-Type at all). Areas that take
// raw bytes (media uploads) register their own parser in their own scope.
import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { HttpError, invalidField } from './errors.js';

export function parseJsonBody(body: string): unknown {
  if (body.trim() === '') return undefined;
  try {
    return sjson.parse(body, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
}

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
  // fields are all optional needs no body.
  app.addHook('preValidation', async (request) => {
    if ((request.body === undefined || request.body === null) && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
  });
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
 */
export function registerTextGuards(app: FastifyInstance) {
  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config?.auth) return; // only API routes
    const where = findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
    if (where !== null) throw invalidField(where || 'body', `${where || 'The request'} must not contain the NUL character.`);
  });
}
