// GET /tags: every tag in use, ordered by tagid. Registered by the guides area, which
// owns tag storage (wikis use it too).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit, Order } from '../../http/schemas.js';
import { readableGuideIds } from '../shared/guide-access.js';

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
    const { offset, limit, order } = request.query;
    const rows = await app.db.selectFrom('tags').select('tag')
      // Wikis have no private state; a guide counts when the caller may read it.
      .where((eb) => eb.exists(eb.selectFrom('doc_tags as d').select('d.tagid').whereRef('d.tagid', '=', 'tags.tagid')
        .where((w) => w.or([
          w('d.doctype', '=', 'wiki'),
          w.and([w('d.doctype', '=', 'guide'), w('d.docid', 'in', readableGuideIds(app.db, request.user))]),
        ]))))
      .orderBy('tagid', order === 'DESC' ? 'desc' : 'asc').limit(limit).offset(offset).execute();
    return rows.map((r) => r.tag);
  });
}
