// Who may do what with periodic review: the area's one policy module (src/http/policy.ts).
//   create a schedule: Authors and Admins; anyone else when the schedule is created with
//     documents, every one of which they may edit;
//   put documents on a schedule, or take them off: whoever may edit each document (guides:
//     `guideAccess(...).edit`; wikis: `canEditWiki`), whatever the schedule;
//   delete a schedule: its creator, Authors and Admins;
//   record a review: the schedule's reviewers (directly or through a team) and Admins;
//   read schedules: any logged-in user; their documents as far as the caller reads them
//     (`readableDocuments` as SQL);
//   a user's reviews, review documents and change requests: the user, Authors and Admins.
import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { hasPrivilege, type AuthUser } from '../../http/auth.js';
import { canReadGuide, guideAccess, readableGuideIds, readsEveryGuide } from '../guides/guides.access.js';
import { canEditWiki } from '../wikis/wikis.queries.js';
import { mainRow, type Db, type DocTarget, type ScheduleRow } from './review.queries.js';

/** Authors and Admins make schedules without naming documents. */
export const managesSchedules = (user: AuthUser) => hasPrivilege(user, 'Author');

export const mayDeleteSchedule = (user: AuthUser, s: ScheduleRow) => managesSchedules(user) || s.userid_created === user.userid;

/** Whether `user` may edit the document (and so set its schedule). */
export async function editsDocument(db: Db, config: Config, user: AuthUser, t: DocTarget): Promise<boolean> {
  if (t.wiki) return canEditWiki(db, user, t.wiki.namespace, t.wiki.title);
  const row = mainRow(config, t);
  if (!row) return false;
  if (readsEveryGuide(user)) return true;
  for (const g of t.guideRows) if ((await guideAccess(db, user, g)).edit) return true;
  return false;
}

/** Whether `user` reads the document: wikis are read by anyone; a guide in at least one language. */
export async function readsDocument(db: Db, user: AuthUser | null, t: DocTarget): Promise<boolean> {
  if (t.wiki) return true;
  for (const g of t.guideRows) if (await canReadGuide(db, user, g)) return true;
  return false;
}

/** Reviewers of the schedule, directly or as members of a reviewing team; Admins review anything. */
export async function reviewsFor(db: Db, user: AuthUser, prsid: number): Promise<boolean> {
  if (hasPrivilege(user, 'Admin')) return true;
  const row = await db.selectFrom('review_schedule_reviewers').select('memberid').where('prsid', '=', prsid)
    .where((eb) => eb.or([
      eb.and([eb('kind', '=', 'user'), eb('memberid', '=', user.userid)]),
      eb.and([eb('kind', '=', 'team'), eb('memberid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', user.userid))]),
    ])).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** A user's lists (reviews, review documents, change requests): the user, Authors and Admins. */
export const readsUserLists = (user: AuthUser, userid: number) => user.userid === userid || hasPrivilege(user, 'Author');

/** `readsDocument` as SQL, for a table aliased `alias` with doctype and docid columns. */
export function readableDocuments(db: Db, user: AuthUser | null, alias: string): Expression<SqlBool> {
  const eb = expressionBuilder<Database, never>();
  if (readsEveryGuide(user)) return sql<SqlBool>`1 = 1`;
  return eb.or([
    eb(sql.ref<string>(`${alias}.doctype`), '=', 'wiki'),
    eb(sql.ref<number>(`${alias}.docid`), 'in', readableGuideIds(db, user)),
  ]);
}

/** The schedules `userid` reviews (directly or through a team), as a subquery of prsids. */
export function schedulesReviewedBy(db: Db, userid: number) {
  return db.selectFrom('review_schedule_reviewers').select('prsid')
    .where((eb) => eb.or([
      eb.and([eb('kind', '=', 'user'), eb('memberid', '=', userid)]),
      eb.and([eb('kind', '=', 'team'), eb('memberid', 'in', eb.selectFrom('team_members').select('teamid').where('userid', '=', userid))]),
    ]));
}
