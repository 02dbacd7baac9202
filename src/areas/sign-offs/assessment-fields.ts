// The `stageAssessmentFields` slot (areas/area.ts): the quiz, quiz session, attempts and
// sign-off fields of the stages of the course assignee user view, for a whole page of
// stages in a fixed number of queries. The answer key of an attached quiz is left out
// unless the stage's learner passed that revision of the quiz or used up its attempts.
import type { StageAssessmentFields, StageAssessmentFieldValues } from '../area.js';
import { quizzesWithRevisions } from '../quizzes/quizzes.queries.js';
import { quizRecord, sessionRecord } from '../quizzes/quizzes.records.js';
import { latestRequests } from './signoffs.queries.js';
import { signoffRecords } from './signoffs.records.js';

export const stageAssessmentFields: StageAssessmentFields = async (db, config, stages) => {
  const out = new Map<number, StageAssessmentFieldValues>();
  if (!stages.length) return out;
  // quizzes attached to the stages' documents
  const docs = stages.filter((s) => s.doctype === 'guide' || s.doctype === 'wiki');
  const attachments = docs.length ? await db.selectFrom('quiz_attachments as a').innerJoin('quizzes as q', 'q.quizid', 'a.quizid')
    .select(['a.doctype', 'a.docid', 'a.quizid']).where('q.deleted', '=', 0)
    .where((eb) => eb.or(docs.map((d) => eb.and([eb('a.doctype', '=', d.doctype), eb('a.docid', '=', d.docid)])))).execute() : [];
  const quizOf = (s: { doctype: string; docid: number }) => attachments.find((a) => a.doctype === s.doctype && a.docid === s.docid)?.quizid;
  const quizids = [...new Set(attachments.map((a) => a.quizid))];
  const quizzes = await quizzesWithRevisions(db, quizids);
  const userids = [...new Set(stages.map((s) => s.userid))];
  const sessions = quizids.length ? await db.selectFrom('quiz_sessions').selectAll().where('quizid', 'in', quizids).where('userid', 'in', userids)
    .where('cancelled', '=', 0).orderBy('quiz_sessionid').execute() : [];
  // sign-offs
  const signoffStages = stages.filter((s) => s.assessmenttype === 'signoff');
  const requests = await latestRequests(db, signoffStages.map((s) => ({ course_stageid: s.course_stageid, userid: s.userid })));
  const signoffs = await signoffRecords(db, config, signoffStages.map((s) => ({ stage: s, request: requests.get(`${s.course_stageid}:${s.userid}`) })));

  for (const s of stages) {
    const quizid = quizOf(s);
    const quiz = quizzes.find((q) => q.quiz.quizid === quizid);
    const mine = quiz ? sessions.filter((x) => x.userid === s.userid && x.quizid === quiz.quiz.quizid && x.doctype === s.doctype && x.docid === s.docid) : [];
    const used = mine.filter((x) => x.end_date !== null).length;
    const remaining = s.assessmenttype === 'quiz' && s.attempts_limit !== null && s.attempts_limit > 0 ? Math.max(0, s.attempts_limit - used) : null;
    const passed = !!quiz && sessions.some((x) => x.userid === s.userid && x.quiz_revisionid === quiz.revision.quiz_revisionid && x.passed === 1);
    const latest = mine[mine.length - 1];
    const signoffIndex = signoffStages.indexOf(s);
    out.set(s.course_stageid, {
      attached_quiz: quiz ? quizRecord(quiz, passed || remaining === 0) : null,
      quiz_session: latest ? sessionRecord(latest) : null,
      quiz_attempts_remaining: remaining,
      signoff: signoffIndex >= 0 ? signoffs[signoffIndex] : null,
    });
  }
  return out;
};
