// What the skills model reads of the other areas' data (courses, quizzes, the work log,
// sign-offs, supervisor ratings), for a whole set of users and documents in a fixed
// number of queries (no query per user or document).
import { audit, changesOf } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';
import { inTx } from '../../db/transactions.js';
import type { Kysely, SelectQueryBuilder } from 'kysely';
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

/**
 * Replaces the weights of the groups given (in one transaction); the others are unchanged.
 * One audit entry per group changed (resource `skills_weights`, the group's name).
 */
export async function saveWeights(db: Db, groups: Partial<Weights>, actor: AuthUser, now: number): Promise<void> {
  await inTx(db, async (trx) => {
    const before = await loadWeights(trx) as Record<string, Record<string, number>>;
    for (const [group, values] of Object.entries(groups) as Array<[keyof typeof GROUPS, Record<string, number>]>) {
      for (const [component, value] of Object.entries(values)) {
        await trx.insertInto('skills_weights').values({ group_name: group, component, value })
          .onConflict((oc) => oc.columns(['group_name', 'component']).doUpdateSet({ value })).execute();
      }
      const changes = changesOf(before[group] ?? {}, values);
      if (changes) await audit(trx, { action: 'skills.weights_changed', actor, time: now, resource_type: 'skills_weights', resource_id: group, changes });
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

/** Users named by id, or the users a subquery selects (a column `userid`): a team's members, say. */
export type UserSet = readonly number[] | SelectQueryBuilder<Database, any, { userid: number }>;

/** The skills inputs of users × documents (loadSkillData). */
export interface SkillData {
  /** The inputs of any pair of the users × the documents. */
  of(userid: number, doc: DocRef): SkillInputs;
  /** Whether anything is recorded for the pair (otherwise its rating is 0). */
  recorded(userid: number, doc: DocRef): boolean;
  /** The users with anything recorded on the document. */
  usersOn(doc: DocRef): readonly number[];
}

/**
 * The model's inputs for the users × the documents, read in a fixed number of queries
 * whatever their numbers, each filtered by the users (as a list or as a subquery) and the
 * documents. Only the pairs with something recorded come back; every other pair's
 * inputs are zero where they apply (no training, quiz score, practice or sign-off, and no
 * supervisor rating), so its rating is 0 (skills.model.ts). A caller that averages over
 * many users reads the few pairs with data, not users × documents.
 */
export async function loadSkillData(db: Db, now: number, users: UserSet, docs: DocRef[]): Promise<SkillData> {
  const recorded = new Map<string, SkillInputs>();
  const byDoc = new Map<string, number[]>();
  const withQuiz = new Set<string>();
  const signoffDocs = new Set<string>();
  const base = (d: DocRef): SkillInputs => {
    const doc = `${d.doctype}:${d.docid}`;
    return { training: 0, quiz: withQuiz.has(doc) ? 0 : null, practice: d.doctype === 'guide' ? 0 : null, signoff: signoffDocs.has(doc) ? 0 : null, supervisor: null };
  };
  const data: SkillData = {
    of: (userid, d) => recorded.get(key(userid, d.doctype, d.docid)) ?? base(d),
    recorded: (userid, d) => recorded.has(key(userid, d.doctype, d.docid)),
    usersOn: (d) => byDoc.get(`${d.doctype}:${d.docid}`) ?? [],
  };
  if ((Array.isArray(users) && !users.length) || !docs.length) return data;
  const inUsers = <T extends { where: (...a: any[]) => T }>(q: T, column: string): T => q.where(column, 'in', users as any);
  const { guides, wikis } = split(docs);
  // Independent reads, sent together (on PostgreSQL, over the pool's connections at once).
  const [training, quizDocs, sessions, practice, signoffStages, signedOff, supervisor] = await Promise.all([
    docFilter(inUsers(db.selectFrom('course_stage_statuses as st').innerJoin('course_stages as s', 's.course_stageid', 'st.course_stageid')
      .select(['st.userid', 's.doctype', 's.docid']).distinct()
      .where('st.status', '=', 'completed')
      .where((eb) => eb.or([eb('st.expires_date', 'is', null), eb('st.expires_date', '>', now)])), 'st.userid'), docs, 's.doctype', 's.docid').execute(),
    docFilter(db.selectFrom('quiz_attachments as a').innerJoin('quizzes as q', 'q.quizid', 'a.quizid')
      .select(['a.doctype', 'a.docid']).where('q.deleted', '=', 0), docs, 'a.doctype', 'a.docid').execute(),
    docFilter(inUsers(db.selectFrom('quiz_sessions').select(['userid', 'doctype', 'docid', 'langid', 'doc_revisionid', 'score'])
      .where('passed', '=', 1).where('cancelled', '=', 0), 'userid'), docs, 'doctype', 'docid').execute(),
    guides.length ? inUsers(db.selectFrom('work_log').select(['userid', 'guideid', (eb) => eb.fn.countAll<number>().as('n')])
      .where('guideid', 'in', guides).where('status', '=', 'complete'), 'userid').groupBy(['userid', 'guideid']).execute() : [],
    docFilter(db.selectFrom('course_stages').select(['doctype', 'docid']).distinct()
      .where('active', '=', 1).where('assessmenttype', '=', 'signoff'), docs, 'doctype', 'docid').execute(),
    docFilter(inUsers(db.selectFrom('signoff_requests').select(['userid_requestor as userid', 'doctype', 'docid'])
      .where('response_value', '=', 'pass').where('response_acknowledged', '=', 1).where('is_cancelled', '=', 0), 'userid_requestor'), docs, 'doctype', 'docid').execute(),
    docFilter(inUsers(db.selectFrom('skills_supervisor_ratings').select(['userid', 'doctype', 'docid', 'rating']), 'userid'), docs, 'doctype', 'docid').execute(),
  ]);
  for (const r of quizDocs) withQuiz.add(`${r.doctype}:${r.docid}`);
  for (const r of signoffStages) signoffDocs.add(`${r.doctype}:${r.docid}`);
  // A passed session counts on the document's current revision: read only when there are sessions.
  const [guideRevisions, wikiRevisions] = sessions.length ? await Promise.all([
    guides.length ? db.selectFrom('guides').select(['guideid', 'langid', 'revisionid']).where('guideid', 'in', guides).execute() : [],
    wikis.length ? db.selectFrom('wikis').select(['wikiid', 'revisionid']).where('wikiid', 'in', wikis).execute() : [],
  ]) : [[], []];
  const current = new Map<string, number>([
    ...guideRevisions.map((g) => [`guide:${g.guideid}:${g.langid}`, g.revisionid] as const),
    ...wikiRevisions.map((w) => [`wiki:${w.wikiid}`, w.revisionid] as const),
  ]);
  /** The pair's inputs, recorded from now on (starting from the base). */
  const entry = (userid: number, doctype: string, docid: number) => {
    const k = key(userid, doctype, docid);
    let e = recorded.get(k);
    if (!e) {
      recorded.set(k, (e = base({ doctype: doctype as DocRef['doctype'], docid })));
      const doc = `${doctype}:${docid}`;
      const users = byDoc.get(doc);
      if (users) users.push(userid);
      else byDoc.set(doc, [userid]);
    }
    return e;
  };
  for (const r of training) entry(r.userid, r.doctype, r.docid).training = 1;
  for (const s of sessions) {
    if (!withQuiz.has(`${s.doctype}:${s.docid}`)) continue;
    if (s.doc_revisionid !== current.get(s.doctype === 'guide' ? `guide:${s.docid}:${s.langid}` : `wiki:${s.docid}`)) continue;
    const e = entry(s.userid, s.doctype, s.docid);
    e.quiz = Math.max(e.quiz ?? 0, Number(s.score ?? 0) / 100);
  }
  for (const p of practice) entry(p.userid, 'guide', p.guideid).practice = practiceValue(Number(p.n));
  for (const r of signedOff) if (signoffDocs.has(`${r.doctype}:${r.docid}`)) entry(r.userid, r.doctype, r.docid).signoff = 1;
  for (const r of supervisor) entry(r.userid, r.doctype, r.docid).supervisor = Number(r.rating);
  return data;
}

/** The model's inputs for every (user, document) pair of `userids` × `docs`, keyed by `key`. */
export async function loadSkillInputs(db: Db, now: number, userids: number[], docs: DocRef[]): Promise<Map<string, SkillInputs>> {
  const data = await loadSkillData(db, now, userids, docs);
  const out = new Map<string, SkillInputs>();
  for (const userid of userids) for (const d of docs) out.set(key(userid, d.doctype, d.docid), data.of(userid, d));
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
