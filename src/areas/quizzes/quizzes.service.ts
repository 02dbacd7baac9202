// Writes of the quizzes area: each change one named function in one transaction.
import { inTx } from '../../db/transactions.js';
import type { Clock } from '../../clock.js';
import { conflict, invalidField, unprocessable } from '../../http/errors.js';
import { lockForTransaction } from '../../db/locks.js';
import { quizModels, type QuizJson, type QuizResult } from './quizzes.scoring.js';
import { attemptsUsed, findSession, type Db, type QuizDoc, type QuizRow, type SessionRow } from './quizzes.queries.js';
import { attemptsLimit, completeQuizStages } from './quizzes.courses.js';
import { selfOverride } from '../shared/oversight.js';
import { audit, changesOf } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';
import type { ProgressActor } from '../shared/course-progress.js';

/** The quiz's fields an import records (never its questions: the revision references them). */
const importedFields = (q: QuizImport) => ({ title: q.title, description: q.description, passing_score: q.passing_score, category: q.category, enabled: q.enabled, non_media_count: q.non_media_count });

export interface QuizImport {
  quiz_json: QuizJson;
  title: string;
  description?: string;
  passing_score?: number;
  category?: string;
  enabled?: boolean;
  non_media_count: number;
}

/** A new quiz with its first revision; answers the quizid. `actor` undefined: the demo seed (no audit entry). */
export async function createQuiz(db: Db, clock: Clock, userid: number, q: QuizImport, actor?: AuthUser): Promise<number> {
  const now = clock.now();
  return inTx(db, async (trx) => {
    const { quizid } = await trx.insertInto('quizzes').values({
      title: q.title, category: q.category ?? '', enabled: q.enabled === false ? 0 : 1, userid_created: userid, created_date: now, released_date: now,
    }).returning('quizid').executeTakeFirstOrThrow();
    const { quiz_revisionid } = await trx.insertInto('quiz_revisions').values({
      quizid, title: q.title, description: q.description ?? '', passing_score: q.passing_score ?? 70, quiz_json: JSON.stringify(q.quiz_json), non_media_count: q.non_media_count, modified_by: userid, date: now,
    }).returning('quiz_revisionid').executeTakeFirstOrThrow();
    await trx.updateTable('quizzes').set({ quiz_revisionid }).where('quizid', '=', quizid).execute();
    if (actor) await audit(trx, { action: 'quiz.imported', actor, time: now, resource_type: 'quiz', resource_id: quizid, revisionid_after: quiz_revisionid, changes: changesOf(null, importedFields(q)) });
    return quizid;
  });
}

/**
 * A new revision of a quiz, at the revision the client read: the quiz row is updated
 * `WHERE quiz_revisionid = <sent>` and its affected rows counted, so of two imports on the
 * same revision one wins and the other is a 409 with the current quiz (`current`).
 */
export async function reviseQuiz(db: Db, clock: Clock, actor: AuthUser, quiz: QuizRow, sentRevision: number, q: QuizImport, current: () => Promise<unknown>): Promise<void> {
  const userid = actor.userid;
  const now = clock.now();
  const won = await inTx(db, async (trx) => {
    const prev = await trx.selectFrom('quiz_revisions').select(['title', 'description', 'passing_score', 'non_media_count']).where('quiz_revisionid', '=', quiz.quiz_revisionid).executeTakeFirst();
    const { quiz_revisionid } = await trx.insertInto('quiz_revisions').values({
      quizid: quiz.quizid, title: q.title, description: q.description ?? '', passing_score: q.passing_score ?? prev?.passing_score ?? 70,
      quiz_json: JSON.stringify(q.quiz_json), non_media_count: q.non_media_count, modified_by: userid, date: now,
    }).returning('quiz_revisionid').executeTakeFirstOrThrow();
    const r = await trx.updateTable('quizzes').set({
      quiz_revisionid, title: q.title, released_date: now,
      ...(q.category !== undefined ? { category: q.category } : {}), ...(q.enabled !== undefined ? { enabled: q.enabled ? 1 : 0 } : {}),
    }).where('quizid', '=', quiz.quizid).where('quiz_revisionid', '=', sentRevision).where('deleted', '=', 0).executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw new RevisionMoved();
    await audit(trx, {
      action: 'quiz.imported', actor, time: now, resource_type: 'quiz', resource_id: quiz.quizid, revisionid_before: sentRevision, revisionid_after: quiz_revisionid,
      changes: changesOf({ ...prev, category: quiz.category, enabled: quiz.enabled === 1 }, importedFields(q)),
    });
    return true;
  }).catch((e) => {
    if (e instanceof RevisionMoved) return false;
    throw e;
  });
  if (!won) throw conflict(await current());
}
class RevisionMoved extends Error {}

