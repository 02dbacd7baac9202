// The OpenAPI 3.1 document, built from the route schemas, at /api/2.0/openapi.json, and
// an API reference page at /api/2.0/docs served from local files (works offline).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { docsCsp } from './security.js';
import { RECORDS, nameRecords } from './openapi.records.js';
import { attachExamples } from './openapi.examples.js';
import { OPERATION_IDS } from './openapi.operations.js';

const API_NAME = 'Content Platform REST API';
const API_VERSION = '2.0';
const TOP_BAR_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="40" viewBox="0 0 360 40">` +
  `<text x="0" y="27" font-family="sans-serif" font-size="20" font-weight="bold" fill="#ffffff">${API_NAME} ${API_VERSION}</text></svg>`;

/**
 * Moves every named record (src/http/openapi.records.ts) out of the paths into
 * `components.schemas` and puts a `$ref` in its place, so that each is written once and a
 * client generator gets named types. A record that came out differently in one place
 * (none today; the OpenAPI test checks) stays inline.
 */
export function nameDocumentRecords(doc: any) {
  const schemas: Record<string, unknown> = (doc.components.schemas ??= {});
  const canonical = new Map<string, string>();
  const visit = (node: any): any => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out: any = {};
    // Example values are data, not schemas: a `title` in them names nothing.
    for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : visit(v);
    const name = typeof node.title === 'string' && Object.hasOwn(RECORDS, node.title) ? node.title : undefined;
    if (!name) return out;
    // A record re-described where it is used (`{ ...Guide, description }`) is the record.
    const { description, ...record } = out;
    const json = JSON.stringify(record);
    if (!canonical.has(name)) {
      canonical.set(name, json);
      schemas[name] = out;
      return { $ref: `#/components/schemas/${name}` };
    }
    if (canonical.get(name) !== json) return out;
    const ref = { $ref: `#/components/schemas/${name}` };
    return description === undefined || description === (schemas[name] as any).description ? ref : { allOf: [ref], description };
  };
  doc.paths = visit(doc.paths);
  return doc;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation that reads a JSON body answers 400 to one that is not JSON (src/http/errors.ts). */
function documentInvalidJson(doc: any) {
  for (const item of Object.values<any>(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op?.requestBody?.content?.['application/json'] || op.responses?.['400']) continue;
      op.responses['400'] = {
        description: 'The body is not valid JSON (code `invalid_json`).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
  }
}

/** Every operation's `operationId`, from the one list (src/http/openapi.operations.ts). */
function nameOperations(doc: any) {
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const m of METHODS) {
      const id = item[m] && OPERATION_IDS[`${m.toUpperCase()} ${path}`];
      if (id) item[m].operationId = id;
    }
  }
}

/**
 * A query or header parameter with a default may be left out (the validator fills it in):
 * the document says so, or generated clients and validating proxies would demand it.
 */
function optionalDefaults(doc: any) {
  for (const item of Object.values<any>(doc.paths)) {
    for (const m of METHODS) {
      for (const p of item[m]?.parameters ?? []) if (p.in !== 'path' && p.schema?.default !== undefined) p.required = false;
    }
  }
}

/** What a success answer without a description of its own holds, said from its schema. */
function describeSuccess(status: string, schema: any, summary: string): string {
  const record = (s: any) => (typeof s?.$ref === 'string' ? String(s.$ref).split('/').pop() : undefined);
  const one = record(schema);
  const many = schema?.type === 'array' ? record(schema.items) : undefined;
  const what = one ? `the ${one} record` : many ? `a list of ${many} records` : schema?.description ?? undefined;
  if (status === '201') return what ? `Created: ${what}.` : 'Created.';
  if (what) return `${what.charAt(0).toUpperCase()}${what.slice(1).replace(/\.$/, '')}.`;
  return summary ? `${summary.replace(/\.$/, '')}.` : 'Done.';
}

/** Every answer says what it is: Fastify writes "Default Response" where a route said nothing. */
function describeResponses(doc: any) {
  for (const item of Object.values<any>(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      for (const [status, response] of Object.entries<any>(op?.responses ?? {})) {
        if (response.description !== 'Default Response') continue;
        response.description = describeSuccess(status, response.content?.['application/json']?.schema, op.summary ?? '');
      }
    }
  }
}

const STATUS_NAMES: Record<string, string> = {
  400: 'InvalidJson', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 413: 'TooLarge', 415: 'UnsupportedMediaType', 422: 'Unprocessable', 429: 'RateLimited', 503: 'Unavailable', 507: 'InsufficientStorage',
};

/**
 * Error answers are written once, in `components.responses`, and referenced: the same few
 * (401, 403, 404, 422 with the Error record...) stood under every operation.
 */
