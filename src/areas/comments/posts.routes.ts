// Discussion posts (extension): a topic that users answer with comments in the `post`
// context (POST /comments/post/{postid}; read them with GET /comments?context=post or
// GET /posts/{postid}/comments).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id, OffsetLimit } from '../../http/schemas.js';
import { invalidField, notFound } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { Comment, Post, PostCreate, PostListQuery, PostPatch } from './comments.schemas.js';
import { commentRecords, findPost, listPosts, postComments, postRecords, type PostRow } from './comments.queries.js';
import { canEditWriting, NOT_AUTHOR } from './comments.access.js';
import { createPost, deletePost, editPost } from './comments.service.js';

const TAG = ['Discussion posts (extension)'];
const PostParam = Type.Object({ postid: Id() });

export async function postsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existing(postid: number): Promise<PostRow> {
    const row = await findPost(db, postid);
    if (!row) throw notFound('Post');
    return row;
  }
  const record = async (row: PostRow) => (await postRecords(db, config, [row]))[0];
  const checkText = (text: string) => {
    const t = text.trim();
    if (!t) throw invalidField('text', 'text must not be blank.', 'missing_field');
    return t;
  };

  app.get('/posts', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Discussion posts, ordered by postid (extension)',
      description: '`langid` filters; `order` ASC (default) or DESC; `offset`, `limit`.',
      querystring: PostListQuery, response: { 200: Type.Array(Post), ...errorResponses(422) },
    },
  }, async (request) => {
    const q = request.query;
    return postRecords(db, config, await listPosts(db, { offset: q.offset, limit: q.limit, order: q.order, langid: q.langid }));
  });

  app.get('/posts/:postid', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'One discussion post (extension)', params: PostParam, response: { 200: Post, ...errorResponses(404, 422) } },
  }, async (request) => record(await existing(request.params.postid)));

  app.get('/posts/:postid/comments', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'The comments on a discussion post (extension)',
      description: 'Top-level comments with their replies, oldest first.',
      params: PostParam, querystring: Type.Object({ ...OffsetLimit }), response: { 200: Type.Array(Comment), ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const post = await existing(request.params.postid);
    return commentRecords(db, config, await postComments(db, post.postid, request.query));
  });

  app.post('/posts', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Start a discussion (extension)',
      description: 'Body: `title`, `text` (wiki syntax) and `langid` (one of the site\'s languages; default the first). Any logged-in user. Answers 201 with the post.',
      body: PostCreate, response: { 201: Post, ...errorResponses(401, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    const title = b.title.trim();
    if (!title) throw invalidField('title', 'title must not be blank.', 'missing_field');
    const text = checkText(b.text);
    const langid = b.langid ?? config.languages[0];
    if (!config.languages.includes(langid)) throw invalidField('langid', `langid must be one of the site's languages: ${config.languages.join(', ')}.`);
    const row = await createPost(db, { userid: user.userid, langid, title, text_raw: text, date: clock.now() });
    return reply.status(201).send(await record(row));
  });

  app.patch('/posts/:postid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Edit a discussion post (extension)',
      description: '`title` and/or `text`. The author, a Moderator or an Admin. Answers the post.',
      params: PostParam, body: PostPatch, response: { 200: Post, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const post = await existing(request.params.postid);
    forbiddenUnless(canEditWriting(requireUser(request), post.userid), NOT_AUTHOR);
    const set: { title?: string; text_raw?: string; modified_date: number } = { modified_date: clock.now() };
    if (request.body.title !== undefined) {
      set.title = request.body.title.trim();
      if (!set.title) throw invalidField('title', 'title must not be blank.', 'missing_field');
    }
    if (request.body.text !== undefined) set.text_raw = checkText(request.body.text);
    await editPost(db, post.postid, set);
    return record(await existing(post.postid));
  });

  app.delete('/posts/:postid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG, summary: 'Delete a discussion post (extension)',
      description: 'The author, a Moderator or an Admin; the comments on it go too. Answers 204.',
      params: PostParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const post = await existing(request.params.postid);
    forbiddenUnless(canEditWriting(requireUser(request), post.userid), NOT_AUTHOR);
    await deletePost(db, post.postid);
    return reply.status(204).send(null);
  });
}
