// What a comment can be on, and how to find it: each context names its table.
// INTERIM: guides and steps are not in main yet; until they are, those contexts find
// nothing (404).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CommentContext } from './comments.schemas.js';

export interface ContextTarget {
  /** Becomes the comment's title. */
  title: string;
  /** The document's language: the comment's default. */
  langid: string;
}

type Resolver = (db: Kysely<Database>, id: number) => Promise<ContextTarget | null>;

const wikiResolver = (info: boolean): Resolver => async (db, id) => {
  const w = await db.selectFrom('wikis').select(['namespace', 'title', 'display_title', 'langid']).where('wikiid', '=', id).executeTakeFirst();
  if (!w || w.namespace === 'COURSE' || (w.namespace === 'INFO') !== info) return null;
  return { title: w.display_title || w.title, langid: w.langid };
};

const resolvers: Record<CommentContext, Resolver> = {
  wiki: wikiResolver(false),
  info: wikiResolver(true),
  post: async (db, id) => {
    const p = await db.selectFrom('posts').select(['title', 'langid']).where('postid', '=', id).executeTakeFirst();
    return p ? { title: p.title, langid: p.langid } : null;
  },
  guide: async () => null,
  step: async () => null,
};

/** The document a comment is on, or null when there is none. */
export function resolveContext(db: Kysely<Database>, context: CommentContext, id: number): Promise<ContextTarget | null> {
  return resolvers[context](db, id);
}

export const CONTEXT_NAMES: Record<CommentContext, string> = { guide: 'Guide', step: 'Step', wiki: 'Wiki', info: 'Info page', post: 'Post' };
