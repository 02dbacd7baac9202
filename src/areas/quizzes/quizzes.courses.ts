// What quizzes ask of courses: the attempts limit of the stage assessments on a document,
// and the completion of the stages a passed quiz completes.
import type { Clock } from '../../clock.js';
import type { Db } from './quizzes.queries.js';

/** The attempts limit for `userid` on the quiz of a document: the smallest of the quiz stage assessments assigned to them there; null when none limits it. */
export async function attemptsLimit(_db: Db, _userid: number, _doctype: string, _docid: number): Promise<number | null> {
  return null;
}

/** Inside the submit's transaction: completes the user's quiz stages on the document, at the revision taken. */
export async function completeQuizStages(_trx: Db, _clock: Clock, _s: { userid: number; doctype: string; docid: number; doc_revisionid: number; quiz_sessionid: number }): Promise<number> {
  return 0;
}