/** Attaches the quiz to the document (replacing the quiz attached there before). */
export async function attachQuiz(db: Db, clock: Clock, userid: number, quizid: number, doctype: 'guide' | 'wiki', docid: number, actor?: AuthUser): Promise<void> {
  const now = clock.now();
  await inTx(db, async (trx) => {
    const before = await trx.selectFrom('quiz_attachments').select('quizid').where('doctype', '=', doctype).where('docid', '=', docid).executeTakeFirst();
    await trx.insertInto('quiz_attachments').values({ doctype, docid, quizid, userid, date: now })
      .onConflict((oc) => oc.columns(['doctype', 'docid']).doUpdateSet({ quizid, userid, date: now })).execute();
    if (actor && before?.quizid !== quizid) {
      await audit(trx, { action: 'quiz.attached', actor, time: now, resource_type: 'quiz', resource_id: quizid, changes: { doctype: { new: doctype }, docid: { new: docid }, replaced_quizid: { new: before?.quizid ?? null } } });
    }
  });
}

/** Marks the quizzes deleted and takes them off their documents; a deleted one stays deleted. */
export async function deleteQuizzes(db: Db, clock: Clock, actor: AuthUser, quizids: number[]): Promise<void> {
  await inTx(db, async (trx) => {
    const gone = await trx.updateTable('quizzes').set({ deleted: 1 }).where('quizid', 'in', quizids).where('deleted', '=', 0).returning('quizid').execute();
    for (const { quizid } of gone) await audit(trx, { action: 'quiz.deleted', actor, time: clock.now(), resource_type: 'quiz', resource_id: quizid, changes: { deleted: { old: false, new: true } } });
    await trx.deleteFrom('quiz_attachments').where('quizid', 'in', quizids).execute();
  });
}

export interface SessionTarget {
  userid: number;
  quiz: QuizRow;
  doc: QuizDoc;
  response_json: string;
}

/** The open session of the user on the quiz and document, made when there is none, with the answers given; inside `trx`. */
async function openSession(trx: Db, clock: Clock, t: SessionTarget): Promise<SessionRow> {
  const now = clock.now();
  const key = (qb: any) => qb.where('userid', '=', t.userid).where('quizid', '=', t.quiz.quizid).where('doctype', '=', t.doc.doctype).where('docid', '=', t.doc.docid).where('open', '=', 1);
  const updated = await key(trx.updateTable('quiz_sessions').set({ response_json: t.response_json, last_modified: now })).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    await trx.insertInto('quiz_sessions').values({
      userid: t.userid, quizid: t.quiz.quizid, quiz_revisionid: t.quiz.quiz_revisionid, doctype: t.doc.doctype, docid: t.doc.docid, langid: t.doc.langid,
      doc_revisionid: t.doc.revisionid, response_json: t.response_json, init_date: now, last_modified: now, open: 1,
    }).execute();
  }
  return key(trx.selectFrom('quiz_sessions').selectAll()).executeTakeFirstOrThrow();
}

