// Row loaders of the view history: a page of views (of one user, or of one document),
// newest first, with the viewer's name.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

export interface ViewPage {
  start_date?: number;
  end_date?: number;
  offset: number;
  limit: number;
}

/** Whose or what views: one user's, or one document's. */
export type ViewsOf = { userid: number } | { docType: 'guide' | 'wiki'; docid: number };

export async function userExists(db: Db, userid: number): Promise<boolean> {
  return !!(await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst());
}

/** A page of views, newest first (by date, then by the order recorded); served by the indexes view_history_user and view_history_doc. */
export async function viewsPage(db: Db, of: ViewsOf, query: ViewPage) {
  let q = db.selectFrom('view_history').innerJoin('users', 'users.userid', 'view_history.userid')
    .select(['view_history.userid', 'users.username', 'view_history.doc_type', 'view_history.docid', 'view_history.date']);
  q = 'userid' in of
    ? q.where('view_history.userid', '=', of.userid)
    : q.where('view_history.doc_type', '=', of.docType).where('view_history.docid', '=', of.docid);
  if (query.start_date !== undefined) q = q.where('view_history.date', '>=', query.start_date);
  if (query.end_date !== undefined) q = q.where('view_history.date', '<=', query.end_date);
  return q.orderBy('view_history.date', 'desc').orderBy('view_history.viewid', 'desc').limit(query.limit).offset(query.offset).execute();
}
