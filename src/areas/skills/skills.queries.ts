// What the skills model reads of the other areas' data (courses, quizzes, the work log,
// sign-offs, supervisor ratings), for a whole set of users and documents in a fixed
// number of queries (no query per user or document).
import { inTx } from '../../db/transactions.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { DEFAULT_WEIGHTS, GROUPS, practiceValue, type SkillInputs, type Weights } from './skills.model.js';

export type Db = Kysely<Database>;
export interface DocRef { doctype: 'guide' | 'wiki'; docid: number }
export const key = (userid: number, doctype: string, docid: number) => `${userid}:${doctype}:${docid}`;

export async function loadWeights(db: Db): Promise<Weights> {
  const rows = await db.selectFrom('skills_weights').selectAll().execute();
  const out = structuredClone(DEFAULT_WEIGHTS) as Record<string, Record<string, number>>;
  for (const r of rows) if (out[r.group_name] && r.component in out[r.group_name]) out[r.group_name][r.component] = Number(r.value);
  return out as Weights;
}

/** Replaces the weights of the groups given (in one transaction); the others are unchanged. */
export async function saveWeights(db: Db, groups: Partial<Weights>): Promise<void> {
  await inTx(db, async (trx) => {
    for (const [group, values] of Object.entries(groups) as Array<[keyof typeof GROUPS, Record<string, number>]>) {
      for (const [component, value] of Object.entries(values)) {
        await trx.insertInto('skills_weights').values({ group_name: group, component, value })
          .onConflict((oc) => oc.columns(['group_name', 'component']).doUpdateSet({ value })).execute();
      }
    }
  });
}

const split = (docs: DocRef[]) => ({
  guides: [...new Set(docs.filter((d) => d.doctype === 'guide').map((d) => d.docid))],
  wikis: [...new Set(docs.filter((d) => d.doctype === 'wiki').map((d) => d.docid))],
});

/** `(doctype, docid) in docs` for a table's doctype and docid columns, as two IN lists. */
function docFilter<T extends { where: (...a: any[]) => T }>(q: T, docs: DocRef[], doctype: string, docid: string): T {
  const { guides, wikis } = split(docs);
  return q.where((eb: any) => eb.or([
    ...(guides.length ? [eb.and([eb(doctype, '=', 'guide'), eb(docid, 'in', guides)])] : []),
    ...(wikis.length ? [eb.and([eb(doctype, '=', 'wiki'), eb(docid, 'in', wikis)])] : []),
  ]));
}

