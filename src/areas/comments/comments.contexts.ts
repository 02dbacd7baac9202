// What a comment can be on, and how to find it: each context names its table. Guides
// and steps can be private: their comments are read and written by those who may read
// the guide (`guide` on the target, checked by the routes with the guides area's rules).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { forbidden } from '../../http/errors.js';
import { readsEveryGuide, canReadGuide } from '../shared/guide-access.js';
import type { GuideRow } from '../guides/guides.queries.js';
import type { CommentContext } from './comments.schemas.js';
import { prepared } from '../../db/prepared.js';

export interface ContextTarget {
  /** Becomes the comment's title. */
  title: string;
  /** The document's language: the comment's default. */
  langid: string;
  /** For guide and step comments: the guide (in the language found), whose read access applies. */
  guide?: ContextGuide;
}

/** What a comment needs of its guide: who may read it, and its title. */
const CONTEXT_GUIDE_COLUMNS = ['guideid', 'langid', 'public', 'userid', 'title'] as const;
type ContextGuide = Pick<GuideRow, (typeof CONTEXT_GUIDE_COLUMNS)[number]>;

type Resolver = (db: Kysely<Database>, id: number, preferLang: string) => Promise<ContextTarget | null>;

const wikiResolver = (info: boolean): Resolver => async (db, id) => {
  const w = await db.selectFrom('wikis').select(['namespace', 'title', 'display_title', 'langid']).where('wikiid', '=', id).executeTakeFirst();
  if (!w || w.namespace === 'COURSE' || (w.namespace === 'INFO') !== info) return null;
  return { title: w.display_title || w.title, langid: w.langid };
};

/** The guide in `langid` when given, else in the preferred language, else any; not deleted. */
async function guideIn(db: Kysely<Database>, guideid: number, langid: string | null, preferLang: string): Promise<ContextGuide | undefined> {
  // The common case is one prepared primary-key lookup (every comment on a guide asks it),
  // of these columns only: the whole row carries the introduction and conclusion.
  const [row] = await guideRowIn(db, { guideid, langid: langid ?? preferLang });
  if (row || langid) return row;
  return db.selectFrom('guides').select(CONTEXT_GUIDE_COLUMNS).where('guideid', '=', guideid).where('deleted', '=', 0).orderBy('langid').limit(1).executeTakeFirst();
}
const guideRowIn = prepared<{ guideid: number; langid: string }, ContextGuide>('comment_guide_head', (db, arg) =>
  db.selectFrom('guides').select(CONTEXT_GUIDE_COLUMNS).where('guideid', '=', arg('guideid')).where('langid', '=', arg('langid')).where('deleted', '=', 0));

const resolvers: Record<CommentContext, Resolver> = {
  wiki: wikiResolver(false),
  info: wikiResolver(true),
  post: async (db, id) => {
    const p = await db.selectFrom('posts').select(['title', 'langid']).where('postid', '=', id).executeTakeFirst();
    return p ? { title: p.title, langid: p.langid } : null;
  },
  guide: async (db, id, preferLang) => {
    const guide = await guideIn(db, id, null, preferLang);
    return guide ? { title: guide.title, langid: guide.langid, guide } : null;
  },
  // A step comment is titled with its guide's title (a step title alone says little in a list).
  step: async (db, id, preferLang) => {
    const step = await db.selectFrom('guide_steps').select(['guideid', 'langid']).where('stepid', '=', id).executeTakeFirst();
    const guide = step ? await guideIn(db, step.guideid, step.langid, preferLang) : undefined;
    return guide ? { title: guide.title, langid: guide.langid, guide } : null;
  },
};

/** The document a comment is on, or null when there is none. */
export function resolveContext(db: Kysely<Database>, context: CommentContext, id: number, preferLang: string): Promise<ContextTarget | null> {
  return resolvers[context](db, id, preferLang);
}

/** 403 unless the user may read what the comment is on (only guides and steps can be private). */
export async function requireContextRead(db: Kysely<Database>, user: AuthUser | null, target: ContextTarget): Promise<void> {
  if (target.guide && !(await canReadGuide(db, user, target.guide))) throw forbidden('This guide is private.');
}

/** Who reads the comments on every private guide in lists: those who read every private guide. */
export function readsPrivateGuides(user: AuthUser | null | undefined): boolean {
  return readsEveryGuide(user);
}

export const CONTEXT_NAMES: Record<CommentContext, string> = { guide: 'Guide', step: 'Step', wiki: 'Wiki', info: 'Info page', post: 'Post' };
