// Wikis in the six namespaces, categories, wiki tags, revisions and releases.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id, OffsetLimit } from '../../http/schemas.js';
import { forbidden, invalidField, missingField, notFound } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { TAG_RULE, tagsOf } from '../tags/tags.queries.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { loadImageObjects } from '../media/image-object.js';
import { recordView } from '../view-history/view-history.recorder.js';
import { renderWikiTexts } from '../content/render.js';
import { answeringConflict, unlessUnchanged } from '../content/revisions.js';
import { categoryGuides } from './category-guides.js';
import { categoryHierarchy, sendHierarchy } from './wikis.hierarchy.js';
import { translatorFor } from './translator.js';
import { fullRecord, releaseRecords } from './wikis.records.js';
import { findWikiHead, languageOf, registerWikiRecords, sendCachedWiki } from './wikis.cache.js';
import {
  canEditWiki, categoryChildren, displayTitle, findWiki, findWikiById, findWikiByShownTitle, findWikiRelease, findWikiRevision, hasTranslation, lightRecords, listWikis,
  namespaceTitles, sourceTexts, textsFor, wikiRevisionRows, type WikiRow, type WikiTexts,
} from './wikis.queries.js';
import { createWiki, deleteWiki, editWiki, releaseWiki, removeWikiRelease, revertWiki, setParent, tagWiki } from './wikis.service.js';
import { LightGuide } from '../guides/guides.schemas.js';
import {
  CategoryParams, GetQuery, Hierarchy, Identification, Langid, ListQuery, NamespaceParam, ParentBody, ReleaseBody,
  RevertBody, RevisionItem, RevisionQuery, TagBody, TagQuery, WikiCreate, WikiFull, WikiLight, WikiParams, WikiPatch, WikiRelease,
} from './wikis.schemas.js';

const TAG = ['Wikis'];

const REVISION_TEXT = 'Pass the current `revisionid` of the version you change as a query parameter (422 `missing_field` without it; 409 with the current wiki as the body when it is not the current one). `langid` chooses the version: a translation, or the source language (the default).';

