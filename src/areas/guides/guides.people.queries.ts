// Row loaders of guides and people: a user's guides (contributed, completed, favorite),
// a guide's collaborators. No decisions about who may see them: the routes pass
// `withPrivate` as the guides area's policy says.
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { toTeamSummaries } from '../teams/teams.queries.js';
import { lightSelect, type Db } from './guides.queries.js';
import { lightGuidePage } from './guides.records.js';

export type MarkTable = 'guide_completions' | 'guide_favorites';
export type CollaboratorKind = 'user' | 'team';
interface Page { offset: number; limit: number; order?: 'ASC' | 'DESC' }

/** Whether a user (or team) with this id exists. */
export async function memberExists(db: Db, kind: CollaboratorKind, id: number): Promise<boolean> {
  const row = kind === 'user'
    ? await db.selectFrom('users').select('userid').where('userid', '=', id).executeTakeFirst()
    : await db.selectFrom('teams').select('teamid').where('teamid', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** The guides (rows not deleted) the user made a revision of, by guideid; only public ones unless `withPrivate`. */
export function contributedGuideRows(db: Db, userid: number, withPrivate: boolean, q: Page) {
  const dir = q.order === 'DESC' ? 'desc' : 'asc';
  let sel = lightSelect(db).where('g.deleted', '=', 0)
    .where((eb) => eb.exists(eb.selectFrom('guide_revisions as r').select('r.revisionid')
      .whereRef('r.guideid', '=', 'g.guideid').whereRef('r.langid', '=', 'g.langid').where('r.userid', '=', userid)));
  if (!withPrivate) sel = sel.where('g.public', '=', 1);
  return sel.orderBy('g.guideid', dir).orderBy('g.langid', dir).limit(q.limit).offset(q.offset).execute();
}

/** The guides the user completed (or favored), newest mark first; only public ones unless `withPrivate`. */
export function markedGuideRows(db: Db, table: MarkTable, userid: number, withPrivate: boolean, q: Page) {
  let sel = lightSelect(db).innerJoin(`${table} as m`, (j) => j.onRef('m.guideid', '=', 'g.guideid').onRef('m.langid', '=', 'g.langid'))
    .where('m.userid', '=', userid).where('g.deleted', '=', 0);
  if (!withPrivate) sel = sel.where('g.public', '=', 1);
  return sel.orderBy('m.date', 'desc').orderBy('g.guideid', 'desc').orderBy('g.langid').limit(q.limit).offset(q.offset).execute();
}

/** The guide's collaborators of one kind, as user or team summaries, by id. */
export async function collaboratorRecords(db: Db, config: Config, guideid: number, kind: CollaboratorKind) {
  const ids = (await db.selectFrom('guide_collaborators').select('memberid').where('guideid', '=', guideid).where('kind', '=', kind).orderBy('memberid').execute()).map((r) => r.memberid);
  if (kind === 'user') {
    const users = await loadUserSummaries(db, config, ids);
    return ids.map((id) => users.get(id)).filter((u) => u !== undefined);
  }
  const teams = ids.length ? await db.selectFrom('teams').selectAll().where('teamid', 'in', ids).orderBy('teamid').execute() : [];
  return toTeamSummaries(db, config, teams);
}

/** One guide row's light record (as `viewer` sees it; `current`: at its current revision, for an editor's own change). */
export async function lightGuideRecord(db: Db, config: Config, guideid: number, langid: string, viewer: AuthUser | null, options: { current?: boolean } = {}) {
  const rows = await lightSelect(db).where('g.guideid', '=', guideid).where('g.langid', '=', langid).execute();
  return (await lightGuidePage(db, config, rows, viewer, options)).records[0];
}
