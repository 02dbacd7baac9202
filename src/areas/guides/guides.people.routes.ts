// Guides and people: completions, favorites, collaborators (users and teams), flags,
// and the guide lists of a user. Only flags take a revisionid (a flag changes the guide).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit, Order } from '../../http/schemas.js';
import { notFound } from '../../http/errors.js';
import { hasPrivilege, isAdmin, requireRole, requireUser, type AuthUser } from '../../http/auth.js';
import { UserSummary } from '../users/users.schemas.js';
import { TeamSummary } from '../teams/teams.schemas.js';
import { CompletionStatus, FavoriteStatus, Flag, FullGuide, LangQuery, LightGuide, Id, GuideParam, Revisionid } from './guides.schemas.js';
import { lightGuideRecords } from './guides.records.js';
import { collaboratorRecords, contributedGuideRows, lightGuideRecord, markedGuideRows, memberExists, type MarkTable } from './guides.people.queries.js';
import { addCollaborator, removeCollaborator, setFlag, setMark } from './guides.people.changes.js';
import { ALL_FLAGS, flagRecord, GUIDE_FLAGS, USER_FLAGS } from './guides.flags.js';
import { changeGuide } from './guides.changes.js';
import { guideFor } from './guides.access.js';
import { NothingToChange } from '../content/revisions.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';

const USERS_TAG = ['Users'];
const TAG = ['Guides'];
const UseridParam = Type.Object({ userid: Id() });

