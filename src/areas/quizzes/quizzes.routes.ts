// Quizzes v2: quizzes in SurveyJS JSON (import, revisions, attach to guides and wikis,
// list, delete, categories) and the sessions in which learners take them (save, submit
// scored on the server, cancel, invalidate). Who may do what: quizzes.access.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, Id } from '../../http/schemas.js';
import { invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import {
  AttachGuideBody, AttachWikiBody, BulkCancelBody, CancelBody, DeleteBody, DeleteResult, GetQuizzesBody, ImportBody, InvalidateResult, ListQuery,
  OneQuery, Quiz, QuizCategory, QuizListEntry, QuizSession, QuizSubmission, SessionBody, SessionsList, SessionsQuery,
} from './quizzes.schemas.js';
import { nonMediaCount, validateQuizJson, type QuizJson } from './quizzes.scoring.js';
import {
  attachedQuizzes, attemptsUsed, findQuiz, findSession, listQuizEntries, listSessions, loadDoc, quizCategories, quizzesWithRevisions, type SessionRow,
} from './quizzes.queries.js';
import { managesQuizzes, readsDoc, readsSessionsOf, seesEveryAnswerKey } from './quizzes.access.js';
import { oversees } from '../shared/oversight.js';
import { quizRecords, sessionRecord } from './quizzes.records.js';
import { attachQuiz, cancelSessions, createQuiz, deleteQuizzes, invalidateUserSessions, reviseQuiz, saveSession, scoreOnRevision, submitSession } from './quizzes.service.js';
import { attemptsLimit } from './quizzes.courses.js';
import { sanitizeQuizHtml } from './quizzes.html.js';

const TAG = ['Quizzes'];
const MANAGE = 'Only Authors and Admins import, attach and delete quizzes.';

export async function quizzesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function oneQuiz(viewer: AuthUser | null, quizid: number, quiz_revisionid?: number) {
    const found = await quizzesWithRevisions(db, [quizid], quiz_revisionid ? new Map([[quizid, quiz_revisionid]]) : undefined);
    if (!found.length) return undefined;
    return (await quizRecords(db, viewer, found))[0];
  }

  async function usableQuiz(quizid: number, field = 'quizid') {
    const q = await findQuiz(db, quizid);
    if (!q || q.deleted) throw invalidField(field, `There is no quiz ${quizid}.`);
    return q;
  }

  app.post('/quizzes/import', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Import a quiz (SurveyJS JSON), or a new revision of one',
      description: 'Body: `quiz_json` (`{"title", "elements": [{"name", "type", "title", "choices"?, "correctAnswer"}]}`, validated element by element: a 422 names the element, e.g. `quiz_json.elements[2].correctAnswer`, and the problem), Limits, checked first: the JSON up to 256 KiB, 200 elements, 100 choices a question, objects nested 8 deep, an expression (`visibleIf`, `enableIf`, `...Expression`, `expression`) up to 1 000 characters, 100 terms and 8 brackets deep, 2 000 expression terms a quiz (422 `too_long` or `too_complex` naming the element). HTML (an `html` element, `completedHtml`) is sanitized to the elements and attributes of rendered wiki HTML. `title` (default `quiz_json.title`), `description`, `passing_score` (percentage, default 70), `category`, `enabled`. With `quizid` and its current `quiz_revisionid` it becomes a new revision of that quiz (409 with the current quiz when the revision moved); sessions keep the revision they were taken on. Authors and Admins. Answers 201 with the quiz, answer key included.',
      body: ImportBody,
      response: { 201: Quiz, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    forbiddenUnless(managesQuizzes(user), MANAGE);
    const b = request.body;
    const errors = validateQuizJson(b.quiz_json);
    const json = b.quiz_json as QuizJson;
    const title = (b.title ?? (errors.length ? '' : json.title) ?? '').trim();
    if (!errors.length && !title) errors.push({ field: 'title', code: 'missing_field', message: 'A quiz needs a title (title, or quiz_json.title).' });
    if (b.quizid !== undefined && b.quiz_revisionid === undefined) errors.push({ field: 'quiz_revisionid', code: 'missing_field', message: 'A new revision names the quiz\'s current quiz_revisionid.' });
    if (errors.length) throw unprocessable(errors);
    const values = { quiz_json: sanitizeQuizHtml(json), title: title.slice(0, 255), description: b.description, passing_score: b.passing_score, category: b.category?.trim(), enabled: b.enabled, non_media_count: nonMediaCount(json) };
    let quizid = b.quizid;
    if (quizid === undefined) quizid = await createQuiz(db, clock, user.userid, values, user);
    else {
      const q = await findQuiz(db, quizid);
      if (!q || q.deleted) throw notFound('Quiz');
      await reviseQuiz(db, clock, user, q, b.quiz_revisionid!, values, () => oneQuiz(user, q.quizid));
    }
    return reply.status(201).send((await oneQuiz(user, quizid))!);
  });

  app.get('/quizzes', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'List quizzes',
      description: 'Quizzes not deleted, a page (`offset`, `limit` 1 to 200, default 20) sorted by `sort` (`guideid`, `category`, `quiz_title`, `guide_title`, `release_date` (default: the date of the current revision), `sessions_submitted`) in `order` (`ASC` or `DESC`, default DESC), then by quizid. `category` keeps one category; `search` matches any part of the quiz title or of an attached guide\'s title. A quiz\'s `guideid` is the first guide it is attached to.',
      querystring: ListQuery,
      response: { 200: Type.Array(QuizListEntry), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const q = request.query;
    return listQuizEntries(db, config, { offset: q.offset, limit: q.limit, order: q.order ?? 'DESC', sort: q.sort ?? 'release_date', category: q.category, search: q.search?.trim() || undefined });
  });

  app.get('/quizzes/categories', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Quiz categories',
      description: 'Every category a quiz has, including those whose quizzes are disabled or deleted, by name.',
      response: { 200: Type.Array(QuizCategory), ...errorResponses(401) },
    },
  }, async () => quizCategories(db));

  app.post('/quizzes/getQuizzes', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Quizzes by ids or by the documents they are attached to',
      description: 'Body `{"quizids": [...], "documents": [{"doctype": "guide" | "wiki", "docid"}]}` (up to 100 each). Answers the quizzes found (deleted ones by id too, marked `deleted`), each once, by quizid; ids that name nothing are left out. `correctAnswer` is shown to Authors, Admins and team leads, and to a learner on a quiz they passed.',
      body: GetQuizzesBody,
      response: { 200: Type.Array(Quiz), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const ids = new Set(request.body.quizids ?? []);
    for (const a of await attachedQuizzes(db, request.body.documents ?? [])) ids.add(a.quizid);
    const found = await quizzesWithRevisions(db, [...ids]);
    found.sort((a, b) => a.quiz.quizid - b.quiz.quizid);
    return quizRecords(db, request.user, found);
  });

  app.get('/quizzes/:quizid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One quiz',
      description: 'The quiz at its current revision, or at `quiz_revisionid` (one of its revisions). `correctAnswer` is left out for learners until they passed it (Authors, Admins and team leads see it).',
      params: Type.Object({ quizid: Id() }),
      querystring: OneQuery,
      response: { 200: Quiz, ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    const quiz = await oneQuiz(request.user, request.params.quizid, request.query.quiz_revisionid);
    if (!quiz) throw notFound('Quiz');
    return quiz;
  });

  app.post('/quizzes/delete', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Delete quizzes',
      description: 'Body `{"quizids": [...]}` (1 to 100): each must exist (422 naming it). They are marked deleted and taken off their documents; sessions are kept. Deleting a deleted quiz changes nothing. Authors and Admins.',
      body: DeleteBody,
      response: { 200: DeleteResult, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    forbiddenUnless(managesQuizzes(user), MANAGE);
    const ids = request.body.quizids;
    const found = new Set((await db.selectFrom('quizzes').select('quizid').where('quizid', 'in', ids).execute()).map((r) => r.quizid));
    const errors: FieldError[] = [];
    ids.forEach((id, i) => { if (!found.has(id)) errors.push({ field: `quizids[${i}]`, code: 'invalid_value', message: `There is no quiz ${id}.`, index: i }); });
    if (errors.length) throw unprocessable(errors);
    const unique = [...new Set(ids)];
    await deleteQuizzes(db, clock, user, unique);
    return { deleted: unique };
  });

  async function attach(user: AuthUser, quizid: number, doctype: 'guide' | 'wiki', docid: number, field: string) {
    forbiddenUnless(managesQuizzes(user), MANAGE);
    const quiz = await usableQuiz(quizid);
    const doc = await loadDoc(db, config, doctype, docid);
    if (!doc) throw invalidField(field, `There is no ${doctype} ${docid}.`);
    await attachQuiz(db, clock, user.userid, quiz.quizid, doctype, docid, user);
    return (await oneQuiz(user, quiz.quizid))!;
  }

  app.post('/quizzes/attach/guide', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Attach a quiz to a guide',
      description: 'Body `{"quizid", "guideid"}`. The guide\'s quiz (replacing the one attached before): learners take it on the guide, and it assesses the course stages on that guide. Authors and Admins. Answers the quiz.',
      body: AttachGuideBody,
      response: { 200: Quiz, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => attach(requireUser(request), request.body.quizid, 'guide', request.body.guideid, 'guideid'));

  app.post('/quizzes/attach/wiki', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Attach a quiz to a wiki',
      description: 'Body `{"quizid", "wikiid"}`: as for a guide. Authors and Admins. Answers the quiz.',
      body: AttachWikiBody,
      response: { 200: Quiz, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => attach(requireUser(request), request.body.quizid, 'wiki', request.body.wikiid, 'wikiid'));

  /** The quiz and document of a session request, checked: the quiz is enabled and attached to the document, which the caller reads. */
  async function sessionTarget(user: AuthUser, b: { quizid: number; doctype: 'guide' | 'wiki'; docid: number; langid?: string; response_json: string }) {
    const quiz = await usableQuiz(b.quizid);
    if (!quiz.enabled) throw invalidField('quizid', `Quiz ${quiz.quizid} is disabled.`, 'quiz_disabled');
    const doc = await loadDoc(db, config, b.doctype, b.docid, b.langid);
    if (!doc) throw invalidField(b.langid ? 'langid' : 'docid', `There is no ${b.doctype} ${b.docid}${b.langid ? ` in ${b.langid}` : ''}.`);
    forbiddenUnless(await readsDoc(db, user, doc), `You may not read ${b.doctype} ${b.docid}.`);
    const attached = await attachedQuizzes(db, [doc]);
    if (attached[0]?.quizid !== quiz.quizid) throw invalidField('quizid', `Quiz ${quiz.quizid} is not attached to ${b.doctype} ${b.docid}.`, 'not_attached');
    let data: unknown;
    try {
      data = JSON.parse(b.response_json);
    } catch {
      throw invalidField('response_json', 'response_json must be a JSON object as text.');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw invalidField('response_json', 'response_json must be a JSON object as text.');
    return { target: { userid: user.userid, quiz, doc, response_json: b.response_json }, data: data as Record<string, unknown> };
  }

  async function submission(viewer: AuthUser, s: SessionRow, results: Array<{ name: string; correct: boolean }> | null) {
    const limit = await attemptsLimit(db, s.userid, s.doctype, s.docid);
    const used = await attemptsUsed(db, s.userid, s.quizid, s.doctype, s.docid);
    const usedUp = limit !== null && used >= limit && viewer.userid === s.userid ? new Set([s.quizid]) : new Set<number>();
    const found = await quizzesWithRevisions(db, [s.quizid], new Map([[s.quizid, s.quiz_revisionid]]));
    const [quiz] = await quizRecords(db, viewer, found, usedUp);
    return { session: sessionRecord(s), quiz, results, attempts_limit: limit, attempts_used: used, attempts_remaining: limit === null ? null : Math.max(0, limit - used) };
  }

  app.post('/quizzes/sessions/save', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Save answers in progress',
      description: 'Body `{"quizid", "doctype", "docid", "langid"?, "response_json"}`: the answers (SurveyJS data, a JSON object as text) of the caller\'s open session on that quiz and document, made when there is none (on the quiz\'s current revision and the document\'s current revision). The quiz must be enabled and attached to the document, which the caller reads; 422 `attempts_used_up` when the course stage assessment\'s attempts are used up. Answers the session.',
      body: SessionBody,
      response: { 200: QuizSession, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { target } = await sessionTarget(user, request.body);
    return sessionRecord(await saveSession(db, clock, target));
  });

  app.post('/quizzes/sessions/submit', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Submit answers: scored on the server',
      description: 'Body as for save. The open session (made when there is none) is scored against its quiz revision with SurveyJS\'s own model: `score` is the percentage of scored questions (visible, with a `correctAnswer`) answered correctly, `passed` when it reaches `passing_score`. A pass completes the caller\'s course stages assessed by this quiz on the document, at the document revision the session was taken on. The attempts limit is the stage assessment\'s `attempts_limit` (422 `attempts_used_up`). Answers the submission (the answer key shown once passed or the attempts are used up).',
      body: SessionBody,
      response: { 200: QuizSubmission, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { target, data } = await sessionTarget(user, request.body);
    const { session, results } = await submitSession(db, clock, target, data, user);
    return submission(user, session, results);
  });

  /** Sessions named, each existing (422 naming it) and one the caller may cancel: their own while open; Admins' and team leads' of their members. */
  async function cancellable(user: AuthUser, ids: number[], field: (i: number) => string) {
    const rows = ids.length ? await db.selectFrom('quiz_sessions').selectAll().where('quiz_sessionid', 'in', ids).execute() : [];
    const byId = new Map(rows.map((r) => [r.quiz_sessionid, r]));
    const errors: FieldError[] = [];
    ids.forEach((id, i) => { if (!byId.has(id)) errors.push({ field: field(i), code: 'invalid_value', message: `There is no quiz session ${id}.`, index: i }); });
    if (errors.length) throw unprocessable(errors);
    const out: SessionRow[] = [];
    for (const id of new Set(ids)) {
      const s = byId.get(id)!;
      const overseen = await oversees(db, user, s.userid);
      forbiddenUnless(overseen || s.userid === user.userid, `You may not cancel quiz session ${id}.`);
      if (!overseen && s.end_date !== null) throw unprocessable([{ field: field(ids.indexOf(id)), code: 'invalid_transition', message: `Quiz session ${id} is submitted; only an Admin or a team lead may cancel it.`, index: ids.indexOf(id) }]);
      out.push(s);
    }
    return out;
  }

  app.post('/quizzes/sessions/cancel', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Cancel a quiz session',
      description: 'Body `{"quiz_sessionid"}`. A learner cancels their own session in progress; Admins and the leads of the learner\'s team cancel any session of theirs, submitted ones too (a cancelled session counts neither as an attempt nor as a pass). A cancelled session is a 422. Answers the session.',
      body: CancelBody,
      'x-transition': true,
      response: { 200: QuizSession, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const [s] = await cancellable(user, [request.body.quiz_sessionid], () => 'quiz_sessionid');
    await cancelSessions(db, clock, user, [s], () => 'quiz_sessionid');
    return sessionRecord((await findSession(db, s.quiz_sessionid))!);
  });

  app.post('/quizzes/sessions/bulkCancel', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Cancel several quiz sessions',
      description: 'Body `{"quiz_sessionids": [...]}` (1 to 100), each as for cancel: all or none (a 403 or a 422 naming the first refused changes nothing). Answers the sessions.',
      body: BulkCancelBody,
      'x-transition': true,
      response: { 200: Type.Array(QuizSession), ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const ids = request.body.quiz_sessionids;
    const rows = await cancellable(user, ids, (i) => `quiz_sessionids[${i}]`);
    await cancelSessions(db, clock, user, rows, (i) => `quiz_sessionids[${ids.indexOf(rows[i].quiz_sessionid)}]`);
    const after = await db.selectFrom('quiz_sessions').selectAll().where('quiz_sessionid', 'in', rows.map((r) => r.quiz_sessionid)).orderBy('quiz_sessionid').execute();
    return after.map(sessionRecord);
  });

  app.patch('/quizzes/sessions/userInvalidateAll/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Invalidate all of a user\'s quiz sessions',
      description: 'Cancels every session of the user not cancelled yet (in progress and submitted): they count neither as attempts nor as passes, so the user takes the quizzes again. Admins and the leads of a team the user is in. Answers how many were cancelled.',
      params: Type.Object({ userid: Id() }),
      response: { 200: InvalidateResult, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const userid = request.params.userid;
    const exists = await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst();
    if (!exists) throw notFound('User');
    forbiddenUnless(await oversees(db, user, userid), 'Only Admins and the user\'s team leads invalidate a user\'s quiz sessions.');
    return { userid, invalidated: await invalidateUserSessions(db, clock, user, userid) };
  });

  app.get('/quizzes/sessions', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'List quiz sessions',
      description: 'Sessions newest first, a page (`offset`, `limit`), as `{"quizSessions": [...]}`. `query` matches any part of the quiz title; `userid` and `quizid` filter. A learner sees their own; a team lead theirs and their members\'; Admins everyone\'s (`userid` of someone else one may not see: 403).',
      querystring: SessionsQuery,
      response: { 200: SessionsList, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const q = request.query;
    if (q.userid !== undefined) forbiddenUnless(await readsSessionsOf(db, user, q.userid), 'Only the user, Admins and the user\'s team leads see a user\'s quiz sessions.');
    const scope = q.userid !== undefined || user.privileges.includes('Admin') ? 'all' : (await seesEveryAnswerKey(db, user)) ? 'led' : 'self';
    const rows = await listSessions(db, { offset: q.offset, limit: q.limit, userid: q.userid, quizid: q.quizid, query: q.query?.trim() || undefined, onlyUsers: scope, viewer: user.userid });
    return { quizSessions: rows.map((r) => ({ ...sessionRecord(r), quiz_title: r.quiz_title, username: r.username })) };
  });

  app.get('/quizzes/submissions/:sessionid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A quiz submission',
      description: 'The session, its quiz at the revision taken, which questions were answered correctly (`results`, null while in progress) and the attempts. The learner, Admins and the learner\'s team leads. `correctAnswer` as for the quiz (shown to the learner once passed or the attempts are used up).',
      params: Type.Object({ sessionid: Id() }),
      response: { 200: QuizSubmission, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const s = await findSession(db, request.params.sessionid);
    if (!s) throw notFound('Quiz session');
    forbiddenUnless(await readsSessionsOf(db, user, s.userid), 'Only the learner, Admins and the learner\'s team leads read a submission.');
    let results: Array<{ name: string; correct: boolean }> | null = null;
    if (s.end_date !== null) {
      results = (await scoreOnRevision(db, s.quiz_revisionid, JSON.parse(s.response_json) as Record<string, unknown>)).result.results;
    }
    return submission(user, s, results);
  });
}
