// Comments on guides, steps, wikis, INFO pages and discussion posts, with one level of replies.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { invalidField, notFound } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { Comment, CommentCreate, CommentListQuery, CommentPatch, ContextParam } from './comments.schemas.js';
import { commentRecords, findComment, listComments, type CommentRow } from './comments.queries.js';
import { canEditWriting, NOT_AUTHOR } from './comments.access.js';
import { createComment, deleteComment, editComment } from './comments.service.js';
import { CONTEXT_NAMES, readsPrivateGuides, requireContextRead, resolveContext } from './comments.contexts.js';
import { checkMediaRefs, embedRefs } from '../media/media.access.js';
import { sendCachedAnswer } from '../shared/byte-cache.js';

const TAG = ['Comments'];
const CommentParam = Type.Object({ commentid: Id() });

/** Comment text: trimmed; 12 to 1024 characters on sites with public registration, else 1 to 10000. */
export function checkCommentText(config: Config, text: string, field = 'text'): string {
  const t = text.trim();
  const [min, max] = config.publicRegistration ? [12, 1024] : [1, 10000];
  const length = [...t].length;
  if (length < min || length > max) throw invalidField(field, `${field} must be ${min} to ${max} characters long.`, length === 0 ? 'missing_field' : 'out_of_range');
  return t;
}

export async function commentsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existing(commentid: number): Promise<CommentRow> {
    const row = await findComment(db, commentid);
    if (!row) throw notFound('Comment');
    return row;
  }
  const record = async (row: CommentRow) => (await commentRecords(db, config, [row]))[0];

  app.get('/comments', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'List comments, ordered by commentid',
      description: 'Top-level comments, each with its replies (replies are not listed on their own). `createdSince`: threads in which the comment or a reply was created at or after that time (a new reply brings its thread back); `modifiedSince`: threads in which the comment or a reply was created or modified since. `context`, `langid` filter; `order` ASC (default) or DESC by commentid; `offset`, `limit`. Comments on guides (and their steps) are listed to those who read the guide in the comment\'s language (private languages to their owner, collaborators, contributors, Authors and Admins); on deleted guides, only to Authors and Admins.',
      querystring: CommentListQuery,
      response: { 200: Type.Array(Comment), ...errorResponses(422) },
    },
  }, async (request, reply) => {
    const q = request.query;
    const filter = { offset: q.offset, limit: q.limit, order: q.order, context: q.context, langid: q.langid, createdSince: q.createdSince, modifiedSince: q.modifiedSince };
    // Pages are kept as bytes while no comment, nothing a comment shows (the 'comments'
    // stamp) and nothing that decides which guides and steps a reader reads (their rows,
    // `public`, `deleted`: 'guide_reach'; not an edit of a guide's text) changed. Which
    // guide comments are listed depends on the reader: kept per viewer class (anonymous;
    // those who read every guide), built anew for other users.
    return sendCachedAnswer(app, reply, request.user ?? null, ['comments', 'guide_reach'], JSON.stringify(filter), async () => {
      const rows = await listComments(db, request.user, readsPrivateGuides(request.user), filter);
      return { value: await commentRecords(db, config, rows), dependsOnViewer: q.context === undefined || q.context === 'guide' || q.context === 'step' };
    });
  });

  app.get('/comments/:commentid', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'One comment',
      description: 'A top-level comment comes with its media and replies; a reply comes alone (no media, no replies). A comment on a private guide or its steps is read by those who may read the guide (403 otherwise); on a deleted guide, 404.',
      params: CommentParam, response: { 200: Comment, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await existing(request.params.commentid);
    if (row.context === 'guide' || row.context === 'step') {
      // A guide comment is read as the guide in the comment's language is (the read rule is per language).
      const target = await resolveContext(db, row.context, row.contextid, row.langid);
      // A comment whose guide is deleted reads as gone, as the guide does.
      if (!target) throw notFound('Comment');
      await requireContextRead(db, request.user, target);
    }
    return record(row);
  });

  app.post('/comments/:context/:contextid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Comment on a guide, step, wiki, INFO page or discussion post',
      description: 'Body: `text` (required; 12 to 1024 characters on sites with public registration, 1 to 10000 otherwise), `parentid` (reply to a top-level comment on the same thing; one level only), `langid` or `langId` (one of the site\'s languages; default: the parent\'s, else the document\'s), `media` (images and videos, top-level comments only). The comment\'s `title` is the title of what it is on. Answers 201 with the comment.',
      params: Type.Object({ context: ContextParam, contextid: Id() }),
      body: CommentCreate,
      response: { 201: Comment, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const { context, contextid } = request.params;
    const b = request.body;
    const text = checkCommentText(config, b.text);
    const target = await resolveContext(db, context, contextid, config.languages[0]);
    if (!target) throw notFound(CONTEXT_NAMES[context]);
    await requireContextRead(db, user, target);
    let parent: CommentRow | undefined;
    if (b.parentid != null) {
      parent = await findComment(db, b.parentid);
      if (!parent || parent.context !== context || parent.contextid !== contextid) throw invalidField('parentid', 'The parent comment is not on this document.');
      if (parent.parentid !== null) throw invalidField('parentid', 'Replies are one level deep: reply to the top-level comment.');
      if (b.media?.length) throw invalidField('media', 'Replies have no media.');
    }
    const explicit = b.langid ?? b.langId;
    if (explicit !== undefined && !config.languages.includes(explicit)) throw invalidField(b.langid !== undefined ? 'langid' : 'langId', `The language must be one of the site's: ${config.languages.join(', ')}.`);
    const langid = explicit ?? parent?.langid ?? target.langid;
    // A guide comment is read as the guide in the comment's language: it is written so too.
    if (context === 'guide' && langid !== target.langid) {
      const inLanguage = await resolveContext(db, context, contextid, langid);
      if (inLanguage) await requireContextRead(db, user, inLanguage);
    }
    await checkMediaRefs(db, user, [
      ...embedRefs([{ field: 'text', text }]),
      ...(b.media ?? []).map((m, i) => ({ kind: m.type, id: m.id, field: `media[${i}].id`, index: i })),
    ]);
    const now = clock.now();
    const created = await createComment(db, {
      context, contextid, parentid: parent?.commentid ?? null, userid: user.userid, langid, title: parent?.title ?? target.title, text_raw: text, date: now,
    }, b.media ?? []);
    // The comment as written (no replies yet): nothing is read back.
    return reply.status(201).send((await commentRecords(db, config, [created.row], created))[0]);
  });

  app.patch('/comments/:commentid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Edit a comment (path not in the specification)',
      description: 'Body `{"text": "..."}` (same length rules as at creation). The author, a Moderator or an Admin. Sets `modified_date`. Answers the comment.',
      params: CommentParam, body: CommentPatch,
      response: { 200: Comment, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await existing(request.params.commentid);
    forbiddenUnless(canEditWriting(requireUser(request), row.userid), NOT_AUTHOR);
    const text = checkCommentText(config, request.body.text);
    await checkMediaRefs(db, requireUser(request), embedRefs([{ field: 'text', text }]));
    await editComment(db, row.commentid, text, clock.now());
    return record(await existing(row.commentid));
  });

  app.delete('/comments/:commentid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Delete a comment (path not in the specification)',
      description: 'The author, a Moderator or an Admin. A top-level comment goes with its replies. Answers 204.',
      params: CommentParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const row = await existing(request.params.commentid);
    forbiddenUnless(canEditWriting(requireUser(request), row.userid), NOT_AUTHOR);
    await deleteComment(db, row.commentid);
    return reply.status(204).send(null);
  });
}
