// The comments area's writes (comments and discussion posts): named functions taking the
// database first, each one transaction. Callers check the policy (comments.access.ts) and
// the input first.
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';
import { prepared } from '../../db/prepared.js';
import { groupCommitted } from '../../db/group-commit.js';
import { authorColumns, deleteCommentsOn, type AuthorColumns, type CommentMediaRow, type CommentRow } from './comments.queries.js';
import type { PostTable } from './comments.tables.js';

type Db = Kysely<Database>;

/** What a new comment is written with; the other columns take their defaults. */
export type NewComment = {
  context: string;
  contextid: number;
  parentid: number | null;
  userid: number;
  langid: string;
  title: string;
  text_raw: string;
  date: number;
};

/**
 * The insert of a comment, returning its row and its author's columns (read by the insert
 * itself: no round trip more). Prepared: the statement is built once, not at each comment
 * (building it was a twentieth of the server's CPU per comment).
 */
const insertComment = prepared<NewComment, CommentRow & AuthorColumns>('comment_insert', (db, arg) => db.insertInto('comments').values({
  context: arg('context'), contextid: arg('contextid'), parentid: arg('parentid'), userid: arg('userid'),
  langid: arg('langid'), title: arg('title'), text_raw: arg('text_raw'), date: arg('date'),
}).returningAll().returning(authorColumns(db)));

/** The insert, its author's columns apart. */
async function insertOne(db: Db, values: NewComment): Promise<{ row: CommentRow; author: AuthorColumns }> {
  const { author_username, author_join_date, author_reputation, author_imageid, author_teamids, ...row } = (await insertComment(db, values))[0];
  return { row, author: { author_username, author_join_date, author_reputation, author_imageid, author_teamids } };
}
const insertGrouped = groupCommitted(insertOne);

/**
 * A new comment with its media (top-level comments only); answers its row, its media rows
 * as written, and its author's columns.
 */
export async function createComment(db: Db, values: NewComment, media: Array<{ type: 'image' | 'video'; id: number }>): Promise<{ row: CommentRow; media: CommentMediaRow[]; author: AuthorColumns }> {
  // Without media it is one statement (its triggers included), committed alone on
  // PostgreSQL (no BEGIN and COMMIT round trips around it) and with the comments of other
  // requests on SQLite (db/group-commit.ts).
  if (media.length === 0) return { ...await insertGrouped(db, values), media: [] };
  return db.transaction().execute(async (trx) => {
    const created = await insertOne(trx, values);
    const mediaRows = media.map((m, i) => ({ commentid: created.row.commentid, orderby: i, media_type: m.type, mediaid: m.id }));
    if (mediaRows.length) await trx.insertInto('comment_media').values(mediaRows).execute();
    return { ...created, media: mediaRows };
  });
}

export function editComment(db: Db, commentid: number, text: string, now: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('comments').set({ text_raw: text, modified_date: now }).where('commentid', '=', commentid).execute();
  });
}

/** Deletes a comment with its media and replies; 404 when a concurrent request deleted it first. */
export function deleteComment(db: Db, commentid: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('comment_media').where('commentid', '=', commentid).execute();
    await trx.deleteFrom('comments').where('parentid', '=', commentid).execute();
    // A concurrent DELETE that lost the race removes nothing and answers 404.
    const gone = await trx.deleteFrom('comments').where('commentid', '=', commentid).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw notFound('Comment');
  });
}

export function createPost(db: Db, values: Insertable<PostTable>) {
  return db.transaction().execute((trx) => trx.insertInto('posts').values(values).returningAll().executeTakeFirstOrThrow());
}

export function editPost(db: Db, postid: number, set: { title?: string; text_raw?: string; modified_date: number }): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('posts').set(set).where('postid', '=', postid).execute();
  });
}

/** Deletes a post and the comments on it; 404 when a concurrent request deleted it first. */
export function deletePost(db: Db, postid: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    // The row delete decides: a concurrent DELETE that lost the race finds nothing and
    // answers 404 (its transaction rolls back) instead of a second 204.
    const gone = await trx.deleteFrom('posts').where('postid', '=', postid).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw notFound('Post');
    await deleteCommentsOn(trx, 'post', postid);
  });
}
