// GET /tags: every tag in use, ordered by tagid. Registered by the guides area, which
// owns tag storage (wikis use it too).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit, Order } from '../../http/schemas.js';
import { listReadableTags } from './tags.queries.js';

export async function tagsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/tags', {
    config: { auth: 'none' },
    schema: {
      tags: ['Tags'],
      summary: 'All tags, ordered by tagid',
      description: 'Tags of guides and wikis, each once, as plain strings. Only tags of what the caller may read: a tag used only by private (or deleted) guides is listed only to those who may read one of them.',
      querystring: Type.Object({ ...OffsetLimit, order: Type.Optional(Order) }),
      response: { 200: Type.Array(Type.String()), ...errorResponses(422) },
    },
  }, async (request) => {
    const rows = await listReadableTags(app.db, request.user, request.query);
    return rows.map((r) => r.tag);
  });
}
