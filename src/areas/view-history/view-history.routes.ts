// Who viewed what: views of guides and wikis by logged-in users (recorded in batches,
// see view-history.recorder.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { errorResponses, Id, OffsetLimit, StringEnum } from '../../http/schemas.js';
import { notFound } from '../../http/errors.js';
import { requireSelfOrAdmin } from '../../http/auth.js';
import { viewRecorder } from './view-history.recorder.js';
import { docExists } from './view-history.docs.js';

const TAG = ['User view history'];

export const ViewHistoryEntry = Type.Object({
  userid: Type.Integer(),
  username: Type.String(),
  doc_type: StringEnum(['GUIDE', 'WIKI'] as const),
  docid: Type.String(),
  date: Type.Integer({ description: 'When the view happened.' }),
});

const DateRange = {
  start_date: Type.Optional(Type.Integer({ minimum: 0, description: 'Views on or after this UNIX time.' })),
  end_date: Type.Optional(Type.Integer({ minimum: 0, description: 'Views on or before this UNIX time.' })),
  ...OffsetLimit,
};

const ORDER_TEXT = 'Newest first (by date, then by the order recorded). Views are written in batches within a second of the read; this list first writes the views this server still holds.';

type ViewQuery = SelectQueryBuilder<Database, 'view_history' | 'users', { userid: number; username: string; doc_type: string; docid: number; date: number }>;

export async function viewHistoryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const recorder = viewRecorder(db);
  recorder.onError = (err) => app.log.warn({ err }, 'writing view history failed');
  app.addHook('onClose', async () => {
    await recorder.close();
  });

  const base = (d: Kysely<Database>) => d.selectFrom('view_history').innerJoin('users', 'users.userid', 'view_history.userid')
    .select(['view_history.userid', 'users.username', 'view_history.doc_type', 'view_history.docid', 'view_history.date']);

  async function page(q: ViewQuery, query: { start_date?: number; end_date?: number; offset: number; limit: number }) {
    await recorder.flush();
    if (query.start_date !== undefined) q = q.where('view_history.date', '>=', query.start_date);
    if (query.end_date !== undefined) q = q.where('view_history.date', '<=', query.end_date);
    const rows = await q.orderBy('view_history.date', 'desc').orderBy('view_history.viewid', 'desc').limit(query.limit).offset(query.offset).execute();
    return rows.map((r) => ({ userid: r.userid, username: r.username, doc_type: r.doc_type.toUpperCase() as 'GUIDE' | 'WIKI', docid: String(r.docid), date: r.date }));
  }

  app.get('/user_view_history/user/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'What a user viewed',
      description: `The user themself or an Admin. \`start_date\`, \`end_date\`, \`offset\`, \`limit\`. ${ORDER_TEXT}`,
      params: Type.Object({ userid: Id() }),
      querystring: Type.Object(DateRange),
      response: { 200: Type.Array(ViewHistoryEntry), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const { userid } = request.params;
    requireSelfOrAdmin(request, userid);
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst())) throw notFound('User');
    return page(base(db).where('view_history.userid', '=', userid), request.query);
  });

  app.get('/user_view_history/:doc_type/:docid', {
    config: { auth: 'moderator' },
    schema: {
      tags: TAG,
      summary: 'Who viewed a guide or wiki',
      description: `Moderators and Admins. \`doc_type\` guide or wiki (either case). \`start_date\`, \`end_date\`, \`offset\`, \`limit\`. ${ORDER_TEXT}`,
      params: Type.Object({ doc_type: StringEnum(['guide', 'wiki', 'GUIDE', 'WIKI'] as const), docid: Id() }),
      querystring: Type.Object(DateRange),
      response: { 200: Type.Array(ViewHistoryEntry), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const docType = request.params.doc_type.toLowerCase() as 'guide' | 'wiki';
    const { docid } = request.params;
    if (!(await docExists(db, docType, docid))) throw notFound(docType === 'guide' ? 'Guide' : 'Wiki');
    return page(base(db).where('view_history.doc_type', '=', docType).where('view_history.docid', '=', docid), request.query);
  });
}
