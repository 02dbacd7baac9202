// Queries of the comments area, and the batch builder of comment records.
import type { ExpressionBuilder, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { guideRowReadable } from '../shared/guide-access.js';
import type { Config } from '../../config.js';
import { loadUserSummaries, parseTeamids, teamidsOf } from '../users/users.queries.js';
import { loadImageObjects } from '../media/image-object.js';
import { loadImageDetails, loadVideoDetails } from '../media/media-records.js';
import { renderWikiTexts } from '../content/render.js';
import type { CommentMediaTable, CommentTable, PostTable } from './comments.tables.js';
import type { Comment, CommentAuthor, CommentContext, Post } from './comments.schemas.js';

export type CommentRow = Selectable<CommentTable>;
export type CommentMediaRow = Selectable<CommentMediaTable>;
export type PostRow = Selectable<PostTable>;

export function findComment(db: Kysely<Database>, commentid: number) {
  return db.selectFrom('comments').selectAll().where('commentid', '=', commentid).executeTakeFirst();
}

export function findPost(db: Kysely<Database>, postid: number) {
  return db.selectFrom('posts').selectAll().where('postid', '=', postid).executeTakeFirst();
}

interface Page { offset: number; limit: number; order?: string }

/** One page of discussion posts ordered by postid, optionally in one language. */
export function listPosts(db: Kysely<Database>, page: Page & { langid?: string }) {
  let query = db.selectFrom('posts').selectAll();
  if (page.langid) query = query.where('langid', '=', page.langid);
  return query.orderBy('postid', page.order === 'DESC' ? 'desc' : 'asc').limit(page.limit).offset(page.offset).execute();
}

/** One page of the top-level comments on a discussion post, oldest first. */
export function postComments(db: Kysely<Database>, postid: number, page: Page) {
  return db.selectFrom('comments').selectAll().where('context', '=', 'post').where('contextid', '=', postid).where('parentid', 'is', null)
    .orderBy('commentid').limit(page.limit).offset(page.offset).execute();
}

export interface CommentFilter extends Page {
  context?: CommentContext;
  langid?: string;
  createdSince?: number;
  modifiedSince?: number;
}

/**
 * One page of top-level comments ordered by commentid. `readsAll`: the caller reads every
 * guide's comments; otherwise only those on what `user` reads (onReadableGuides).
 */
export function listComments(db: Kysely<Database>, user: AuthUser | null | undefined, readsAll: boolean, q: CommentFilter) {
  let query = db.selectFrom('comments as c').selectAll('c').where('c.parentid', 'is', null);
  if (q.context) query = query.where('c.context', '=', q.context);
  if (!readsAll) query = onReadableGuides(query, user, q.context);
  if (q.langid) query = query.where('c.langid', '=', q.langid);
  // A thread is listed whole, so both filters look at the whole thread: the comment or
  // any of its replies created (createdSince), or created or edited (modifiedSince).
  if (q.createdSince !== undefined) {
    const since = q.createdSince;
    query = query.where((eb) => eb.or([
      eb('c.date', '>=', since),
      eb.exists(eb.selectFrom('comments as r').select('r.commentid').whereRef('r.parentid', '=', 'c.commentid').where('r.date', '>=', since)),
    ]));
  }
  if (q.modifiedSince !== undefined) {
    const since = q.modifiedSince;
    query = query.where((eb) => eb.or([
      eb('c.date', '>=', since),
      eb('c.modified_date', '>=', since),
      eb.exists(eb.selectFrom('comments as r').select('r.commentid').whereRef('r.parentid', '=', 'c.commentid')
        .where((e2) => e2.or([e2('r.date', '>=', since), e2('r.modified_date', '>=', since)]))),
    ]));
  }
  return query.orderBy('c.commentid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
}

type CommentQuery<O> = SelectQueryBuilder<Database & { c: CommentTable }, 'c', O>;

/**
 * Only comments on what `user` reads: a guide comment by the guide's row in the
 * comment's language (any readable row when the guide lacks that language), a step
 * comment by its step's guide row; deleted guides' comments are left out. The read rule
 * is the guides area's, per language (guides.access.ts). Each context's rule is one
 * correlated EXISTS, and a list of one context (`?context=guide`) asks only that one: under
 * an OR of contexts PostgreSQL hashes every readable guide per request (O(site) per page)
 * instead of probing the guides of the twenty comments it returns.
 */
export function onReadableGuides<O>(query: CommentQuery<O>, user: AuthUser | null | undefined, context?: CommentContext): CommentQuery<O> {
  const onGuide = (eb: ExpressionBuilder<Database & { c: CommentTable }, 'c'>) => eb.exists(eb.selectFrom('guides as g').select('g.guideid')
    .whereRef('g.guideid', '=', 'c.contextid').where('g.deleted', '=', 0).where(guideRowReadable(user, 'g'))
    .where((e) => e.or([
      e('g.langid', '=', e.ref('c.langid')),
      e.not(e.exists(e.selectFrom('guides as own').select('own.guideid').whereRef('own.guideid', '=', 'c.contextid').whereRef('own.langid', '=', 'c.langid').where('own.deleted', '=', 0))),
    ])));
  const onStep = (eb: ExpressionBuilder<Database & { c: CommentTable }, 'c'>) => eb.exists(eb.selectFrom('guide_steps as s')
    .innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'))
    .select('s.stepid').whereRef('s.stepid', '=', 'c.contextid').where('g.deleted', '=', 0).where(guideRowReadable(user, 'g')));
  if (context === 'guide') return query.where((eb) => onGuide(eb));
  if (context === 'step') return query.where((eb) => onStep(eb));
  if (context !== undefined) return query;
  return query.where((eb) => eb.or([
    eb('c.context', 'not in', ['guide', 'step']),
    eb.and([eb('c.context', '=', 'guide'), onGuide(eb)]),
    eb.and([eb('c.context', '=', 'step'), onStep(eb)]),
  ]));
}

/** Top-level comments (with replies) on each of `stepids`, oldest first, in batched queries. */
export async function commentsOnSteps(db: Kysely<Database>, config: Config, stepids: number[]): Promise<Map<number, Comment[]>> {
  const out = new Map<number, Comment[]>();
  if (stepids.length === 0) return out;
  const rows = await db.selectFrom('comments').selectAll().where('context', '=', 'step').where('contextid', 'in', stepids)
    .where('parentid', 'is', null).orderBy('commentid').execute();
  const records = await commentRecords(db, config, rows);
  for (const c of records) out.set(c.contextid, [...(out.get(c.contextid) ?? []), c]);
  return out;
}

/** Deletes every comment (with replies and media) on a document that is going away. */
export async function deleteCommentsOn(db: Kysely<Database>, context: CommentContext, contextid: number) {
  const ids = (await db.selectFrom('comments').select('commentid').where('context', '=', context).where('contextid', '=', contextid).execute()).map((r) => r.commentid);
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db.deleteFrom('comment_media').where('commentid', 'in', chunk).execute();
    await db.deleteFrom('comments').where('parentid', 'in', chunk).execute();
    await db.deleteFrom('comments').where('commentid', 'in', chunk).execute();
  }
}

/** Comment authors by userid, in one query (plus the summaries' batched team and image lookups). */
export async function loadCommentAuthors(db: Kysely<Database>, config: Config, userids: Array<number | null>): Promise<Map<number, CommentAuthor>> {
  const summaries = await loadUserSummaries(db, config, userids);
  const out = new Map<number, CommentAuthor>();
  for (const [id, s] of summaries) out.set(id, { userid: s.userid, username: s.username, join_date: s.join_date, image: s.image, teams: s.teams, reputation: s.reputation });
  return out;
}

/**
 * The author's columns, as subqueries of the statement that writes a comment (its
 * RETURNING list, on both databases): the new comment's record then needs no second round
 * trip for its author, a sixth of what a comment cost the server on PostgreSQL.
 */
export function authorColumns(db: Kysely<Database>) {
  return (eb: ExpressionBuilder<Database, 'comments'>) => {
    const author = () => eb.selectFrom('users').whereRef('users.userid', '=', 'comments.userid');
    return [
      author().select('users.username').as('author_username'),
      author().select('users.join_date').as('author_join_date'),
      author().select('users.reputation').as('author_reputation'),
      author().select('users.imageid').as('author_imageid'),
      teamidsOf(db, 'comments.userid').as('author_teamids'),
    ];
  };
}

export interface AuthorColumns {
  author_username: string | null;
  author_join_date: number | null;
  author_reputation: number | null;
  author_imageid: number | null;
  author_teamids: string | null;
}

/** The author of `row` from its `authorColumns`, as loadCommentAuthors reads it. */
async function authorFromColumns(db: Kysely<Database>, config: Config, row: CommentRow, c: AuthorColumns): Promise<Map<number, CommentAuthor>> {
  if (row.userid === null || c.author_username === null) return new Map();
  const images = await loadImageObjects(db, config, [c.author_imageid]);
  return new Map([[row.userid, {
    userid: row.userid,
    username: c.author_username,
    join_date: c.author_join_date,
    image: c.author_imageid ? images.get(c.author_imageid) ?? null : null,
    teams: parseTeamids(c.author_teamids),
    reputation: c.author_reputation ?? 0,
  }]]);
}

/**
 * Comment records for rows already read, in batches: replies of the top-level ones
 * (in commentid order), authors, rendered texts and media, whatever the page size.
 * A reply among `rows` comes back as a reply (no media, no replies). `created`: `rows` is
 * the one row just written, with these media rows (in order) and its author's columns,
 * and has no replies yet (nothing is read back).
 */
export async function commentRecords(db: Kysely<Database>, config: Config, rows: CommentRow[], created?: { media: CommentMediaRow[]; author: AuthorColumns }): Promise<Comment[]> {
  const topIds = rows.filter((r) => r.parentid === null).map((r) => r.commentid);
  const replies: CommentRow[] = [];
  for (let i = 0; !created && i < topIds.length; i += 500) {
    replies.push(...await db.selectFrom('comments').selectAll().where('parentid', 'in', topIds.slice(i, i + 500)).orderBy('commentid').execute());
  }
  const all = [...rows, ...replies];
  const mediaRows = created
    ? created.media.filter((m) => topIds.includes(m.commentid))
    : topIds.length
      ? await db.selectFrom('comment_media').selectAll().where('commentid', 'in', topIds).orderBy('commentid').orderBy('orderby').execute()
      : [];
  const [authors, rendered, images, videos] = await Promise.all([
    created ? authorFromColumns(db, config, rows[0], created.author) : loadCommentAuthors(db, config, all.map((r) => r.userid)),
    renderWikiTexts(db, config, all.map((r) => r.text_raw)),
    loadImageDetails(db, config, mediaRows.filter((m) => m.media_type === 'image').map((m) => m.mediaid)),
    loadVideoDetails(db, config, mediaRows.filter((m) => m.media_type === 'video').map((m) => m.mediaid)),
  ]);
  const renderedById = new Map(all.map((r, i) => [r.commentid, rendered[i]]));
  const base = (r: CommentRow) => ({
    commentid: r.commentid,
    locale: r.langid,
    context: r.context,
    contextid: r.contextid,
    parentid: r.parentid,
    title: r.title,
    text_raw: r.text_raw,
    text_rendered: renderedById.get(r.commentid) ?? '',
    date: r.date,
    modified_date: r.modified_date,
    status: r.status,
    status_reason: r.status_reason,
    author: r.userid ? authors.get(r.userid) ?? null : null,
  });
  const repliesOf = new Map<number, CommentRow[]>();
  for (const r of replies) {
    const list = repliesOf.get(r.parentid!) ?? [];
    list.push(r);
    repliesOf.set(r.parentid!, list);
  }
  const mediaOf = new Map<number, Comment['media']>();
  for (const m of mediaRows) {
    const detail = m.media_type === 'image' ? images.get(m.mediaid) : videos.get(m.mediaid);
    if (!detail) continue;
    const list = mediaOf.get(m.commentid) ?? [];
    list.push(detail as NonNullable<Comment['media']>[number]);
    mediaOf.set(m.commentid, list);
  }
  return rows.map((r) => r.parentid !== null
    ? base(r)
    : { ...base(r), media: mediaOf.get(r.commentid) ?? [], replies: (repliesOf.get(r.commentid) ?? []).map(base) });
}

/** Top-level comments (with replies) on many documents of one context, for records that embed them (step comments). */
export async function commentsOn(db: Kysely<Database>, config: Config, context: CommentContext, contextids: number[]): Promise<Map<number, Comment[]>> {
  const out = new Map<number, Comment[]>();
  const ids = [...new Set(contextids)];
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('comments').selectAll().where('context', '=', context).where('contextid', 'in', ids).where('parentid', 'is', null).orderBy('commentid').execute();
  const records = await commentRecords(db, config, rows);
  for (const c of records) {
    const list = out.get(c.contextid) ?? [];
    list.push(c);
    out.set(c.contextid, list);
  }
  return out;
}

export const postUrl = (config: Config, postid: number) => `${config.publicUrl}/api/2.0/posts/${postid}`;

export async function postRecords(db: Kysely<Database>, config: Config, rows: PostRow[]): Promise<Post[]> {
  const ids = rows.map((r) => r.postid);
  const [authors, rendered, counts] = await Promise.all([
    loadCommentAuthors(db, config, rows.map((r) => r.userid)),
    renderWikiTexts(db, config, rows.map((r) => r.text_raw)),
    ids.length
      ? db.selectFrom('comments').select((eb) => ['contextid', eb.fn.countAll<number>().as('n')]).where('context', '=', 'post').where('contextid', 'in', ids).groupBy('contextid').execute()
      : Promise.resolve([]),
  ]);
  const countOf = new Map(counts.map((c) => [c.contextid, Number(c.n)]));
  return rows.map((r, i) => ({
    postid: r.postid,
    title: r.title,
    text_raw: r.text_raw,
    text_rendered: rendered[i],
    locale: r.langid,
    author: r.userid ? authors.get(r.userid) ?? null : null,
    date: r.date,
    modified_date: r.modified_date,
    comment_count: countOf.get(r.postid) ?? 0,
    url: postUrl(config, r.postid),
  }));
}