export async function wikisRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const translator = translatorFor(config, db, clock, (err) => app.log.warn({ err }, 'machine translation failed'));
  registerWikiRecords(app);

  async function existing(namespace: string, title: string): Promise<WikiRow> {
    const row = await findWiki(db, namespace, title);
    if (!row) throw notFound(namespace === 'CATEGORY' ? 'Category' : 'Wiki');
    return row;
  }

  async function requireEditor(request: FastifyRequest, wiki: WikiRow): Promise<AuthUser> {
    const user = requireUser(request);
    if (!(await canEditWiki(db, user, wiki.namespace, wiki.title))) throw forbidden('You may not change this wiki.');
    return user;
  }

  /** The record a caller sees for `langid` (the translation, or the source). */
  async function current(wikiid: number, langid: string | undefined, caller: AuthUser | null) {
    const wiki = await findWikiById(db, wikiid);
    if (!wiki) throw notFound('Wiki');
    return fullRecord(db, config, wiki, await textsFor(db, wiki, langid), caller);
  }

  /** Runs a write (content/revisions.ts): a stale revision becomes 409 with the current version as the body. */
  function withRevision<T>(wiki: WikiRow, langid: string | undefined, caller: AuthUser, write: () => Promise<T>): Promise<T> {
    return answeringConflict(write, () => current(wiki.wikiid, langid, caller));
  }

  app.post('/wikis', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Create a wiki',
      description: '`namespace`, `title` and `contents` (or `contents_json`) are required. The namespace decides who may create (CATEGORY, ITEM, WIKI: Authors; INFO: Admins; TEAM: the team\'s owner and leads, title = teamid; USER: the user, title = userid) and which fields are taken (CATEGORY: parent, stub, identification; ITEM: item_type, suppliers). `langid` is the source language (default: the site\'s first). 422 `duplicate` when the namespace already has the title. Answers 201 with the full wiki.',
      body: WikiCreate,
      response: { 201: WikiFull, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const wiki = await createWiki(db, config, user, clock.now(), request.body);
    return reply.status(201).send(await fullRecord(db, config, wiki, sourceTexts(wiki), user));
  });

  app.get('/wikis/:namespace', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Wikis of a namespace; for CATEGORY with display=hierarchy, the category tree',
      description: 'Without `display`: light wiki records ordered by wikiid (`modifiedSince`, `offset`, `limit`; `langid` returns translated texts where they exist). `display=titles`: the titles, alphabetically (`offset`, `limit`). `display=hierarchy` (CATEGORY only): `{hierarchy, display_titles}` with `requireGuides`, `includeStubs`, `langid` (translated display titles) and `machineTranslateLangid` (machine-translated display titles where no translation exists).',
      params: Type.Object({ namespace: NamespaceParam }),
      querystring: ListQuery,
      response: { 200: Type.Union([Type.Array(WikiLight), Type.Array(Type.String()), Hierarchy]), ...errorResponses(422) },
    },
  }, async (request, reply) => {
    const { namespace } = request.params;
    const q = request.query;
    if (q.display === 'hierarchy') {
      if (namespace !== 'CATEGORY') throw invalidField('display', 'display=hierarchy is for CATEGORY only.');
      const options = { requireGuides: q.requireGuides ?? false, includeStubs: q.includeStubs ?? false, langid: q.langid, machineTranslateLangid: q.machineTranslateLangid };
      return sendHierarchy(app, reply, options, () => categoryHierarchy(db, translator, options));
    }
    if (q.display === 'titles') {
      return namespaceTitles(db, namespace, q);
    }
    const rows = await listWikis(db, namespace, q);
    return lightRecords(db, config, rows, q.langid);
  });

  app.get('/wikis/:namespace/:title', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'One wiki',
      description: '`langid`: the translation in that language where there is one (the record\'s `langid` says which language came back). `revisionid`: an earlier revision of that language (its texts; the other fields are current). A logged-in reader\'s view is recorded in the view history. With `Accept-Encoding: gzip` the record may come gzipped (`Content-Encoding: gzip`) when it is answered from the compressed copy the server keeps; the `ETag` is the same in either coding.',
      params: WikiParams,
      querystring: GetQuery,
      response: { 200: WikiFull, ...errorResponses(404, 422) },
    },
  }, async (request, reply) => {
    const { namespace, title } = request.params;
    if (request.query.revisionid === undefined && config.guideCacheMb > 0) {
      // The current record: kept bytes (wikis.cache.ts), looked up by a head that vouches for them.
      const head = await findWikiHead(db, namespace, title, request.query.langid);
      if (!head) throw notFound(namespace === 'CATEGORY' ? 'Category' : 'Wiki');
      const langid = languageOf(head, request.query.langid);
      recordView(db, request.user?.userid, 'wiki', head.wikiid, langid, clock.now());
      return sendCachedWiki(app, reply, head, langid, request.user, async (caller) => {
        const wiki = await findWikiById(db, head.wikiid);
        if (!wiki) throw notFound(namespace === 'CATEGORY' ? 'Category' : 'Wiki');
        return fullRecord(db, config, wiki, await textsFor(db, wiki, langid), caller);
      });
    }
    const wiki = await existing(namespace, title);
    let texts: WikiTexts;
    if (request.query.revisionid !== undefined) {
      const rev = await findWikiRevision(db, wiki.wikiid, request.query.revisionid);
      if (!rev || (request.query.langid && rev.langid !== request.query.langid)) throw notFound('Revision');
      texts = { langid: rev.langid, display_title: rev.display_title, summary: rev.summary, contents_raw: rev.contents_raw, identification_raw: rev.identification_raw, revisionid: rev.revisionid, modified_date: rev.date };
    } else {
      texts = await textsFor(db, wiki, request.query.langid);
    }
    recordView(db, request.user?.userid, 'wiki', wiki.wikiid, texts.langid, clock.now());
    return fullRecord(db, config, wiki, texts, request.user);
  });

  app.patch('/wikis/:namespace/:title', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Edit a wiki',
      description: `Changes only the fields sent and keeps a new revision. ${REVISION_TEXT} The first edit in a language of the site that the wiki has no translation in creates that translation (send the revisionid that GET in that language showed). The title never changes: set \`display_title\`. Answers the full wiki.`,
      params: WikiParams,
      querystring: RevisionQuery,
      body: WikiPatch,
      response: { 200: WikiFull, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const wiki = await existing(request.params.namespace, request.params.title);
    const user = await requireEditor(request, wiki);
    const langid = request.query.langid ?? wiki.langid;
    await withRevision(wiki, langid, user, () => editWiki(db, config, user, clock.now(), wiki, langid, request.query.revisionid, request.body));
    return current(wiki.wikiid, langid, user);
  });

  app.delete('/wikis/:namespace/:title', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a wiki, or one translation of it',
      description: `${REVISION_TEXT} With the \`langid\` of a translation only that translation goes; otherwise the wiki goes with its translations, tags, comments and releases (its revisions are kept). A category with child categories or guides is refused (422 \`not_empty\`). Answers 204.`,
      params: WikiParams,
      querystring: RevisionQuery,
      response: { 204: Empty, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const wiki = await existing(request.params.namespace, request.params.title);
    const user = await requireEditor(request, wiki);
    const langid = request.query.langid ?? wiki.langid;
    await withRevision(wiki, langid, user, () => deleteWiki(db, user, clock.now(), wiki, langid, request.query.revisionid));
    return reply.status(204).send(null);
  });

  app.post('/wikis/:namespace/:title/revert', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Revert a wiki to an earlier revision',
      description: `Makes the content of \`target_revisionid\` (a revision of the same wiki and language) current again, as a new revision; history is kept. ${REVISION_TEXT} The source language also gets back that revision's image, table of contents, stub flag and item fields; the place in the category tree does not change. Answers the full wiki.`,
      params: WikiParams,
      querystring: RevisionQuery,
      body: RevertBody,
      response: { 200: WikiFull, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const wiki = await existing(request.params.namespace, request.params.title);
    const user = await requireEditor(request, wiki);
    const langid = request.query.langid ?? wiki.langid;
    if (langid !== wiki.langid && !(await hasTranslation(db, wiki.wikiid, langid))) throw notFound('Translation');
    await withRevision(wiki, langid, user, () => revertWiki(db, user, clock.now(), wiki, langid, request.query.revisionid, request.body.target_revisionid));
    return current(wiki.wikiid, langid, user);
  });

  app.get('/wikis/:namespace/:title/revisions', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Revisions of a wiki (extension)',
      description: 'Every kept revision, newest first (`langid`: of that language only). Read one with GET /wikis/{namespace}/{title}?revisionid=; restore one with POST .../revert.',
      params: WikiParams,
      querystring: Type.Object({ langid: Type.Optional(Langid), ...OffsetLimit }),
      response: { 200: Type.Array(RevisionItem), ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const wiki = await existing(request.params.namespace, request.params.title);
    const rows = await wikiRevisionRows(db, wiki.wikiid, request.query);
    const users = await loadUserSummaries(db, config, rows.map((r) => r.userid));
    return rows.map((r) => ({ revisionid: r.revisionid, langid: r.langid, action: r.action, user: r.userid ? users.get(r.userid) ?? null : null, date: r.date, display_title: r.display_title || wiki.title }));
  });

  // ------------------------------------------------------------------------ tags

  /** The wiki a tag path names: by its stored title, else by its display title (422 `ambiguous` when several wikis show it). */
  async function taggedWiki(namespace: string, title: string): Promise<WikiRow> {
    const found = await findWikiByShownTitle(db, namespace, title);
    if (!found) throw notFound(namespace === 'CATEGORY' ? 'Category' : 'Wiki');
    if ('ambiguous' in found) {
      throw invalidField('title', `"${title}" is the display title of several ${namespace} wikis; name one by its stored title: ${found.ambiguous.map((x) => JSON.stringify(x)).join(', ')}.`, 'ambiguous');
    }
    return found;
  }
  const TITLE_RULE = 'The path names the wiki by its display title (as the specification has it) or its stored title; the stored title is matched first, and a display title that several wikis of the namespace show is a 422 (`ambiguous`) listing their stored titles.';

  app.get('/wikis/:namespace/:title/tags', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'Tags of a wiki', description: `Alphabetically. ${TITLE_RULE}`, params: WikiParams, response: { 200: Type.Array(Type.String()), ...errorResponses(404, 422) } },
  }, async (request) => tagsOf(db, 'wiki', (await taggedWiki(request.params.namespace, request.params.title)).wikiid));

  const tagDescription = `Body \`{"tag": "..."}\`. ${TAG_RULE} \`langid\` chooses the version whose \`revisionid\` is sent (a translation, or the source language: the default). Those who may edit the wiki may tag it. ${TITLE_RULE} Answers the full wiki.`;
  for (const method of ['put', 'delete'] as const) {
    const adding = method === 'put';
    app[method]('/wikis/:namespace/:title/tag', {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: adding ? 'Add a tag to a wiki' : 'Remove a tag from a wiki',
        description: adding ? `${tagDescription} The tag is created when new.` : `${tagDescription} The tag may also come as the \`tag\` query parameter.`,
        params: WikiParams,
        querystring: adding ? RevisionQuery : TagQuery,
        body: adding ? TagBody : Type.Object({ tag: Type.Optional(TagBody.properties.tag) }, { additionalProperties: false }),
        response: { 200: WikiFull, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const wiki = await taggedWiki(request.params.namespace, request.params.title);
      const user = await requireEditor(request, wiki);
      const query = request.query as { revisionid: number; langid?: string; tag?: string };
      const raw = (request.body as { tag?: string }).tag ?? query.tag;
      if (raw === undefined) throw missingField('tag');
      const langid = query.langid ?? wiki.langid;
      await withRevision(wiki, langid, user, () => unlessUnchanged(() => tagWiki(db, user, clock.now(), wiki, langid, query.revisionid, raw, adding)));
      return current(wiki.wikiid, langid, user);
    });
  }

  // ------------------------------------------------------------------ categories

  app.get('/wikis/CATEGORY/:title/children', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Child categories of a category',
      description: 'Light wiki records, alphabetically by title; `langid` for translated texts.',
      params: CategoryParams, querystring: Type.Object({ langid: Type.Optional(Langid), ...OffsetLimit }),
      response: { 200: Type.Array(WikiLight), ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const wiki = await existing('CATEGORY', request.params.title);
    const rows = await categoryChildren(db, wiki.wikiid).limit(request.query.limit).offset(request.query.offset).execute();
    return lightRecords(db, config, rows, request.query.langid);
  });

  app.get('/wikis/CATEGORY/:title/identification', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'How to identify the device of a category',
      description: 'The category\'s `identification` text (written with POST or PATCH), raw and rendered, in `langid` where translated.',
      params: CategoryParams, querystring: Type.Object({ langid: Type.Optional(Langid) }),
      response: { 200: Identification, ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const wiki = await existing('CATEGORY', request.params.title);
    const texts = await textsFor(db, wiki, request.query.langid);
    const [[rendered], images] = await Promise.all([renderWikiTexts(db, config, [texts.identification_raw]), loadImageObjects(db, config, [wiki.imageid])]);
    return {
      wikiid: wiki.wikiid, title: wiki.title, display_title: displayTitle(wiki, texts), langid: texts.langid, revisionid: texts.revisionid,
      identification_raw: texts.identification_raw, identification_rendered: rendered, image: wiki.imageid ? images.get(wiki.imageid) ?? null : null,
    };
  });

  app.get('/wikis/CATEGORY/:wikiid/documents', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Guides filed under a category',
      description: 'Light guide records of the category\'s public guides, ordered by guideid, in `langid` (default: the site\'s first language).',
      params: Type.Object({ wikiid: Id() }),
      querystring: Type.Object({ langid: Type.Optional(Langid), ...OffsetLimit }),
      response: { 200: Type.Array(LightGuide), ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const wiki = await findWikiById(db, request.params.wikiid);
    if (!wiki || wiki.namespace !== 'CATEGORY') throw notFound('Category');
    return categoryGuides(db, config, wiki.title, request.query.langid ?? config.languages[0], { offset: request.query.offset, limit: request.query.limit });
  });

  app.put('/wikis/CATEGORY/:title/parent', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Move a category under another',
      description: `Body \`{"parent": "<category title>"}\`, or null for the top. A move under the category itself or one of its descendants is refused (422 \`cycle\`). ${REVISION_TEXT} A new revision of the source language. Answers the full category.`,
      params: CategoryParams, querystring: RevisionQuery, body: ParentBody,
      response: { 200: WikiFull, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const wiki = await existing('CATEGORY', request.params.title);
    const user = await requireEditor(request, wiki);
    await withRevision(wiki, wiki.langid, user, () => setParent(db, user, clock.now(), wiki, request.query.revisionid, request.body.parent));
    return current(wiki.wikiid, wiki.langid, user);
  });

  // -------------------------------------------------------------------- releases

  app.post('/wikis/:wikiid/releases', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Release the current revision of a wiki',
      description: `Pins the current revision of a language (\`langid\` in the body; default the source) as a release. \`revisionid\` (query) must be that current revision (409 with the current wiki otherwise). \`type\` major (default) or minor; \`version\` defaults to the next N.0 or N.M. Those who may edit the wiki may release it. Answers 201 with the release record (\`guideid\` null, \`wikiid\` set).`,
      params: Type.Object({ wikiid: Id() }),
      querystring: Type.Object({ revisionid: Type.Integer({ minimum: 0 }) }),
      body: ReleaseBody,
      response: { 201: WikiRelease, 409: WikiFull, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const wiki = await findWikiById(db, request.params.wikiid);
    if (!wiki) throw notFound('Wiki');
    const user = await requireEditor(request, wiki);
    const body = request.body;
    const langid = body.langid ?? wiki.langid;
    const releaseid = await withRevision(wiki, langid, user, () => releaseWiki(db, user, clock.now(), wiki, langid, request.query.revisionid, body));
    const row = await findWikiRelease(db, releaseid);
    return reply.status(201).send((await releaseRecords(db, config, [row!]))[0]);
  });

  app.delete('/wikis/releases/:releaseid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Remove a wiki release',
      description: 'Marks the release `removed` (the record is kept, so removing twice is harmless). Those who may edit the wiki may remove its releases. Answers 200 with the release record.',
      params: Type.Object({ releaseid: Id() }),
      response: { 200: WikiRelease, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const release = await findWikiRelease(db, request.params.releaseid);
    if (!release) throw notFound('Release');
    const wiki = await findWikiById(db, release.wikiid);
    if (!wiki) throw notFound('Release');
    const editor = await requireEditor(request, wiki);
    await removeWikiRelease(db, editor, clock.now(), release);
    return (await releaseRecords(db, config, [{ ...release, status: 'removed' }]))[0];
  });
}