/** Refuses a session when the user has used up the attempts of the document's stage assessment (read inside the lock). */
async function checkAttempts(trx: Db, t: SessionTarget): Promise<void> {
  const limit = await attemptsLimit(trx, t.userid, t.doc.doctype, t.doc.docid);
  if (limit !== null && (await attemptsUsed(trx, t.userid, t.quiz.quizid, t.doc.doctype, t.doc.docid)) >= limit) {
    throw invalidField('quizid', `You have used up the ${limit} attempt(s) of this quiz on this document.`, 'attempts_used_up');
  }
}

const sessionLock = (t: SessionTarget) => `quiz_session:${t.userid}:${t.quiz.quizid}:${t.doc.doctype}:${t.doc.docid}`;

/** Saves answers in progress (the open session, made when there is none). */
export async function saveSession(db: Db, clock: Clock, t: SessionTarget): Promise<SessionRow> {
  return inTx(db, async (trx) => {
    await lockForTransaction(trx, sessionLock(t));
    await checkAttempts(trx, t);
    return openSession(trx, clock, t);
  });
}

/**
 * Submits the answers: the open session (made when there is none) is scored on the server
 * against its quiz revision, closed with `UPDATE ... WHERE open = 1` (rows counted: of two
 * submits one wins) and, when passed, completes the course stages it is attached to. The
 * scoring runs before the transaction, on the revision the session is (or will be) on: the
 * write lock is never held while survey-core works; should the session's revision differ
 * once inside (another request opened it meanwhile), the answers are scored again on it.
 */
export async function submitSession(db: Db, clock: Clock, t: SessionTarget, data: Record<string, unknown>, actor: ProgressActor): Promise<{ session: SessionRow; results: Array<{ name: string; correct: boolean }> }> {
  let revisionid = (await findOpenSession(db, t))?.quiz_revisionid ?? t.quiz.quiz_revisionid;
  for (let tries = 0; ; tries++) {
    const scored = await scoreOnRevision(db, revisionid, data);
    const done = await inTx(db, async (trx) => {
      await lockForTransaction(trx, sessionLock(t));
      await checkAttempts(trx, t);
      const open = await openSession(trx, clock, t);
      if (open.quiz_revisionid !== revisionid) return open.quiz_revisionid;
      const { result, passing_score } = scored;
      const passed = result.score >= passing_score ? 1 : 0;
      const now = clock.now();
      const r = await trx.updateTable('quiz_sessions').set({ end_date: now, score: result.score, passed, open: null, last_modified: now })
        .where('quiz_sessionid', '=', open.quiz_sessionid).where('open', '=', 1).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw invalidField('quizid', 'The session was submitted or cancelled meanwhile.', 'invalid_transition');
      await trx.updateTable('quizzes').set((eb) => ({ sessions_submitted: eb('sessions_submitted', '+', 1) })).where('quizid', '=', open.quizid).execute();
      // The submission's entry names the quiz, its revision and the result; never the answers (docs/audit.md).
      if (actor !== undefined) {
        await audit(trx, {
          action: 'quiz.submitted', actor, time: now, resource_type: 'quiz_session', resource_id: open.quiz_sessionid, revisionid_after: open.quiz_revisionid,
          changes: { quizid: { new: open.quizid }, doctype: { new: open.doctype }, docid: { new: open.docid }, doc_revisionid: { new: open.doc_revisionid }, score: { new: result.score }, passed: { new: passed === 1 } },
        });
      }
      if (passed) await completeQuizStages(trx, clock, { userid: t.userid, doctype: open.doctype, docid: open.docid, doc_revisionid: open.doc_revisionid, quiz_sessionid: open.quiz_sessionid, score: result.score, actor });
      return { session: (await findSession(trx, open.quiz_sessionid))!, results: result.results };
    });
    if (typeof done !== 'number') return done;
    if (tries >= 2) throw invalidField('quizid', 'The session changed while it was being submitted; submit again.', 'invalid_transition');
    revisionid = done;
  }
}

/** The user's open session on the quiz and document, if any (read outside a transaction: a hint that submitSession checks inside). */
const findOpenSession = (db: Db, t: SessionTarget) => db.selectFrom('quiz_sessions').select('quiz_revisionid')
  .where('userid', '=', t.userid).where('quizid', '=', t.quiz.quizid).where('doctype', '=', t.doc.doctype).where('docid', '=', t.doc.docid).where('open', '=', 1)
  .executeTakeFirst();

