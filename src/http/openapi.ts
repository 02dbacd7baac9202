// The OpenAPI 3 document, built from the route schemas, at /api/2.0/openapi.json, and
// an API reference page at /api/2.0/docs served from local files (works offline).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { docsCsp } from './security.js';

export async function registerOpenApi(app: FastifyInstance, basePath: string, publicUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Content Platform REST API',
        version: '2.0',
        description:
          'Guides, wikis, comments, users and teams, media, approvals, courses and more. ' +
          'Authenticate with `Authorization: api <token>` (from `POST /user/token`). Errors share one shape ' +
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
    // Keep TypeBox's $id'd shared schemas inline, so every path is self-contained.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: `${basePath}/docs`,
    staticCSP: true,
    transformStaticCSP: docsCsp,
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null } as any,
  });
  app.get(`${basePath}/openapi.json`, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}
