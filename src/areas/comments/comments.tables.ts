import type { Generated } from 'kysely';

export interface CommentTable {
  commentid: Generated<number>;
  /** guide | step | wiki | info | post */
  context: string;
  contextid: number;
  parentid: number | null;
  userid: number | null;
  langid: string;
  title: Generated<string>;
  text_raw: string;
  date: number;
  /** 0 when never modified. */
  modified_date: Generated<number>;
  status: Generated<string>;
  status_reason: Generated<string>;
}

export interface CommentMediaTable {
  commentid: number;
  orderby: number;
  /** image | video */
  media_type: string;
  mediaid: number;
}

/** A discussion post: the `post` comment context. */
export interface PostTable {
  postid: Generated<number>;
  userid: number | null;
  langid: string;
  title: string;
  text_raw: string;
  date: number;
  modified_date: Generated<number>;
}

export interface CommentsTables {
  comments: CommentTable;
  comment_media: CommentMediaTable;
  posts: PostTable;
}
