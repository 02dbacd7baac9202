// Who may do what with quizzes: the area's one policy module (src/http/policy.ts).
//   import, attach, delete: Authors and Admins;
//   read quizzes, the list, categories: any logged-in user; the answer key (correctAnswer)
//     only to Authors, Admins and team leads, and to a learner who passed that revision of
//     the quiz or used up their attempts on it;
//   take a quiz (save, submit): a logged-in user who reads the document it is attached to;
//   a user's sessions (list, read, cancel): the user and whoever oversees them
//     (shared/oversight.ts); invalidate all of a user's sessions: whoever oversees them.

import { hasPrivilege, type AuthUser } from '../../http/auth.js';
import { leadsAnyTeam, readsRecordsOf } from '../shared/oversight.js';
import { canReadGuide } from '../guides/guides.access.js';
import type { Db, QuizDoc } from './quizzes.queries.js';

export const managesQuizzes = (user: AuthUser | null) => hasPrivilege(user, 'Author');

/** A user's sessions are read by the user and whoever oversees them (shared/oversight.ts). */
export const readsSessionsOf = readsRecordsOf;

/** Whoever sees every quiz's answer key: Authors, Admins and team leads. */
export async function seesEveryAnswerKey(db: Db, user: AuthUser | null): Promise<boolean> {
  if (!user) return false;
  return managesQuizzes(user) || leadsAnyTeam(db, user);
}

/**
 * The quiz revisions (of those named) a learner passed: their answer key is shown to them.
 * Per revision: a pass of an earlier revision shows nothing of a new one.
 */
export async function passedRevisions(db: Db, userid: number, revisionids: number[]): Promise<Set<number>> {
  if (!revisionids.length) return new Set();
  const rows = await db.selectFrom('quiz_sessions').select('quiz_revisionid').distinct()
    .where('userid', '=', userid).where('quiz_revisionid', 'in', revisionids).where('passed', '=', 1).where('cancelled', '=', 0).execute();
  return new Set(rows.map((r) => r.quiz_revisionid));
}

/** Whether `user` reads the document: wikis are read by anyone; a guide in the language taken. */
export async function readsDoc(db: Db, user: AuthUser | null, doc: QuizDoc): Promise<boolean> {
  if (doc.doctype === 'wiki') return true;
  return doc.guideRow ? await canReadGuide(db, user, doc.guideRow) : false;
}

