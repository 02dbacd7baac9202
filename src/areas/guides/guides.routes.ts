// Guides: lists, one guide (current or any kept revision), create, edit, delete,
// publish, restore, tags. (GET /guides/{guideid}/approvalProcesses is the approvals area's.)
import { auditGuideCreated } from './guides.audit.js';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, OffsetLimit, Order, StringEnum } from '../../http/schemas.js';
import { forbidden, HttpError, invalidField, notFound, unauthorized } from '../../http/errors.js';
import { isAdmin, requireUser } from '../../http/auth.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { TAG_RULE, tagsOf } from '../tags/tags.queries.js';
import { FullGuide, guideCreateBody, guideListQuery, guidePatchBody, LangQuery, LightGuide, MAX_ID, Revisionid, Id, GuideParam } from './guides.schemas.js';
import { buildFullRecord, buildFullRecordFor, lightGuidePage, lightGuideRecords } from './guides.records.js';
import { findGuideRow, guideKeys, lightRowsOfPage, lightSelect, loadCurrentSource, loadRevisionSource, checkedByKeys, pageCheckAgain, pageCheckUnder, type GuideKeysQuery } from './guides.queries.js';
import { guideAccess } from './guides.access.js';
import { checkTag, defaultTitle, insertGuide, validateGuideFields } from './guides.service.js';
import { currentGuide, deleteGuide, editGuide, restoreGuide, setGuidePublic, tagGuide } from './guides.changes.js';
import { guideFor, guideHeadFor } from './guides.access.js';
import { recordView } from '../view-history/view-history.recorder.js';
import { invalidateGuide, readAhead, sendCachedGuide, sendCachedList } from './guides.cache.js';
import { registerStoredRecords } from './guides.stored.js';
import { listedForReaders, mayReadRevision, readerTags, refreshReaderViews, readerRevisionOf, readerViewDiffers, revisionShown } from '../shared/guide-reader.js';
import { privateAnswer } from '../../http/conditional.js';

const TAG = ['Guides'];