export async function guidePeopleRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const langs = config.languages;
  const LangOnly = Type.Object({ langid: LangQuery(langs) });

  async function existingUser(userid: number) {
    if (!(await memberExists(db, 'user', userid))) throw notFound('User');
  }
  /** Others see a user's public guides; the user and Admins see the private ones too. */
  const seesPrivate = (request: FastifyRequest, userid: number) => !!request.user && (request.user.userid === userid || isAdmin(request.user));

  // ---- a user's guides
  const ListQuery = Type.Object({ ...OffsetLimit, order: Type.Optional(Order) });
  async function contributed(viewer: AuthUser | null, userid: number, withPrivate: boolean, q: { offset: number; limit: number; order?: 'ASC' | 'DESC' }) {
    return lightGuideRecords(db, config, await contributedGuideRows(db, userid, withPrivate, q), viewer);
  }
  app.get('/user/guides', {
    config: { auth: 'user' },
    schema: { tags: USERS_TAG, summary: 'Guides the logged-in user contributed to', description: 'Every guide the user created or edited (private ones too), ordered by guideid.', querystring: ListQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(401, 422) } },
  }, async (request) => contributed(request.user, requireUser(request).userid, true, request.query));
  app.get('/users/:userid/guides', {
    config: { auth: 'none' },
    schema: { tags: USERS_TAG, summary: 'Guides a user contributed to', description: 'Public ones; the user themself and Admins also see private ones. Ordered by guideid.', params: UseridParam, querystring: ListQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(404, 422) } },
  }, async (request) => {
    await existingUser(request.params.userid);
    return contributed(request.user, request.params.userid, seesPrivate(request, request.params.userid), request.query);
  });

  // ---- completions and favorites: one table each, the same shape
  const marked = (table: MarkTable) => async (viewer: AuthUser | null, userid: number, withPrivate: boolean, q: { offset: number; limit: number }) =>
    lightGuideRecords(db, config, await markedGuideRows(db, table, userid, withPrivate, q), viewer);
  const completions = marked('guide_completions');
  const favorites = marked('guide_favorites');
  const PageQuery = Type.Object({ ...OffsetLimit });

  app.get('/user/completions', {
    config: { auth: 'user' },
    schema: { tags: USERS_TAG, summary: 'Guides the logged-in user completed', description: 'Newest completion first.', querystring: PageQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(401, 422) } },
  }, async (request) => completions(request.user, requireUser(request).userid, true, request.query));
  app.get('/users/:userid/completions', {
    config: { auth: 'none' },
    schema: { tags: USERS_TAG, summary: 'Guides a user completed', description: 'Newest completion first; private guides only for the user themself and Admins.', params: UseridParam, querystring: PageQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(404, 422) } },
  }, async (request) => {
    await existingUser(request.params.userid);
    return completions(request.user, request.params.userid, seesPrivate(request, request.params.userid), request.query);
  });
  app.get('/user/favorites/guides', {
    config: { auth: 'user' },
    schema: { tags: USERS_TAG, summary: 'The logged-in user\'s favorite guides', description: 'Newest favorite first.', querystring: PageQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(401, 422) } },
  }, async (request) => favorites(request.user, requireUser(request).userid, true, request.query));
  app.get('/users/:userid/favorites/guides', {
    config: { auth: 'none' },
    schema: { tags: USERS_TAG, summary: 'A user\'s favorite guides', description: 'Newest favorite first; private guides only for the user themself and Admins.', params: UseridParam, querystring: PageQuery, response: { 200: Type.Array(LightGuide), ...errorResponses(404, 422) } },
  }, async (request) => {
    await existingUser(request.params.userid);
    return favorites(request.user, request.params.userid, seesPrivate(request, request.params.userid), request.query);
  });

  async function mark(table: MarkTable, on: boolean, request: FastifyRequest, guideid: number, langid: string | undefined) {
    const user = requireUser(request);
    const ctx = await guideFor(app, request, guideid, langid, 'read');
    const key = { userid: user.userid, guideid: ctx.row.guideid, langid: ctx.row.langid };
    if (!(on && table === 'guide_completions')) return { ...key, date: await setMark(db, table, key, on, clock.now()) };
    // Marking a guide completed completes the user's course stages on it (tied to the revision read), in the same transaction.
    const date = await db.transaction().execute(async (trx) => {
      const d = await setMark(trx, table, key, on, clock.now());
      await completeStagesOnDocument(trx, clock, { userid: user.userid, doctype: 'guide', docid: ctx.row.guideid, doc_revisionid: ctx.row.revisionid, via: 'guide_completed', actor: user });
      return d;
    });
    return { ...key, date };
  }

  for (const method of ['put', 'delete'] as const) {
    const on = method === 'put';
    app[method]('/guides/:guideid/completed', {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: on ? 'Mark a guide completed' : 'Mark a guide not completed',
        description: on ? 'For the logged-in user; idempotent. Also completes the user\'s assigned course stages on the guide (tied to the revision read). Answers the resulting completion status.' : 'For the logged-in user; idempotent. Answers the resulting completion status.',
        params: GuideParam,
        querystring: LangOnly,
        response: { 200: CompletionStatus, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const m = await mark('guide_completions', on, request, request.params.guideid, request.query.langid);
      return { guideid: m.guideid, langid: m.langid, userid: m.userid, completed: on, completed_date: m.date };
    });
    app[method]('/user/favorites/guides/:guideid', {
      config: { auth: 'user' },
      schema: {
        tags: USERS_TAG,
        summary: on ? 'Add a guide to the logged-in user\'s favorites' : 'Remove a guide from the logged-in user\'s favorites',
        description: 'Idempotent. Answers the resulting favorite status.',
        params: GuideParam,
        querystring: LangOnly,
        response: { 200: FavoriteStatus, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const m = await mark('guide_favorites', on, request, request.params.guideid, request.query.langid);
      return { guideid: m.guideid, langid: m.langid, userid: m.userid, favorited: on, favorited_date: m.date };
    });
  }

  // ---- collaborators
  const collaborators = (guideid: number, kind: 'user' | 'team') => collaboratorRecords(db, config, guideid, kind);
  for (const kind of ['user', 'team'] as const) {
    const path = kind === 'user' ? 'users' : 'teams';
    const idName = kind === 'user' ? 'userid' : 'teamid';
    const Summary = kind === 'user' ? UserSummary : TeamSummary;
    const MemberParam = Type.Object({ guideid: Id(), [idName]: Id() });
    app.get(`/guides/:guideid/${path}`, {
      config: { auth: 'none' },
      schema: { tags: TAG, summary: `The ${kind}s who may edit a guide besides Authors and Admins`, params: GuideParam, querystring: LangOnly, response: { 200: Type.Array(Summary), ...errorResponses(401, 403, 404, 422) } },
    }, async (request) => {
      const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'read');
      return collaborators(ctx.row.guideid, kind);
    });
    for (const method of ['put', 'delete'] as const) {
      const adding = method === 'put';
      app[method](`/guides/:guideid/${path}/:${idName}`, {
        config: { auth: 'user' },
        schema: {
          tags: TAG,
          summary: adding ? `Let a ${kind} edit a guide` : `Remove a ${kind} from a guide's collaborators`,
          description: `The guide's owner, Authors and Admins. ${kind === 'team' ? 'Every member of the team may then edit the guide. ' : ''}${adding ? 'Idempotent.' : '404 when not a collaborator.'} Answers the guide's ${kind} collaborators.`,
          params: MemberParam,
          querystring: LangOnly,
          response: { 200: Type.Array(Summary), ...errorResponses(401, 403, 404, 422) },
        },
      }, async (request) => {
        const params = request.params as { guideid: number } & Record<string, number>;
        const memberid = params[idName];
        const ctx = await guideFor(app, request, params.guideid, (request.query as { langid?: string }).langid, 'manage');
        if (!(await memberExists(db, kind, memberid))) throw notFound(kind === 'user' ? 'User' : 'Team');
        if (adding) await addCollaborator(db, ctx.row.guideid, kind, memberid, ctx.user?.userid ?? null, clock.now());
        else if (!(await removeCollaborator(db, ctx.row.guideid, kind, memberid))) throw notFound('Collaborator');
        return collaborators(ctx.row.guideid, kind);
      });
    }
  }

  // ---- flags
  app.get('/user/flags', {
    config: { auth: 'user' },
    schema: {
      tags: USERS_TAG,
      summary: 'Flags the logged-in user may add to and remove from guides',
      description: 'GUIDE_IN_PROGRESS, DANGER, DEATH and GUIDE_DELETE (on guides the user may edit); GUIDE_STARRED for Moderators and Admins.',
      response: { 200: Type.Object({ guide: Type.Record(Type.String(), Flag) }), ...errorResponses(401) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const ids = hasPrivilege(user, 'Moderator') ? ALL_FLAGS : USER_FLAGS;
    return { guide: Object.fromEntries(ids.map((id) => [id, flagRecord(config, id)])) };
  });

  const FlagParam = Type.Object({ guideid: Id(), flagid: Type.String({ minLength: 1, maxLength: 64 }) });
  const FlagQuery = Type.Object({ revisionid: Revisionid, langid: LangQuery(langs) });
  for (const method of ['put', 'delete'] as const) {
    const adding = method === 'put';
    app[method]('/guides/:guideid/flags/:flagid', {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: adding ? 'Flag a guide (extension)' : 'Remove a flag from a guide (extension)',
        description: 'A flag of GET /user/flags (any other id: 404): GUIDE_STARRED by Moderators and Admins; the others by those who may edit the guide. ' +
          'A flag changes the guide: takes its current `revisionid` (422 without it, 409 with the current guide when stale) and makes a new revision of the guide in that language, moving its `modified_date`. ' +
          `${adding ? 'Setting a flag the guide has' : 'Removing a flag the guide lacks'} changes nothing (200, same revisionid). Answers the guide's light record with its flags.`,
        params: FlagParam,
        querystring: FlagQuery,
        response: { 200: LightGuide, 409: { ...FullGuide, description: 'Stale revisionid: the current guide.' }, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const { guideid, flagid } = request.params;
      const def = GUIDE_FLAGS.get(flagid);
      if (!def) throw notFound('Flag');
      const ctx = await guideFor(app, request, guideid, request.query.langid, def.setBy === 'moderator' ? 'read' : 'edit');
      if (def.setBy === 'moderator') requireRole(request, 'Moderator');
      await changeGuide(app, ctx, { expected: request.query.revisionid, action: adding ? 'flag' : 'unflag' }, async (trx, now) => {
        if (!(await setFlag(trx, ctx.row.guideid, flagid, adding, ctx.user?.userid ?? null, now))) throw new NothingToChange();
      });
      // An editor goes on from the revision the flag made; a Moderator's star shows what readers see.
      return (await lightGuideRecord(db, config, ctx.row.guideid, ctx.row.langid, ctx.user, { current: def.setBy !== 'moderator' }))!;
    });
  }
}
