// Who may read, edit and manage a guide: the rule every area that shows or changes
// something of a guide asks (media, comments, tags, the work log, guides themselves). It
// sits below the areas (areas/shared imports no area) so that those areas, which the
// guides area uses in turn, need not import the guides area: see "No loops between
// areas" in docs/ARCHITECTURE.md. The guides area re-exports it from guides.access.ts.
//
// Reading is per language: a guide's languages are rows of `guides`, each with its own
// `public` flag, so the rule applies to a row (guideid, langid), never to a guide as a
// whole. `guideAccess` answers it for one row in code; `guideRowReadable` is the same
// rule as SQL, for every query that spans several rows (a guide's languages, lists):
// releases, the work log, comments, prerequisites.
import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toBool } from '../../db/helpers.js';
import type { Kysely, Selectable } from 'kysely';
import { hasPrivilege, type AuthUser } from '../../http/auth.js';
import type { GuideTable } from '../guides/guides.tables.js';

type Db = Kysely<Database>;
type GuideRow = Selectable<GuideTable>;

/** Authors and Admins (hasPrivilege counts Admins in) read, edit and manage every guide in every language: the one place that says so. */
export const readsEveryGuide = (user: Pick<AuthUser, 'privileges'> | null | undefined): boolean => hasPrivilege(user, 'Author');

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

export interface GuideAccess {
  read: boolean;
  /** Edit the guide, its steps, tags, flags and releases. */
  edit: boolean;
  /** Delete, restore, and manage collaborators. */
  manage: boolean;
}

/** Whether the user is a collaborator, directly or through a team. */
export async function isCollaborator(db: Db, guideid: number, userid: number): Promise<boolean> {
  const row = await db.selectFrom('guide_collaborators').select('memberid')
    .where('guideid', '=', guideid)
    .where((eb) => eb.or([
      eb.and([eb('kind', '=', 'user'), eb('memberid', '=', userid)]),
      eb.and([eb('kind', '=', 'team'), eb('memberid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', userid))]),
    ]))
    .limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Admins and Authors edit every guide; its owner and collaborators (users, or members
 * of collaborating teams) edit it too. Public guides are read by anyone; a private one
 * by those who may edit it and by those who contributed a revision.
 */
export async function guideAccess(db: Db, user: AuthUser | null, row: Pick<GuideRow, 'guideid' | 'langid' | 'public' | 'userid'>): Promise<GuideAccess> {
  const publicRead = toBool(row.public);
  if (!user) return { read: publicRead, edit: false, manage: false };
  if (readsEveryGuide(user) || user.userid === row.userid) return { read: true, edit: true, manage: true };
  if (await isCollaborator(db, row.guideid, user.userid)) return { read: true, edit: true, manage: false };
  if (publicRead) return { read: true, edit: false, manage: false };
  const contributed = await db.selectFrom('guide_revisions').select('revisionid')
    .where('userid', '=', user.userid).where('guideid', '=', row.guideid).where('langid', '=', row.langid).limit(1).executeTakeFirst();
  return { read: contributed !== undefined, edit: false, manage: false };
}

/** Whether `user` reads the guide's row: guideAccess's `read`, without its queries when the guide is public. */
export async function canReadGuide(db: Db, user: AuthUser | null, row: Pick<GuideRow, 'guideid' | 'langid' | 'public' | 'userid'>): Promise<boolean> {
  return toBool(row.public) || (await guideAccess(db, user, row)).read;
}

/**
 * The guideids the user may read in at least one language (not deleted), as a subquery
 * for lists derived from guides (`where('docid', 'in', readableGuideIds(db, user))`):
 * the per-language read rule (`guideRowReadable`) over every row of the guide.
 */
export function readableGuideIds(db: Db, user: AuthUser | null) {
  return db.selectFrom('guides as g').select('g.guideid').where('g.deleted', '=', 0).where(guideRowReadable(user, 'g'));
}


/** The column `readable` (1 or 0): whether `viewer` reads the guides row aliased `g`. */
export const readableColumn = (viewer: AuthUser | null) => sql<number>`case when ${guideRowReadable(viewer, 'g')} then 1 else 0 end`.as('readable');

/**
 * The prerequisites `viewer` sees, in the guide's order: of each prerequisite's rows
 * (selected with `readableColumn`), the readable one in `langid`, else the preferred
 * readable row; prerequisites with no readable row drop out.
 */
export function visiblePrerequisites<R extends { guideid: number; langid: string; readable: number }>(rows: R[], prereqIds: number[], langid: string, defaultLang: string): R[] {
  const readableBy = new Map<number, R[]>();
  for (const p of rows) if (p.readable) readableBy.set(p.guideid, [...(readableBy.get(p.guideid) ?? []), p]);
  return prereqIds.map((id) => preferredRow(readableBy.get(id) ?? [], langid, defaultLang)).filter((p): p is R => p !== undefined);
}
