// Who may do what with work log entries: the work log's one policy module (see
// src/http/policy.ts).
//   read: the assignee and the creator, Moderators and Admins, and whoever reads the
//     entry's guide in its language (`readsEntry`; `listableBy` is the same rule as SQL);
//   act (step data, pause, resume, suspend, finish, cancel): the assignee, a Moderator or an Admin;
//   assume a suspended entry: anyone who reads it, other than its assignee;
//   assign to another user: Moderators and Admins;
//   delete: its creator while everything in it is theirs, or an Admin (the "everything
//     in it is theirs" half is checked in the DELETE itself, work-log.service.ts).
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { hasPrivilege, isAdmin, type AuthUser } from '../../http/auth.js';
import { findGuideRow } from '../guides/guides.queries.js';
import { canReadGuide, guideRowReadable } from '../guides/guides.access.js';
import type { WorkLogTable } from './work-log.tables.js';
import type { WorkLogRow } from './work-log.queries.js';

type Db = Kysely<Database>;

/** Moderators and Admins act on every entry; its assignee on theirs. */
export const actsOnEntry = (user: AuthUser, row: WorkLogRow) => user.userid === row.userid || hasPrivilege(user, 'Moderator');

/**
 * Who reads an entry: its assignee and its creator, Moderators and Admins, and whoever
 * may read its guide in the entry's language (`listableBy` is the same rule as SQL).
 */
export async function readsEntry(db: Db, config: Config, user: AuthUser, row: WorkLogRow): Promise<boolean> {
  if (actsOnEntry(user, row) || user.userid === row.userid_created) return true;
  const guide = await findGuideRow(db, config, row.guideid, row.langid);
  return guide !== undefined && await canReadGuide(db, user, guide);
}

type EntryQuery<O> = SelectQueryBuilder<Database & { w: WorkLogTable }, 'w', O>;

/**
 * `readsEntry` as SQL, for lists: Moderators and Admins see every entry; others the
 * entries assigned to them or started by them, and those whose guide they read in the
 * entry's language (the read rule applies per language, guides.access.ts).
 */
export function listableBy<O>(query: EntryQuery<O>, user: AuthUser): EntryQuery<O> {
  if (hasPrivilege(user, 'Moderator')) return query;
  return query.where((eb) => eb.or([
    eb('w.userid', '=', user.userid),
    eb('w.userid_created', '=', user.userid),
    eb.exists(eb.selectFrom('guides as g').select('g.guideid').whereRef('g.guideid', '=', 'w.guideid').whereRef('g.langid', '=', 'w.langid')
      .where('g.deleted', '=', 0).where(guideRowReadable(user, 'g'))),
  ]));
}

/** A form field of a revision, with the step it is on. */
/** Assign an entry to someone other than the caller. */
export const canAssignOthers = (user: AuthUser) => hasPrivilege(user, 'Moderator');

/** Delete the entry, as far as the caller alone decides (the DELETE checks who took part). */
export const mayDeleteEntry = (user: AuthUser, row: WorkLogRow) => isAdmin(user) || row.userid_created === user.userid;
