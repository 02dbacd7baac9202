// Who reads a guide, per language: a guide's languages are rows of `guides`, each with
// its own `public` flag, so the rule applies to a row (guideid, langid), never to a
// guide as a whole. `guideAccess` (guides.queries.ts) answers it for one row in code;
// `guideRowReadable` is the same rule as SQL, for every query that spans several rows
// (a guide's languages, lists): releases, the work log, comments, prerequisites.
import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { hasPrivilege, isAdmin, type AuthUser } from '../../http/auth.js';

/** Authors and Admins read every guide in every language. */
export const readsEveryGuide = (user: AuthUser | null | undefined): boolean => !!user && (isAdmin(user) || hasPrivilege(user, 'Author'));

/**
 * Whether `user` reads the guides row aliased `alias` (deleted or not: callers add
 * `deleted = 0` where it applies): public rows for anyone; for a logged-in user also
 * the guides they own or collaborate on (directly or through a team), and the languages
 * they contributed a revision to. Mirrors `guideAccess(...).read`.
 */
export function guideRowReadable(user: AuthUser | null | undefined, alias = 'g'): Expression<SqlBool> {
  const eb = expressionBuilder<Database, never>();
  const col = (c: string) => sql.ref<number>(`${alias}.${c}`);
  const isPublic = eb(col('public'), '=', 1);
  if (!user) return isPublic;
  if (readsEveryGuide(user)) return sql<SqlBool>`1 = 1`;
  return eb.or([
    isPublic,
    eb(col('userid'), '=', user.userid),
    eb(col('guideid'), 'in', eb.selectFrom('guide_collaborators').select('guideid').where('kind', '=', 'user').where('memberid', '=', user.userid)),
    eb(col('guideid'), 'in', eb.selectFrom('guide_collaborators').select('guideid').where('kind', '=', 'team')
      .where('memberid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', user.userid))),
    eb.exists(eb.selectFrom('guide_revisions as contributed').select('contributed.revisionid').where('contributed.userid', '=', user.userid)
      .where('contributed.guideid', '=', col('guideid')).where('contributed.langid', '=', sql.ref<string>(`${alias}.langid`))),
  ]);
}

/** The languages of a guide that `user` reads (rows not deleted), as a subquery of langids. */
export function readableLanguages(guideid: number, user: AuthUser | null | undefined) {
  const eb = expressionBuilder<Database, never>();
  return eb.selectFrom('guides as rl').select('rl.langid').where('rl.guideid', '=', guideid).where('rl.deleted', '=', 0).where(guideRowReadable(user, 'rl'));
}

/**
 * Which row of a guide stands for it where one language is shown (a prerequisite):
 * `langid` when there is one, else the site's default language, else the first.
 */
export function preferredRow<R extends { langid: string }>(rows: R[], langid: string, defaultLang: string): R | undefined {
  return rows.find((r) => r.langid === langid) ?? rows.find((r) => r.langid === defaultLang) ?? [...rows].sort((a, b) => a.langid.localeCompare(b.langid))[0];
}
