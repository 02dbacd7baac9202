// Who viewed what: views of guides and wikis by logged-in users (recorded in batches,
// see view-history.recorder.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, Id, OffsetLimit, StringEnum } from '../../http/schemas.js';
import { notFound } from '../../http/errors.js';
import { requireSelfOrAdmin } from '../../http/auth.js';
import { viewRecorder } from './view-history.recorder.js';
import { docExists } from './view-history.docs.js';
import { userExists, viewsPage, type ViewPage, type ViewsOf } from './view-history.queries.js';

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

export async function viewHistoryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const recorder = viewRecorder(db);
  recorder.onError = (err) => app.log.warn({ err }, 'writing view history failed');
  app.addHook('onClose', async () => {
    await recorder.close();
  });

  /** First writes the views this server still holds, then reads the page. */
  async function page(of: ViewsOf, query: ViewPage) {
    await recorder.flush();
    const rows = await viewsPage(db, of, query);
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
    if (!(await userExists(db, userid))) throw notFound('User');
    return page({ userid }, request.query);
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
    return page({ docType, docid }, request.query);
  });
}
