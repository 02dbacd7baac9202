// GET /tags: every tag, ordered by tagid. Registered by the guides area, which owns tag
// storage (wikis use it too).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, Order } from '../../http/schemas.js';
import { Paging } from '../guides/guides.schemas.js';

export async function tagsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/tags', {
    config: { auth: 'none' },
    schema: {
      tags: ['Tags'],
      summary: 'All tags, ordered by tagid',
      description: 'Tags of guides and wikis, each once, as plain strings.',
      querystring: Type.Object({ ...Paging, order: Type.Optional(Order) }),
      response: { 200: Type.Array(Type.String()), ...errorResponses(422) },
    },
  }, async (request) => {
    const { offset, limit, order } = request.query;
    const rows = await app.db.selectFrom('tags').select('tag').orderBy('tagid', order === 'DESC' ? 'desc' : 'asc').limit(limit).offset(offset).execute();
    return rows.map((r) => r.tag);
  });
}
