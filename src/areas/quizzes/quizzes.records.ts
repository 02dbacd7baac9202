// Response records of the quizzes area, built from rows in a fixed number of queries.
import type { AuthUser } from '../../http/auth.js';
import { withoutAnswers, type QuizJson } from './quizzes.scoring.js';
import type { Quiz, QuizSession } from './quizzes.schemas.js';
import { passedRevisions, seesEveryAnswerKey } from './quizzes.access.js';
import { usedUpQuizzes } from './quizzes.courses.js';
import type { Db, QuizWithRevision, SessionRow } from './quizzes.queries.js';

/**
 * The quiz record; `showAnswers` says whether quiz_json keeps its correctAnswer values.
 */
export function quizRecord(q: QuizWithRevision, showAnswers: boolean): Quiz {
  const json = JSON.parse(q.revision.quiz_json) as QuizJson;
  return {
    quizid: q.quiz.quizid,
    quiz_revisionid: q.revision.quiz_revisionid,
    modified_by: q.revision.modified_by,
    title: q.revision.title,
    description: q.revision.description,
    passing_score: q.revision.passing_score,
    deleted: q.quiz.deleted,
    date: q.revision.date,
    quiz_json: showAnswers ? json : withoutAnswers(json),
    enabled: q.quiz.enabled,
    nonMediaQuestionsCount: q.revision.non_media_count,
    category: q.quiz.category,
    documents: q.documents,
    answers_shown: showAnswers,
  };
}

/**
 * Quiz records for `viewer`: Authors, Admins and team leads see the answer key; a learner
 * sees it on the quiz revisions they passed, or on quizzes on which `usedUp` says they used
 * up their attempts.
 */
export async function quizRecords(db: Db, viewer: AuthUser | null, quizzes: QuizWithRevision[], usedUp?: Set<number>): Promise<Quiz[]> {
  const all = await seesEveryAnswerKey(db, viewer);
  const passed = all || !viewer ? new Set<number>() : await passedRevisions(db, viewer.userid, quizzes.map((q) => q.revision.quiz_revisionid));
  const spent = usedUp ?? (all || !viewer ? new Set<number>() : await usedUpQuizzes(db, viewer.userid, quizzes.map((q) => ({ quizid: q.quiz.quizid, documents: q.documents }))));
  return quizzes.map((q) => quizRecord(q, all || passed.has(q.revision.quiz_revisionid) || spent.has(q.quiz.quizid)));
}

export function sessionRecord(s: SessionRow): QuizSession {
  return {
    quiz_sessionid: s.quiz_sessionid,
    userid: s.userid,
    quizid: s.quizid,
    quiz_revisionid: s.quiz_revisionid,
    doctype: s.doctype as 'guide' | 'wiki',
    docid: s.docid,
    langid: s.langid,
    doc_revisionid: s.doc_revisionid,
    response_json: s.response_json,
    init_date: Number(s.init_date),
    end_date: s.end_date === null ? null : Number(s.end_date),
    score: s.score === null ? null : Number(s.score),
    passed: s.passed,
    cancelled: s.cancelled,
    self_override: s.self_override === 1,
    last_modified: Number(s.last_modified),
  };
}
