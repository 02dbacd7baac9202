// What quizzes ask of courses (through areas/shared, importing no courses code): the
// attempts limit of the stage assessments on a document, and the completion of the
// stages a passed quiz completes.
import type { Clock } from '../../clock.js';
import { assignedStages, coursesReaching } from '../shared/course-status.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
import type { ProgressActor } from '../shared/course-progress.js';
import type { Db } from './quizzes.queries.js';

/** The attempts limit for `userid` on the quiz of a document: the smallest of the quiz stage assessments assigned to them there; null when none limits it. */
export async function attemptsLimit(db: Db, userid: number, doctype: string, docid: number): Promise<number | null> {
  const limits = (await assignedStages(db, userid, { doctype, docid }))
    .filter((s) => s.assessmenttype === 'quiz' && s.attempts_limit !== null && s.attempts_limit > 0).map((s) => s.attempts_limit!);
  return limits.length ? Math.min(...limits) : null;
}

/**
 * Inside the submit's transaction, for a passed session: completes the user's quiz stages on
 * the document whose own passing score (`quiz_passing_score`, else the quiz's) the score
 * reaches, at the document revision the quiz was taken on. Answers how many completed.
 */
export async function completeQuizStages(trx: Db, clock: Clock, s: { userid: number; doctype: string; docid: number; doc_revisionid: number; quiz_sessionid: number; score: number; actor: ProgressActor }): Promise<number> {
  const stages = (await assignedStages(trx, s.userid, { doctype: s.doctype, docid: s.docid }))
    .filter((st) => st.assessmenttype === 'quiz' && (st.quiz_passing_score === null || s.score >= st.quiz_passing_score));
  let n = 0;
  for (const st of stages) {
    n += await completeStagesOnDocument(trx, clock, {
      userid: s.userid, doctype: s.doctype as 'guide' | 'wiki', docid: s.docid, doc_revisionid: s.doc_revisionid, via: 'quiz', course_stageid: st.course_stageid, source: { quiz_sessionid: s.quiz_sessionid }, actor: s.actor,
    });
  }
  return n;
}

/**
 * The quizzes (of those given, with the documents they are attached to) on which `userid`
 * used up the attempts of a quiz stage assigned to them, in two queries.
 */
export async function usedUpQuizzes(db: Db, userid: number, quizzes: Array<{ quizid: number; documents: Array<{ doctype: string; docid: number }> }>): Promise<Set<number>> {
  const docs = quizzes.flatMap((q) => q.documents.map((d) => ({ ...d, quizid: q.quizid })));
  if (!docs.length) return new Set();
  const stages = await db.selectFrom('course_stages').select(['doctype', 'docid', 'attempts_limit'])
    .where('active', '=', 1).where('assessmenttype', '=', 'quiz').where('attempts_limit', 'is not', null)
    .where('wikiid', 'in', coursesReaching(db, userid))
    .where((eb) => eb.or(docs.map((d) => eb.and([eb('doctype', '=', d.doctype as 'guide' | 'wiki'), eb('docid', '=', d.docid)])))).execute();
  if (!stages.length) return new Set();
  const used = await db.selectFrom('quiz_sessions').select(['quizid', 'doctype', 'docid', (eb) => eb.fn.countAll<number>().as('n')])
    .where('userid', '=', userid).where('quizid', 'in', [...new Set(docs.map((d) => d.quizid))]).where('end_date', 'is not', null).where('cancelled', '=', 0)
    .groupBy(['quizid', 'doctype', 'docid']).execute();
  const out = new Set<number>();
  for (const d of docs) {
    const limits = stages.filter((s) => s.doctype === d.doctype && s.docid === d.docid).map((s) => s.attempts_limit!).filter((l) => l > 0);
    if (!limits.length) continue;
    const n = Number(used.find((u) => u.quizid === d.quizid && u.doctype === d.doctype && u.docid === d.docid)?.n ?? 0);
    if (n >= Math.min(...limits)) out.add(d.quizid);
  }
  return out;
}