function shareErrorResponses(doc: any) {
  const responses: Record<string, unknown> = (doc.components.responses ??= {});
  const byJson = new Map<string, string>();
  const errorsOf = (op: any) => Object.entries<any>(op?.responses ?? {})
    .filter(([status, r]) => /^[45]/.test(status) && !r.$ref && r.content?.['application/json']?.schema?.$ref === '#/components/schemas/Error');
  // An answer that stands under several statuses is named `Error`; one of a single status by it (`InvalidJson`).
  const statusesOf = new Map<string, Set<string>>();
  for (const item of Object.values<any>(doc.paths)) {
    for (const m of METHODS) for (const [status, r] of errorsOf(item[m])) statusesOf.set(JSON.stringify(r), (statusesOf.get(JSON.stringify(r)) ?? new Set()).add(status));
  }
  for (const item of Object.values<any>(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      for (const [status, response] of errorsOf(op)) {
        const json = JSON.stringify(response);
        let name = byJson.get(json);
        if (!name) {
          const base = statusesOf.get(json)!.size > 1 ? 'Error' : STATUS_NAMES[status] ?? `Error${status}`;
          name = base;
          for (let i = 2; Object.hasOwn(responses, name); i++) name = `${base}${i}`;
          responses[name] = response;
          byJson.set(json, name);
        }
        op.responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
  }
}

/**
 * A parameter that several operations declare alike (`offset`, `limit`, `langid`, a
 * `guideid` in the path...) is written once, in `components.parameters`, and referenced.
 */
function shareParameters(doc: any) {
  const params: Record<string, unknown> = (doc.components.parameters ??= {});
  const uses = new Map<string, number>();
  const ops = Object.values<any>(doc.paths).flatMap((item) => METHODS.map((m) => item[m]).filter(Boolean));
  for (const op of ops) for (const p of op.parameters ?? []) uses.set(JSON.stringify(p), (uses.get(JSON.stringify(p)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const op of ops) {
    op.parameters = op.parameters?.map((p: any) => {
      const json = JSON.stringify(p);
      if ((uses.get(json) ?? 0) < 3) return p;
      let name = names.get(json);
      if (!name) {
        const base = `${p.in}${String(p.name).charAt(0).toUpperCase()}${String(p.name).slice(1)}`.replace(/[^A-Za-z0-9_]/g, '');
        name = base;
        for (let i = 2; Object.hasOwn(params, name); i++) name = `${base}${i}`;
        params[name] = p;
        names.set(json, name);
      }
      return { $ref: `#/components/parameters/${name}` };
    });
  }
}

/** The document's description ends with the list of what is served: its tags, in order. */
function describeServedAreas(doc: any) {
  const tags = new Set<string>();
  for (const item of Object.values<any>(doc.paths)) for (const m of METHODS) for (const t of item[m]?.tags ?? []) tags.add(t);
  doc.info.description += `\n\nServed here: ${[...tags].join(', ')}.`;
}

/**
 * The document as served (OpenAPI 3.1: its schemas are the routes' JSON Schema as they
 * are, nulls included): named records and operations, optional defaults, described
 * answers, 400 where a body is read, examples, what is served.
 */
export function finishDocument(doc: any) {
  nameDocumentRecords(doc);
  nameOperations(doc);
  optionalDefaults(doc);
  describeResponses(doc);
  documentInvalidJson(doc);
  attachExamples(doc);
  shareErrorResponses(doc);
  shareParameters(doc);
  describeServedAreas(doc);
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, basePath: string, publicUrl: string) {
  // swagger-ui redirects `static/index.html` to the page by a pattern that misses a query
  // string, so `static/index.html?x` redirected to itself forever: one hop to the page.
  nameRecords();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: API_NAME,
        version: API_VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Guides, wikis, comments, users and teams, media, approvals, courses and more. ' +
          'Authenticate with `Authorization: api <token>` (from `POST /user/token`; a token lasts TOKEN_TTL seconds, ' +
          '30 days by default, until logout or a password change). Errors share one shape ' +
          '(`error`, `message`, `msg`, `code`, `request_id`, and for 422 `errors` with `field`, `code`, `message`); ' +
          'a 409 answers with the current version of the resource. Any operation may answer 503 `unavailable` with ' +
          '`Retry-After` when the database is too busy to answer in time, and 507 `insufficient_storage` when a write ' +
          'finds the server\'s disk full; what either interrupted is rolled back. `?pretty` indents JSON; `?format=xml` or ' +
          '`Accept: application/xml` returns XML on GET. Routes marked "extension" are not in the 2.0 specification ' +
          'but are called by existing clients.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`api <token>` (or `Bearer <token>`).' },
        },
      },
    },
    transformObject: (documentObject) => finishDocument((documentObject as { openapiObject: unknown }).openapiObject),
    // Keep TypeBox's $id'd shared schemas inline, so every path is self-contained.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The page's routes in a scope of their own, with the hook that mends that redirect: no
  // other request passes it.
  const staticIndex = `${basePath}/docs/static/index.html`;
  await app.register(async (docs) => {
    docs.addHook('onRequest', (request, reply, done) => {
      if (request.url.startsWith(staticIndex) && request.url.split('?')[0] === staticIndex) return reply.redirect(`${basePath}/docs/`);
      done();
    });
    await docs.register(swaggerUi, {
      routePrefix: `${basePath}/docs`,
      theme: { title: `${API_NAME} ${API_VERSION}` },
      // The page's top bar shows the project's name, not the plugin's default (Fastify's) logo.
      logo: { type: 'image/svg+xml', content: Buffer.from(TOP_BAR_LOGO), href: `${basePath}/docs/` },
      staticCSP: true,
      transformStaticCSP: docsCsp,
      uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null } as any,
    });
  });
  // Written with its slash, so that the OpenAPI document names it `/` (both forms answer).
  app.get(`${basePath}/`, {
    config: { auth: 'none', openOnPrivateSite: true },
    schema: {
      summary: 'What this server is, and where its reference and OpenAPI document are (extension)',
      tags: ['Index'],
      response: {
        200: Type.Object({
          name: Type.String(),
          version: Type.String(),
          links: Type.Object({ reference: Type.String(), openapi: Type.String() }),
        }, { additionalProperties: false }),
      },
    },
  }, async () => ({ name: API_NAME, version: API_VERSION, links: { reference: `${publicUrl}/docs`, openapi: `${publicUrl}/openapi.json` } }));
  app.get(`${basePath}/openapi.json`, { schema: { hide: true }, config: { auth: 'none', openOnPrivateSite: true } }, async () => app.swagger());
}