export async function guidesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const types = config.guideTypes;
  const langs = config.languages;
  const RevisionQuery = Type.Object({ revisionid: Revisionid, langid: LangQuery(langs) });
  const conflictResponse = { 409: { ...FullGuide, description: 'Stale revisionid: the current guide.' } };
  registerStoredRecords(app);

  app.get('/guides', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Public guides, ordered by guideid',
      description: 'Light guide records, one per guide and language. `includePrivate=true` needs an Admin (401 without a token, 403 for others).',
      querystring: guideListQuery(types, langs),
      response: { 200: Type.Array(LightGuide), ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const q = request.query;
    if (q.includePrivate) {
      if (!request.user) throw unauthorized('includePrivate needs an Admin.');
      if (!isAdmin(request.user)) throw forbidden('includePrivate needs an Admin.');
    }
    const dir = q.order === 'DESC' ? 'desc' : 'asc';
    if (q.includePrivate) return (await listPage(-1)).records;
    // The page's query is made only when a page is built or checked: not for a kept one.
    // Which guides make a page follows the 'guide_reach' stamp (their keys, `public`,
    // `deleted`) unless it is filtered by a column that stamp does not follow; then a deep
    // page is checked by its keys.
    const byKeys = q.filter === undefined && q.modifiedSince === undefined && checkedByKeys(q.offset, q.limit);
    return sendCachedList(app, reply, request.user, `guides ${JSON.stringify(q)}`, listPage, (kept, reach) => pageCheckAgain(filtered(), page, dir, kept, reach, byKeys));
    function filtered() {
      // Lists show what readers see: not a guide whose first release awaits approval.
      let keys = guideKeys(db).where('k.deleted', '=', 0).where(listedForReaders('k'));
      if (!q.includePrivate) keys = keys.where('k.public', '=', 1);
      if (q.guideids !== undefined) {
        const wanted = [...new Set(q.guideids.split(',').map((s) => Number(s.trim())))];
        if (wanted.some((id) => id < 1 || id > MAX_ID)) throw invalidField('guideids', `guideids are from 1 to ${MAX_ID}.`, 'out_of_range');
        keys = keys.where('k.guideid', 'in', wanted);
      }
      if (q.filter !== undefined) keys = keys.where('k.type', '=', q.filter);
      if (q.modifiedSince !== undefined) keys = keys.where('k.modified_date', '>=', q.modifiedSince);
      if (q.langid !== undefined) keys = keys.where('k.langid', '=', q.langid);
      return keys;
    }
    function page(keys: GuideKeysQuery) {
      return keys.orderBy('k.guideid', dir).orderBy('k.langid', dir).limit(q.limit).offset(q.offset);
    }
    async function listPage(reach: number) {
      const rows = await lightRowsOfPage(db, page(filtered()), dir);
      return { ...await lightGuidePage(db, config, rows, request.user), check: pageCheckUnder(reach, rows) };
    }
  });

  app.get('/guides/featured', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Featured guides (flag GUIDE_STARRED), ordered by guideid',
      querystring: Type.Object({ ...OffsetLimit, order: Type.Optional(Order) }),
      response: { 200: Type.Array(LightGuide), ...errorResponses(422) },
    },
  }, async (request) => {
    const { offset, limit, order } = request.query;
    const dir = order === 'DESC' ? 'desc' : 'asc';
    const rows = await lightSelect(db).innerJoin('guide_flags as f', 'f.guideid', 'g.guideid')
      .where('f.flagid', '=', 'GUIDE_STARRED').where('g.deleted', '=', 0).where('g.public', '=', 1).where(listedForReaders('g'))
      .orderBy('g.guideid', dir).orderBy('g.langid', dir).limit(limit).offset(offset).execute();
    return lightGuideRecords(db, config, rows, request.user);
  });

  app.get('/guides/:guideid', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'One guide: the full guide record',
      description: 'Public guides need no token; a private one is read by its owner, collaborators, contributors, Authors and Admins. `revisionid` reads a kept revision instead of the current one (404 when it is not one of this guide\'s). On a guide under an approval process, a reader who may not edit it gets its last approved revision (the one it showed when it came under the process, until its next approved release; 404 `not_released` while none exists) and may ask only for released revisions; editors get the current revision, and with `released=true` (extension) what readers get; such an answer, which differs by caller, carries `Cache-Control: private` and `Vary: Authorization, Cookie`. With `Accept-Encoding: gzip` the record may come gzipped (`Content-Encoding: gzip`) when it is answered from the compressed copy the server keeps; the `ETag` is the same in either coding.',
      params: GuideParam,
      querystring: Type.Object({
        langid: LangQuery(langs),
        revisionid: Type.Optional(Id({ description: 'A past revision to read.' })),
        released: Type.Optional(Type.Boolean({ description: 'Extension: what readers who may not edit the guide see (under an approval process, its last approved revision).' })),
      }),
      response: { 200: FullGuide, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const q = request.query;
    // PostgreSQL: the stored record asked for beside the head when this process keeps nothing of the guide.
    const ahead = q.revisionid === undefined ? readAhead(app, request.params.guideid, q.langid ?? config.languages[0], request.user) : undefined;
    // The head first (not the guide's texts): the cached record usually answers.
    const { head, access } = await guideHeadFor(app, request, request.params.guideid, q.langid, 'read');
    // The reader rule (areas/shared/guide-reader.ts): under an approval process readers
    // see the approved revision; editors the current one, or with `released` what readers see.
    const readerView = !access.edit || q.released === true;
    const shown = revisionShown(head, !readerView);
    if (readerViewDiffers(head)) privateAnswer(reply);
    let wanted: number;
    if (q.revisionid === undefined) {
      if (shown === null) throw new HttpError(404, 'not_released', 'This guide has no approved release yet.');
      wanted = shown;
    } else {
      if (!(await mayReadRevision(db, head, access.edit, q.revisionid))) throw notFound('Revision');
      wanted = q.revisionid;
    }
    const readerRevision = readerRevisionOf(head);
    // The full row, read after the head: a write between them gives a newer record under the older key, never an older one.
    const fullRow = async () => {
      const row = await findGuideRow(db, config, head.guideid, head.langid);
      if (!row) throw notFound('Guide');
      return row;
    };
    let answer;
    if (wanted === head.revisionid) {
      answer = await sendCachedGuide(app, reply, head, request.user, async (rendered) => buildFullRecordFor(db, config, await loadCurrentSource(db, await fullRow()), request.user, rendered), { readAhead: ahead });
    } else if (wanted === readerRevision) {
      // The approved revision readers see: cached under it, so a new approval (a new reader revision) misses.
      answer = await sendCachedGuide(app, reply, head, request.user, async (rendered) => {
        const source = await loadRevisionSource(db, await fullRow(), wanted);
        if (!source) throw notFound('Revision');
        return buildFullRecordFor(db, config, source, request.user, rendered);
      }, { atRevision: wanted });
    } else {
      const source = await loadRevisionSource(db, await fullRow(), wanted);
      if (!source) throw notFound('Revision');
      answer = await buildFullRecord(db, config, source, request.user);
    }
    recordView(db, request.user?.userid, 'guide', head.guideid, head.langid, clock.now());
    return answer;
  });

  app.post('/guides', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Create a guide',
      description: 'Authors and Admins. `type` is one of the site\'s guide types; `category` names a CATEGORY wiki; `parts` and `tools` name ITEM wikis; `prerequisites` are guideids; `documents` are document ids. With `guideid` (and `langid`), creates that guide\'s translation. New guides are private unless `public` is true. Answers 201 with the full guide record.',
      body: guideCreateBody(types, langs),
      response: { 201: FullGuide, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    const langid = b.langid ?? langs[0];
    if (b.guideid !== undefined) {
      const existing = await findGuideRow(db, config, b.guideid, undefined, { includeDeleted: true });
      if (!existing) throw invalidField('guideid', `There is no guide ${b.guideid} to translate.`);
      if (!(await guideAccess(db, user, existing)).edit) throw forbidden('Only those who may edit a guide may translate it.');
      if (await findGuideRow(db, config, b.guideid, langid, { includeDeleted: true })) throw invalidField('langid', `Guide ${b.guideid} already exists in ${langid}.`, 'duplicate');
    }
    const fields = await validateGuideFields(db, user, b);
    fields.set.title ??= defaultTitle(b.category, b.subject ?? '', b.type);
    const tags = (b.tags ?? []).map((t, i) => checkTag(t, `tags[${i}]`));
    let guideid: number;
    try {
      guideid = await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const id = await insertGuide(trx, now, { guideid: b.guideid, langid, userid: user.userid, fields, tags });
        // Under an approval process (its category's, or the default) readers see nothing until a release is approved.
        await refreshReaderViews(trx, app.guideApprovals.processFor, { guideid: id });
        const created = await trx.selectFrom('guides').select('revisionid').where('guideid', '=', id).where('langid', '=', langid).executeTakeFirstOrThrow();
        await auditGuideCreated(trx, user, now, { guideid: id, langid, revisionid: created.revisionid, title: fields.set.title });
        return id;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw invalidField('langid', `Guide ${b.guideid} already exists in ${langid}.`, 'duplicate');
      throw err;
    }
    // A translation's tags are the guide's: its other languages show them (invalidateGuide).
    if (b.guideid !== undefined && tags.length) await invalidateGuide(db, guideid);
    const row = await findGuideRow(db, config, guideid, langid);
    return reply.status(201).send(await buildFullRecord(db, config, await loadCurrentSource(db, row!), request.user));
  });

  app.patch('/guides/:guideid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Edit a guide',
      description: 'Changes only the fields sent. Takes the guide\'s current `revisionid` as a query parameter (422 without it, 409 with the current guide when stale). The owner, collaborators, Authors and Admins. Answers the full guide record.',
      params: GuideParam,
      querystring: RevisionQuery,
      body: guidePatchBody(types),
      response: { 200: FullGuide, ...conflictResponse, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'edit');
    const fields = await validateGuideFields(db, ctx.user!, request.body, ctx.row);
    return editGuide(app, reply, ctx, request.query.revisionid, fields);
  });

  app.delete('/guides/:guideid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a guide (in one language)',
      description: 'Takes the guide\'s `revisionid`. The owner, Authors and Admins. The guide is kept (every revision) and can be restored with POST /guides/{guideid}/{langid}/restore.',
      params: GuideParam,
      querystring: RevisionQuery,
      response: { 204: Empty, ...conflictResponse, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'manage');
    await deleteGuide(app, ctx, request.query.revisionid);
    return reply.status(204).send(null);
  });

  /** The category a restored guide is filed under: the one picked, else its own while it exists. */
  async function restoreCategory(own: string, picked: string | undefined): Promise<string> {
    const exists = async (title: string) => !!(await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', title).executeTakeFirst());
    if (picked !== undefined) {
      const title = picked.trim();
      if (!title || !(await exists(title))) throw invalidField('category', `There is no CATEGORY wiki titled "${title}".`);
      return title;
    }
    if (own && !(await exists(own))) {
      throw invalidField('category', `The guide's category "${own}" was deleted; restore it with {"category": "<title of an existing CATEGORY wiki>"} to file it there.`, 'category_gone');
    }
    return own;
  }

  app.post('/guides/:guideid/:langid/restore', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Restore a deleted guide in one language',
      description: 'The owner, Authors and Admins. Takes no revisionid. Restoring a guide that is not deleted changes nothing. ' +
        'A deleted guide holds neither its category nor its media, which may be deleted meanwhile: when its category is gone, restoring needs a body `{"category": "<title of a CATEGORY wiki>"}` to file it under (422 `category_gone` naming the missing category otherwise); ' +
        '`category` may be sent on any restore of a deleted guide. Images, videos and documents deleted meanwhile are left out of the restored guide. Answers the full guide record.',
      params: Type.Object({ guideid: Id(), langid: StringEnum(langs) }),
      body: Type.Object({ category: Type.Optional(Type.String({ maxLength: 255, description: 'The CATEGORY wiki to file the restored guide under (required when its own category was deleted).' })) }),
      response: { 200: FullGuide, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.params.langid, 'manage', { includeDeleted: true });
    if (ctx.row.deleted) {
      const category = await restoreCategory(ctx.row.category, request.body.category);
      await restoreGuide(app, ctx, category);
    }
    return currentGuide(app, ctx);
  });

  for (const method of ['put', 'delete'] as const) {
    const publish = method === 'put';
    app[method]('/guides/:guideid/public', {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: publish ? 'Publish a guide' : 'Unpublish a guide',
        description: `${publish ? 'Makes the guide public' : 'Makes the guide private'}. No body; the guide's \`revisionid\` as a query parameter (a revisionid in the body does not count: 422). The owner, collaborators, Authors and Admins. Answers the full guide record.`,
        params: GuideParam,
        querystring: RevisionQuery,
        response: { 200: FullGuide, ...conflictResponse, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'edit');
      await setGuidePublic(app, ctx, request.query.revisionid, publish);
      return currentGuide(app, ctx);
    });
  }

  app.get('/guides/:guideid/tags', {
    config: { auth: 'none' },
    schema: { tags: ['Tags'], summary: 'A guide\'s tags, alphabetically', params: GuideParam, querystring: Type.Object({ langid: LangQuery(langs) }), response: { 200: Type.Array(Type.String()), ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'read');
    // Readers see the tags of the revision they see (areas/shared/guide-reader.ts).
    const kept = ctx.access.edit ? undefined : await readerTags(db, ctx.row);
    if (readerViewDiffers(ctx.row)) privateAnswer(reply);
    return kept ?? tagsOf(db, 'guide', ctx.row.guideid);
  });

  const TagBody = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
  for (const method of ['put', 'delete'] as const) {
    const adding = method === 'put';
    app[method]('/guides/:guideid/tag', {
      config: { auth: 'user' },
      schema: {
        tags: ['Tags'],
        summary: adding ? 'Add a tag to a guide' : 'Remove a tag from a guide',
        description: `Body \`{"tag": "..."}\`${adding ? '; creates the tag if needed' : ''}. ${TAG_RULE} Answers the full guide record.`,
        params: GuideParam,
        querystring: RevisionQuery,
        body: TagBody,
        response: { 200: FullGuide, ...conflictResponse, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'edit');
      const tag = checkTag(request.body.tag);
      await tagGuide(app, ctx, request.query.revisionid, tag, adding);
      return currentGuide(app, ctx);
    });
  }
}
