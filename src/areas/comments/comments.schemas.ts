import { Type, type Static } from '@sinclair/typebox';
import { ImageObject, Nullable, OffsetLimit, Order, StringEnum } from '../../http/schemas.js';
import { ImageDetail, VideoDetail } from '../media/media.schemas.js';

export const CONTEXTS = ['guide', 'step', 'wiki', 'info', 'post'] as const;
export type CommentContext = (typeof CONTEXTS)[number];
export const ContextParam = StringEnum(CONTEXTS, { description: 'guide, step, wiki (a wiki of any namespace but INFO), info (an INFO wiki) or post (a discussion post).' });

export const LangidString = Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$', maxLength: 16 });

/** The specification's comment author: exactly these fields. */
export const CommentAuthor = Type.Object({
  userid: Type.Integer(),
  username: Type.String(),
  join_date: Nullable(Type.Integer()),
  image: Nullable(ImageObject),
  teams: Type.Array(Type.Integer()),
  reputation: Type.Integer(),
});
export type CommentAuthor = Static<typeof CommentAuthor>;

const commentFields = {
  commentid: Type.Integer(),
  locale: Type.String({ description: 'Language id.' }),
  context: Type.String({ description: 'guide, step, wiki, info or post.' }),
  contextid: Type.Integer({ description: 'The guideid, stepid, wikiid or postid.' }),
  parentid: Nullable(Type.Integer({ description: 'Set on replies: the commentid replied to.' })),
  title: Type.String({ description: 'The title of what the comment is on, when it was written.' }),
  text_raw: Type.String(),
  text_rendered: Type.String(),
  date: Type.Integer({ description: 'Created.' }),
  modified_date: Type.Integer({ description: '0 when never modified.' }),
  status: Type.String({ description: 'open.' }),
  status_reason: Type.String({ description: 'manual.' }),
  author: Nullable(CommentAuthor),
};

export const CommentMedia = Type.Union([ImageDetail, VideoDetail], { description: 'An image detail record or a video detail record.' });

/** A reply: the comment fields with an author and no media (and no replies: one level only). */
export const Reply = Type.Object(commentFields);

/** The specification's comment: top-level comments carry `media` and `replies`. */
export const Comment = Type.Object({
  ...commentFields,
  media: Type.Optional(Type.Array(CommentMedia)),
  replies: Type.Optional(Type.Array(Reply)),
}, { description: 'Comment. Top-level comments have `media` and `replies`; a reply (parentid set) has neither.' });
export type Comment = Static<typeof Comment>;

export const MediaRef = Type.Object({
  type: StringEnum(['image', 'video'] as const),
  id: Type.Integer({ minimum: 1, description: 'imageid or videoid.' }),
}, { additionalProperties: false });

export const CommentCreate = Type.Object({
  text: Type.String({ description: 'Wiki syntax. 12 to 1024 characters on sites with public registration; 1 to 10000 otherwise.' }),
  parentid: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'Reply to this top-level comment (same context); replies are one level deep.' }))),
  langid: Type.Optional(LangidString),
  langId: Type.Optional(LangidString),
  media: Type.Optional(Type.Array(MediaRef, { maxItems: 10, description: 'Images and videos to attach (top-level comments only).' })),
}, { additionalProperties: false });
export type CommentCreate = Static<typeof CommentCreate>;

export const CommentPatch = Type.Object({
  text: Type.String({ description: 'The new text; same length rules as at creation.' }),
}, { additionalProperties: false });

export const CommentListQuery = Type.Object({
  modifiedSince: Type.Optional(Type.Integer({ minimum: 0, description: 'Threads with a comment or reply created or modified at or after this time.' })),
  createdSince: Type.Optional(Type.Integer({ minimum: 0, description: 'Threads whose comment or one of its replies was created at or after this time.' })),
  context: Type.Optional(ContextParam),
  langid: Type.Optional(LangidString),
  order: Type.Optional(Order),
  ...OffsetLimit,
});

export const Post = Type.Object({
  postid: Type.Integer(),
  title: Type.String(),
  text_raw: Type.String(),
  text_rendered: Type.String(),
  locale: Type.String(),
  author: Nullable(CommentAuthor),
  date: Type.Integer(),
  modified_date: Type.Integer({ description: '0 when never modified.' }),
  comment_count: Type.Integer({ description: 'Top-level comments and replies on the post.' }),
  url: Type.String(),
}, { description: 'A discussion post (extension): a topic that users answer with comments in the `post` context.' });
export type Post = Static<typeof Post>;

export const PostCreate = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  text: Type.String({ maxLength: 10000, description: 'Wiki syntax.' }),
  langid: Type.Optional(LangidString),
}, { additionalProperties: false });

export const PostPatch = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  text: Type.Optional(Type.String({ maxLength: 10000 })),
}, { additionalProperties: false });

export const PostListQuery = Type.Object({ langid: Type.Optional(LangidString), order: Type.Optional(Order), ...OffsetLimit });
