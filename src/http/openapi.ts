// The OpenAPI 3 document, built from the route schemas, at /api/2.0/openapi.json, and
// an API reference page at /api/2.0/docs served from local files (works offline).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { docsCsp } from './security.js';
import { RECORDS, nameRecords } from './openapi.records.js';

const API_NAME = 'Content Platform REST API';
const API_VERSION = '2.0';

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

/** The document's description ends with the list of what is served: its tags, in order. */
function describeServedAreas(doc: any) {
  const tags = new Set<string>();
  for (const item of Object.values<any>(doc.paths)) for (const m of METHODS) for (const t of item[m]?.tags ?? []) tags.add(t);
  doc.info.description += `\n\nServed here: ${[...tags].join(', ')}.`;
}

/** The document as served: named records, 400 where a body is read, what is served. */
export function finishDocument(doc: any) {
  nameDocumentRecords(doc);
  documentInvalidJson(doc);
  describeServedAreas(doc);
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, basePath: string, publicUrl: string) {
  // swagger-ui redirects `static/index.html` to the page by a pattern that misses a query
  // string, so `static/index.html?x` redirected to itself forever: one hop to the page.
  const staticIndex = `${basePath}/docs/static/index.html`;
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith(staticIndex) && request.url.split('?')[0] === staticIndex) return reply.redirect(`${basePath}/docs/`);
  });
  nameRecords();
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: API_NAME,
        version: API_VERSION,
        description:
          'Guides, wikis, comments, users and teams, media, approvals, courses and more. ' +
          'Authenticate with `Authorization: api <token>` (from `POST /user/token`; a token lasts TOKEN_TTL seconds, ' +
          '30 days by default, until logout or a password change). Errors share one shape ' +
          '(`error`, `message`, `msg`, `code`, `request_id`, and for 422 `errors` with `field`, `code`, `message`); ' +
          'a 409 answers with the current version of the resource. `?pretty` indents JSON; `?format=xml` or ' +
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
  await app.register(swaggerUi, {
    routePrefix: `${basePath}/docs`,
    theme: { title: `${API_NAME} ${API_VERSION}` },
    staticCSP: true,
    transformStaticCSP: docsCsp,
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null } as any,
  });
  // Written with its slash, so that the OpenAPI document names it `/` (both forms answer).
  app.get(`${basePath}/`, {
    config: { auth: 'none' },
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
  app.get(`${basePath}/openapi.json`, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}
