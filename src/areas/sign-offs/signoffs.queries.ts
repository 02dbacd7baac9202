// Row loaders of the sign-offs area: no decisions about who may see what.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsInsensitive } from '../../db/helpers.js';
import type { SignoffRequestTable } from './signoffs.tables.js';

export type Db = Kysely<Database>;
export type RequestRow = Selectable<SignoffRequestTable>;

/** The active sign-off stage named by its assessment id, in a course not deleted. */
export function findSignoffStage(db: Db, stage_assessmentid: number) {
  return db.selectFrom('course_stages as s').innerJoin('courses as c', 'c.wikiid', 's.wikiid')
    .select(['s.course_stageid', 's.wikiid', 's.doctype', 's.docid', 's.stage_assessmentid', 's.assessmenttype', 's.teamid_signer', 's.quiz_passing_score', 's.skills_points_possible'])
    .where('s.stage_assessmentid', '=', stage_assessmentid).where('s.active', '=', 1).where('c.deleted', '=', 0)
    .orderBy('s.course_stageid').executeTakeFirst();
}
export type SignoffStage = NonNullable<Awaited<ReturnType<typeof findSignoffStage>>>;

export const findRequest = (db: Db, id: number) => db.selectFrom('signoff_requests').selectAll().where('signoff_requestid', '=', id).executeTakeFirst();

/** The current revision of a document (a guide in its first language when none is named). */
export async function docRevision(db: Db, doctype: string, docid: number): Promise<number | null> {
  if (doctype === 'guide') return (await db.selectFrom('guides').select('revisionid').where('guideid', '=', docid).where('deleted', '=', 0).orderBy('langid').executeTakeFirst())?.revisionid ?? null;
  if (doctype === 'wiki') return (await db.selectFrom('wikis').select('revisionid').where('wikiid', '=', docid).executeTakeFirst())?.revisionid ?? null;
  return null;
}

/** Members of the signer team, by username (a page of at most 200). */
export function signersOf(db: Db, teamid: number, search?: string) {
  let q = db.selectFrom('team_members as m').innerJoin('users as u', 'u.userid', 'm.userid')
    .select(['u.userid', 'u.username', 'u.imageid']).where('m.teamid', '=', teamid).where('u.enabled', '=', 1);
  if (search) q = q.where(containsInsensitive('u.username', search));
  return q.orderBy('u.username').orderBy('u.userid').limit(200).execute();
}

/** Requests awaiting a response from `userid`: live, unanswered, on a stage whose signer team they are in, not their own, asked of them or of anyone. */
export function pendingFor(db: Db, userid: number) {
  return db.selectFrom('signoff_requests').selectAll()
    .where('is_cancelled', '=', 0).where('response_value', 'is', null)
    .where('teamid_signer', 'in', db.selectFrom('team_members').select('teamid').where('userid', '=', userid))
    .where('userid_requestor', '!=', userid)
    .where((eb) => eb.or([eb('userid_requestee', 'is', null), eb('userid_requestee', '=', userid)]))
    .orderBy('signoff_requestid').limit(500).execute();
}

/** A trainee's requests answered and not acknowledged yet. */
export function unacknowledgedOf(db: Db, userid: number) {
  return db.selectFrom('signoff_requests').selectAll()
    .where('userid_requestor', '=', userid).where('is_cancelled', '=', 0).where('response_value', 'is not', null).where('response_acknowledged', '=', 0)
    .orderBy('signoff_requestid').limit(500).execute();
}

/** The latest request (cancelled ones too) of each (stage, trainee) pair named, in one query. */
export async function latestRequests(db: Db, pairs: Array<{ course_stageid: number; userid: number }>): Promise<Map<string, RequestRow>> {
  const out = new Map<string, RequestRow>();
  if (!pairs.length) return out;
  const stageids = [...new Set(pairs.map((p) => p.course_stageid))];
  const userids = [...new Set(pairs.map((p) => p.userid))];
  const rows = await db.selectFrom('signoff_requests').selectAll().where('course_stageid', 'in', stageids).where('userid_requestor', 'in', userids)
    .orderBy('signoff_requestid').execute();
  for (const r of rows) out.set(`${r.course_stageid}:${r.userid_requestor}`, r);
  return out;
}