/** The model's inputs for every (user, document) pair of `userids` × `docs`, keyed by `key`. */
export async function loadSkillInputs(db: Db, now: number, userids: number[], docs: DocRef[]): Promise<Map<string, SkillInputs>> {
  const out = new Map<string, SkillInputs>();
  if (!userids.length || !docs.length) return out;
  const { guides } = split(docs);
  const training = await docFilter(db.selectFrom('course_stage_statuses as st').innerJoin('course_stages as s', 's.course_stageid', 'st.course_stageid')
    .select(['st.userid', 's.doctype', 's.docid']).distinct()
    .where('st.userid', 'in', userids).where('st.status', '=', 'completed')
    .where((eb) => eb.or([eb('st.expires_date', 'is', null), eb('st.expires_date', '>', now)])), docs, 's.doctype', 's.docid').execute();
  const trained = new Set(training.map((r) => key(r.userid, r.doctype, r.docid)));
  const withQuiz = new Set((await docFilter(db.selectFrom('quiz_attachments as a').innerJoin('quizzes as q', 'q.quizid', 'a.quizid')
    .select(['a.doctype', 'a.docid']).where('q.deleted', '=', 0), docs, 'a.doctype', 'a.docid').execute()).map((r) => `${r.doctype}:${r.docid}`));
  const sessions = await docFilter(db.selectFrom('quiz_sessions').select(['userid', 'doctype', 'docid', 'langid', 'doc_revisionid', 'score'])
    .where('userid', 'in', userids).where('passed', '=', 1).where('cancelled', '=', 0), docs, 'doctype', 'docid').execute();
  const guideRevisions = guides.length ? await db.selectFrom('guides').select(['guideid', 'langid', 'revisionid']).where('guideid', 'in', guides).execute() : [];
  const { wikis } = split(docs);
  const wikiRevisions = wikis.length ? await db.selectFrom('wikis').select(['wikiid', 'revisionid']).where('wikiid', 'in', wikis).execute() : [];
  const current = (doctype: string, docid: number, langid: string) => (doctype === 'guide'
    ? guideRevisions.find((g) => g.guideid === docid && g.langid === langid)?.revisionid
    : wikiRevisions.find((w) => w.wikiid === docid)?.revisionid);
  const bestQuiz = new Map<string, number>();
  for (const s of sessions) {
    if (s.doc_revisionid !== current(s.doctype, s.docid, s.langid)) continue;
    const k = key(s.userid, s.doctype, s.docid);
    bestQuiz.set(k, Math.max(bestQuiz.get(k) ?? 0, Number(s.score ?? 0) / 100));
  }
  const practice = guides.length ? await db.selectFrom('work_log').select(['userid', 'guideid', (eb) => eb.fn.countAll<number>().as('n')])
    .where('userid', 'in', userids).where('guideid', 'in', guides).where('status', '=', 'complete').groupBy(['userid', 'guideid']).execute() : [];
  const practiced = new Map(practice.map((p) => [key(p.userid, 'guide', p.guideid), Number(p.n)]));
  const signoffDocs = new Set((await docFilter(db.selectFrom('course_stages').select(['doctype', 'docid']).distinct()
    .where('active', '=', 1).where('assessmenttype', '=', 'signoff'), docs, 'doctype', 'docid').execute()).map((r) => `${r.doctype}:${r.docid}`));
  const signedOff = new Set((await docFilter(db.selectFrom('signoff_requests').select(['userid_requestor', 'doctype', 'docid'])
    .where('userid_requestor', 'in', userids).where('response_value', '=', 'pass').where('response_acknowledged', '=', 1).where('is_cancelled', '=', 0), docs, 'doctype', 'docid')
    .execute()).map((r) => key(r.userid_requestor, r.doctype, r.docid)));
  const supervisor = new Map((await docFilter(db.selectFrom('skills_supervisor_ratings').select(['userid', 'doctype', 'docid', 'rating'])
    .where('userid', 'in', userids), docs, 'doctype', 'docid').execute()).map((r) => [key(r.userid, r.doctype, r.docid), Number(r.rating)]));
  for (const userid of userids) {
    for (const d of docs) {
      const k = key(userid, d.doctype, d.docid);
      const doc = `${d.doctype}:${d.docid}`;
      out.set(k, {
        training: trained.has(k) ? 1 : 0,
        quiz: withQuiz.has(doc) ? bestQuiz.get(k) ?? 0 : null,
        practice: d.doctype === 'guide' ? practiceValue(practiced.get(k) ?? 0) : null,
        signoff: signoffDocs.has(doc) ? (signedOff.has(k) ? 1 : 0) : null,
        supervisor: supervisor.get(k) ?? null,
      });
    }
  }
  return out;
}

/** Users reached by an active assignment of a course (directly, or as members of an assigned team now). */
export function courseUsers(db: Db, wikiids: number[]) {
  return db.selectFrom('course_assignments').select(['wikiid', 'assignee_userid as userid']).where('wikiid', 'in', wikiids).where('cancelled', '=', 0).where('assignee_userid', 'is not', null)
    .union(db.selectFrom('course_assignments as ca').innerJoin('team_members as m', 'm.teamid', 'ca.assignee_teamid')
      .select(['ca.wikiid', 'm.userid']).where('ca.wikiid', 'in', wikiids).where('ca.cancelled', '=', 0));
}

/** The guide and wiki stages (active) of courses. */
export async function courseDocs(db: Db, wikiids: number[]) {
  if (!wikiids.length) return [];
  return db.selectFrom('course_stages').select(['wikiid', 'doctype', 'docid']).where('wikiid', 'in', wikiids).where('active', '=', 1)
    .where('doctype', 'in', ['guide', 'wiki']).orderBy('wikiid').orderBy('position').execute();
}