/** Scores answers on a quiz revision (its model built once and kept: quizzes.scoring.ts). */
export async function scoreOnRevision(db: Db, quiz_revisionid: number, data: Record<string, unknown>): Promise<{ result: QuizResult; passing_score: number }> {
  const rev = await db.selectFrom('quiz_revisions').select(['quiz_json', 'passing_score']).where('quiz_revisionid', '=', quiz_revisionid).executeTakeFirstOrThrow();
  return { result: quizModels.score(quiz_revisionid, rev.quiz_json, data), passing_score: rev.passing_score };
}

/**
 * Cancels sessions, all or none: each not cancelled yet (422 naming it otherwise). A
 * cancelled session no longer counts: not as an attempt, not as a pass.
 */
export async function cancelSessions(db: Db, clock: Clock, actor: AuthUser, sessions: SessionRow[], field: (i: number) => string): Promise<void> {
  const by = actor.userid;
  await inTx(db, async (trx) => {
    const now = clock.now();
    for (const [i, s] of sessions.entries()) {
      // Cancelling one's own submitted session is an override only an Admin gets (quizzes.routes.ts).
      const self_override = s.end_date !== null ? selfOverride(by, s.userid) : 0;
      const r = await trx.updateTable('quiz_sessions').set({ cancelled: 1, cancelled_by: by, self_override, open: null, last_modified: now })
        .where('quiz_sessionid', '=', s.quiz_sessionid).where('cancelled', '=', 0).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw unprocessable([{ field: field(i), code: 'invalid_transition', message: `Quiz session ${s.quiz_sessionid} is cancelled already.`, index: i }]);
      if (s.end_date !== null) await trx.updateTable('quizzes').set((eb) => ({ sessions_submitted: eb('sessions_submitted', '-', 1) })).where('quizid', '=', s.quizid).execute();
      await audit(trx, {
        action: 'quiz.session_cancelled', actor, time: now, resource_type: 'quiz_session', resource_id: s.quiz_sessionid, revisionid_before: s.quiz_revisionid,
        changes: { userid: { new: s.userid }, quizid: { new: s.quizid }, submitted: { new: s.end_date !== null }, cancelled: { old: false, new: true }, self_override: { new: self_override === 1 } },
      });
    }
  });
}

/** Cancels every session of a user that is not cancelled yet; answers how many. */
export async function invalidateUserSessions(db: Db, clock: Clock, actor: AuthUser, userid: number): Promise<number> {
  const by = actor.userid;
  return inTx(db, async (trx) => {
    const now = clock.now();
    const self_override = selfOverride(by, userid);
    const rows = await trx.updateTable('quiz_sessions').set({ cancelled: 1, cancelled_by: by, self_override, open: null, last_modified: now })
      .where('userid', '=', userid).where('cancelled', '=', 0).returning(['quiz_sessionid', 'quizid', 'quiz_revisionid', 'end_date', 'passed']).execute();
    for (const r of rows) {
      await audit(trx, {
        action: 'quiz.session_invalidated', actor, time: now, resource_type: 'quiz_session', resource_id: r.quiz_sessionid, revisionid_before: r.quiz_revisionid,
        changes: { userid: { new: userid }, quizid: { new: r.quizid }, submitted: { new: r.end_date !== null }, passed: { new: r.passed === 1 }, cancelled: { old: false, new: true }, self_override: { new: self_override === 1 } },
      });
    }
    const submitted = new Map<number, number>();
    for (const r of rows) if (r.end_date !== null) submitted.set(r.quizid, (submitted.get(r.quizid) ?? 0) + 1);
    for (const [quizid, n] of submitted) await trx.updateTable('quizzes').set((eb) => ({ sessions_submitted: eb('sessions_submitted', '-', n) })).where('quizid', '=', quizid).execute();
    return rows.length;
  });
}
