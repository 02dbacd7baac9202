// What quizzes ask of courses (through areas/shared, importing no courses code): the
// attempts limit of the stage assessments on a document, and the completion of the
// stages a passed quiz completes.
import type { Clock } from '../../clock.js';
import { assignedStages } from '../shared/course-status.js';
import { completeStagesOnDocument } from '../shared/course-completion.js';
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
export async function completeQuizStages(trx: Db, clock: Clock, s: { userid: number; doctype: string; docid: number; doc_revisionid: number; quiz_sessionid: number; score: number }): Promise<number> {
  const stages = (await assignedStages(trx, s.userid, { doctype: s.doctype, docid: s.docid }))
    .filter((st) => st.assessmenttype === 'quiz' && (st.quiz_passing_score === null || s.score >= st.quiz_passing_score));
  let n = 0;
  for (const st of stages) {
    n += await completeStagesOnDocument(trx, clock, {
      userid: s.userid, doctype: s.doctype as 'guide' | 'wiki', docid: s.docid, doc_revisionid: s.doc_revisionid, via: 'quiz', course_stageid: st.course_stageid, source: { quiz_sessionid: s.quiz_sessionid },
    });
  }
  return n;
}
