// Periodic review: schedules that recur yearly on a date or every N days with a
// completion window, the guides and wikis on them, and the reviews of those documents
// (still valid, a change request, or a guide released with "reviewed": true). Due dates
// are stored on each document (review.due.ts) and reminders are mailed by a job
// (review.jobs.ts). Who may do what: review.access.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id, OffsetLimit } from '../../http/schemas.js';
import { invalidField, notFound, unauthorized, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { searchDocs } from '../../db/search.js';
import { NAMESPACES } from '../wikis/wikis.schemas.js';
import { guideUrl } from '../guides/guides.urls.js';
import { guideRowReadable } from '../guides/guides.access.js';
import {
  DocumentSchedule, DocumentSearchResult, DocumentsAdd, DocumentsQuery, DocumentsRemove, Doctype, PageQuery, RequestsQuery,
  Review, ReviewCreate, ReviewDocument, ReviewSchedule, ReviewScheduleDetail, ScheduleCreate, type DocRef,
} from './review.schemas.js';
import {
  docKey, documentsSelect, findDocumentOf, findSchedule, loadTargets, titleAndUrl, type DocTarget, type ScheduleRow,
} from './review.queries.js';
import { documentRecords, reviewRecords, scheduleRecords } from './review.records.js';
import {
  editsDocument, managesSchedules, mayDeleteSchedule, readableDocuments, readsDocument, readsUserLists, reviewsFor, schedulesReviewedBy,
} from './review.access.js';
import { addDocuments, createSchedule, deleteSchedule, recordReview, removeDocuments } from './review.service.js';
import { DAYS_IN_MONTH } from './review.due.js';

const TAG = ['Periodic review'];
const ScheduleParam = Type.Object({ prsid: Id() });
const UserParam = Type.Object({ userid: Id() });

export async function reviewRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existingSchedule(prsid: number): Promise<ScheduleRow> {
    const row = await findSchedule(db, prsid);
    if (!row) throw notFound('Review schedule');
    return row;
  }

  /** The documents named, each existing (422 naming it otherwise) and editable by the caller (403 otherwise). */
  async function editableTargets(user: AuthUser, refs: DocRef[], field: string): Promise<DocTarget[]> {
    const targets = await loadTargets(db, refs);
    const errors: FieldError[] = [];
    refs.forEach((r, i) => {
      if (!targets.has(docKey(r))) errors.push({ field: `${field}[${i}].docid`, code: 'invalid_value', message: `There is no ${r.doctype} ${r.docid}.`, index: i });
    });
    if (errors.length) throw unprocessable(errors);
    const unique = [...new Map(refs.map((r) => [docKey(r), targets.get(docKey(r))!])).values()];
    for (const t of unique) {
      forbiddenUnless(await editsDocument(db, config, user, t), `You may not edit ${t.doctype} ${t.docid}, so you may not set its review schedule.`);
    }
    return unique;
  }

  async function detail(s: ScheduleRow, viewer: AuthUser | null, page: { offset: number; limit: number }) {
    const [record] = await scheduleRecords(db, config, [s]);
    const rows = await documentsSelect(db).where('d.prsid', '=', s.prsid).where(readableDocuments(db, viewer, 'd'))
      .orderBy('d.prdid').limit(page.limit).offset(page.offset).execute();
    return { ...record, documents: await documentRecords(db, config, rows, clock.now()) };
  }

  function checkUserList(request: { user: AuthUser | null }, userid: number) {
    const user = request.user;
    if (!user) throw unauthorized();
    forbiddenUnless(readsUserLists(user, userid), 'Only the user, Authors and Admins see a user\'s reviews.');
  }
  async function existingUser(userid: number) {
    const row = await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst();
    if (!row) throw notFound('User');
  }

  app.post('/periodic_review', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Create a review schedule',
      description: 'Body: `name`; `recurrence` `yearly` (with `month` and `day`: every year on that date, UTC) or `interval` (with `interval_days`: that many days after the last review); `window_days`, the days to complete a review once it is due (overdue after); the reviewers, `userids` and/or `teamids` (at least one; any member of a team reviews); optionally `documents` ([{doctype, docid}], guides and wikis) to put on it at once. Authors and Admins create schedules; anyone else when every document named is one they may edit (and at least one is named). Answers 201 with the schedule and its documents.',
      body: ScheduleCreate,
      response: { 201: ReviewScheduleDetail, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    // Who may create comes before what is checked of the body: the reviewer ids' 422s would
    // otherwise tell a caller who may not create a schedule which users and teams exist.
    const documents = b.documents ?? [];
    forbiddenUnless(managesSchedules(user) || documents.length > 0, 'Only Authors and Admins create a review schedule without documents; name the documents you may edit.');
    const errors: FieldError[] = [];
    const name = b.name.trim();
    if (!name) errors.push({ field: 'name', code: 'invalid_value', message: 'name must not be blank.' });
    if (b.recurrence === 'yearly') {
      if (b.month === undefined) errors.push({ field: 'month', code: 'missing_field', message: 'A yearly schedule needs month and day.' });
      if (b.day === undefined) errors.push({ field: 'day', code: 'missing_field', message: 'A yearly schedule needs month and day.' });
      if (b.month !== undefined && b.day !== undefined && b.day > DAYS_IN_MONTH[b.month - 1]) errors.push({ field: 'day', code: 'invalid_value', message: `Month ${b.month} has no day ${b.day} every year.` });
      if (b.interval_days !== undefined) errors.push({ field: 'interval_days', code: 'invalid_value', message: 'interval_days is for interval schedules.' });
    } else {
      if (b.interval_days === undefined) errors.push({ field: 'interval_days', code: 'missing_field', message: 'An interval schedule needs interval_days.' });
      for (const f of ['month', 'day'] as const) if (b[f] !== undefined) errors.push({ field: f, code: 'invalid_value', message: `${f} is for yearly schedules.` });
    }
    const userids = b.userids ?? [];
    const teamids = b.teamids ?? [];
    if (!userids.length && !teamids.length) errors.push({ field: 'userids', code: 'missing_field', message: 'A schedule needs at least one reviewer (userids or teamids).' });
    if (userids.length) {
      const found = new Set((await db.selectFrom('users').select('userid').where('userid', 'in', userids).execute()).map((r) => r.userid));
      userids.forEach((id, i) => { if (!found.has(id)) errors.push({ field: `userids[${i}]`, code: 'invalid_value', message: `There is no user ${id}.`, index: i }); });
    }
    if (teamids.length) {
      const found = new Set((await db.selectFrom('teams').select('teamid').where('teamid', 'in', teamids).execute()).map((r) => r.teamid));
      teamids.forEach((id, i) => { if (!found.has(id)) errors.push({ field: `teamids[${i}]`, code: 'invalid_value', message: `There is no team ${id}.`, index: i }); });
    }
    if (errors.length) throw unprocessable(errors);
    const targets = await editableTargets(user, documents, 'documents');
    const prsid = await createSchedule(db, clock, user, {
      name, recurrence: b.recurrence, month: b.month ?? null, day: b.day ?? null, interval_days: b.interval_days ?? null, window_days: b.window_days, userids, teamids,
    }, targets);
    return reply.status(201).send(await detail(await existingSchedule(prsid), user, { offset: 0, limit: 20 }));
  });

  app.get('/periodic_review', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'List review schedules, ordered by prsid',
      description: 'Every schedule, with its reviewers and its number of documents.',
      querystring: PageQuery,
      response: { 200: Type.Array(ReviewSchedule), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const rows = await db.selectFrom('review_schedules').selectAll().orderBy('prsid').limit(request.query.limit).offset(request.query.offset).execute();
    return scheduleRecords(db, config, rows);
  });

  app.get('/periodic_review/:prsid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A review schedule with its documents',
      description: 'The schedule and a page (`offset`, `limit`) of its documents, by prdid: those the caller reads (`num_documents` counts them all).',
      params: ScheduleParam,
      querystring: PageQuery,
      response: { 200: ReviewScheduleDetail, ...errorResponses(401, 404, 422) },
    },
  }, async (request) => detail(await existingSchedule(request.params.prsid), request.user, request.query));

  app.delete('/periodic_review/:prsid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a review schedule',
      description: 'Its creator, Authors and Admins. Its documents leave review; the reviews recorded are kept.',
      params: ScheduleParam,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const s = await existingSchedule(request.params.prsid);
    forbiddenUnless(mayDeleteSchedule(user, s), 'Only the schedule\'s creator, Authors and Admins may delete it.');
    if (!(await deleteSchedule(db, clock, user, s.prsid))) throw notFound('Review schedule');
    return reply.status(204).send(null);
  });

  app.post('/periodic_review/documents', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Add documents to a review schedule',
      description: 'Body `{"prsid", "documents": [{"doctype": "guide" | "wiki", "docid"}]}` (1 to 100). Every document must exist (422 naming it) and be one the caller may edit (403): whoever may edit a document may set its schedule. A document on another schedule moves to this one, keeping its last review. Its first review comes due by the schedule from now. Answers the review documents named, in order.',
      body: DocumentsAdd,
      response: { 200: Type.Array(ReviewDocument), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const s = await findSchedule(db, request.body.prsid);
    if (!s) throw invalidField('prsid', `There is no review schedule ${request.body.prsid}.`);
    const targets = await editableTargets(user, request.body.documents, 'documents');
    await addDocuments(db, clock, s, targets, user);
    const rows = await documentsSelect(db).where('d.prsid', '=', s.prsid)
      .where((eb) => eb.or(targets.map((t) => eb.and([eb('d.doctype', '=', t.doctype), eb('d.docid', '=', t.docid)])))).execute();
    const byKey = new Map(rows.map((r) => [docKey(r), r]));
    return documentRecords(db, config, targets.map((t) => byKey.get(docKey(t))!).filter(Boolean), clock.now());
  });

  /** The review documents named by prdid, each removable by the caller: who may edit the document (or, once it is gone, Authors and Admins). */
  async function removable(user: AuthUser, prdids: number[], field: (i: number) => string) {
    const rows = await db.selectFrom('review_documents').selectAll().where('prdid', 'in', prdids).execute();
    const byId = new Map(rows.map((r) => [r.prdid, r]));
    const missing = prdids.map((id, i) => [id, i] as const).filter(([id]) => !byId.has(id));
    if (missing.length) return { missing: missing.map(([id, i]) => ({ field: field(i), code: 'invalid_value', message: `There is no review document ${id}.`, index: i })), rows };
    const targets = await loadTargets(db, rows);
    for (const r of rows) {
      const t = targets.get(docKey(r));
      forbiddenUnless(t ? await editsDocument(db, config, user, t) : managesSchedules(user), `You may not edit ${r.doctype} ${r.docid}, so you may not take it off its review schedule.`);
    }
    return { missing: [], rows };
  }

  app.delete('/periodic_review/documents', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Remove documents from their review schedules',
      description: 'Body `{"prdids": [...]}` (1 to 100 review document ids). Each must exist (422 naming it) and be a document the caller may edit (403). All or nothing.',
      body: DocumentsRemove,
      response: { 204: Empty, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const { missing } = await removable(user, request.body.prdids, (i) => `prdids[${i}]`);
    if (missing.length) throw unprocessable(missing);
    if (!(await removeDocuments(db, clock, user, request.body.prdids))) throw invalidField('prdids', 'A review document named was removed meanwhile; nothing was removed.');
    return reply.status(204).send(null);
  });

  // This path and the next are one path in the document (`{id}`, described per operation):
  // the specification names the parameter `prdid` here and `userid` there.
  app.delete('/periodic_review/documents/:id', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Remove one document from its review schedule',
      description: 'Whoever may edit the document.',
      params: Type.Object({ id: Id({ description: 'The review document (its `prdid`).' }) }),
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const prdid = request.params.id;
    const { missing } = await removable(user, [prdid], () => 'prdid');
    if (missing.length || !(await removeDocuments(db, clock, user, [prdid]))) throw notFound('Review document');
    return reply.status(204).send(null);
  });

  app.get('/periodic_review/documents/:id', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Review documents of a user',
      description: 'The documents on the schedules the user reviews (directly or through a team), soonest due first; `status` keeps those scheduled (not yet due), due (within the completion window) or overdue. The user, Authors and Admins.',
      params: Type.Object({ id: Id({ description: 'The user (their `userid`) whose documents are listed.' }) }),
      querystring: DocumentsQuery,
      response: { 200: Type.Array(ReviewDocument), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const userid = request.params.id;
    checkUserList(request, userid);
    await existingUser(userid);
    const q = request.query;
    const now = clock.now();
    let sel = documentsSelect(db).where('d.prsid', 'in', schedulesReviewedBy(db, userid));
    if (q.status === 'scheduled') sel = sel.where('d.due_date', '>', now);
    if (q.status === 'due') sel = sel.where('d.due_date', '<=', now).where('d.overdue_date', '>', now);
    if (q.status === 'overdue') sel = sel.where('d.overdue_date', '<=', now);
    const rows = await sel.orderBy('d.due_date').orderBy('d.prdid').limit(q.limit).offset(q.offset).execute();
    return documentRecords(db, config, rows, now);
  });

  app.get('/periodic_review/reviews/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Reviews of a user',
      description: 'The reviews the user recorded (still valid, change requests, reviewed releases), newest first. The user, Authors and Admins.',
      params: UserParam,
      querystring: PageQuery,
      response: { 200: Type.Array(Review), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    checkUserList(request, request.params.userid);
    await existingUser(request.params.userid);
    const rows = await db.selectFrom('review_reviews').selectAll().where('userid', '=', request.params.userid)
      .orderBy('reviewid', 'desc').limit(request.query.limit).offset(request.query.offset).execute();
    return reviewRecords(db, config, rows);
  });

  app.get('/periodic_review/requests/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Change requests on documents for a user',
      description: 'Change requests on the documents of the schedules the user reviews and on the guides the user owns, newest first; `state` open (the default: no later still-valid review or reviewed release yet), resolved or all. The user, Authors and Admins.',
      params: UserParam,
      querystring: RequestsQuery,
      response: { 200: Type.Array(Review), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const userid = request.params.userid;
    checkUserList(request, userid);
    await existingUser(userid);
    const q = request.query;
    let sel = db.selectFrom('review_reviews as r').selectAll('r').where('r.kind', '=', 'change_request')
      .where((eb) => eb.or([
        eb.exists(eb.selectFrom('review_documents as d').select('d.prdid').whereRef('d.doctype', '=', 'r.doctype').whereRef('d.docid', '=', 'r.docid')
          .where('d.prsid', 'in', schedulesReviewedBy(db, userid))),
        eb.and([eb('r.doctype', '=', 'guide'), eb('r.docid', 'in', eb.selectFrom('guides').select('guides.guideid').where('guides.userid', '=', userid))]),
      ]));
    if (q.state === 'open') sel = sel.where('r.resolved_date', 'is', null);
    if (q.state === 'resolved') sel = sel.where('r.resolved_date', 'is not', null);
    const rows = await sel.orderBy('r.reviewid', 'desc').limit(q.limit).offset(q.offset).execute();
    return reviewRecords(db, config, rows);
  });

  app.post('/periodic_review/review', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Create a review for a document',
      description: 'Body `{"doctype", "docid", "status": "still_valid" | "change_request", "notes"}`: a reviewer of the document\'s schedule (directly or through a team) or an Admin records that the document is still valid, which satisfies its review (the next one comes due by the schedule from now, and open change requests on it are resolved), or requests changes (`notes` required), which leaves the review due. The document must be on a schedule (422 `not_scheduled`). A guide released with `"reviewed": true` (POST /guides/releases) also counts as a still-valid review. Answers 201 with the review.',
      body: ReviewCreate,
      response: { 201: Review, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    const target = (await loadTargets(db, [b])).get(docKey(b));
    if (!target) throw notFound(b.doctype === 'guide' ? 'Guide' : 'Wiki');
    const notes = (b.notes ?? '').trim();
    if (b.status === 'change_request' && !notes) throw invalidField('notes', 'A change request needs notes saying what should change.', 'missing_field');
    const doc = await findDocumentOf(db, b.doctype, b.docid);
    if (!doc) throw invalidField('docid', `${b.doctype} ${b.docid} is on no review schedule.`, 'not_scheduled');
    const s = await existingSchedule(doc.prsid);
    forbiddenUnless(await reviewsFor(db, user, s.prsid), 'Only the reviewers of the document\'s schedule and Admins may review it.');
    const reviewid = await recordReview(db, clock, user, doc, s, b.status, notes);
    if (reviewid === null) throw invalidField('docid', `${b.doctype} ${b.docid} left its review schedule meanwhile; nothing was recorded.`, 'not_scheduled');
    const row = await db.selectFrom('review_reviews').selectAll().where('reviewid', '=', reviewid).executeTakeFirstOrThrow();
    return reply.status(201).send((await reviewRecords(db, config, [row]))[0]);
  });

  app.get('/periodic_review/search/:searchTerm', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Search documents by term',
      description: 'Guides and wikis in which every word of the term starts a word, best first (the full-text index of GET /suggest, in every language; private guides too, each language only to those who read it), each with its review document when it is on a schedule. Paged by `offset` and `limit` over the matches (a page holds fewer when some are private to the caller); at most the index\'s bounded candidates are ranked.',
      params: Type.Object({ searchTerm: Type.String({ minLength: 1, maxLength: 200 }) }),
      querystring: Type.Object({ ...OffsetLimit }),
      response: { 200: Type.Array(DocumentSearchResult), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const found = await searchDocs(db, request.params.searchTerm, { targets: [{ type: 'guide' }, { type: 'wiki', namespaces: [...NAMESPACES] }], includeHidden: true }, request.query);
    // Private guides are found too, each language only by those who read it (one query for the page).
    const guideHits = found.filter((h) => h.type === 'guide');
    const readable = new Set(guideHits.length
      ? (await db.selectFrom('guides as g').select(['g.guideid', 'g.langid']).where('g.guideid', 'in', guideHits.map((h) => h.id)).where('g.deleted', '=', 0)
        .where(guideRowReadable(request.user, 'g')).execute()).map((g) => `${g.guideid}:${g.langid}`)
      : []);
    const hits = found.filter((h) => h.type !== 'guide' || readable.has(`${h.id}:${h.langid}`));
    const refs = hits.map((h) => ({ doctype: h.type, docid: h.id }));
    const targets = await loadTargets(db, refs);
    const docs = refs.length
      ? await documentsSelect(db).where((eb) => eb.or(refs.map((r) => eb.and([eb('d.doctype', '=', r.doctype), eb('d.docid', '=', r.docid)])))).execute()
      : [];
    const records = new Map((await documentRecords(db, config, docs, clock.now())).map((d) => [docKey(d), d]));
    return hits.flatMap((h) => {
      const ref = { doctype: h.type, docid: h.id };
      const t = targets.get(docKey(ref));
      if (!t) return [];
      const g = t.guideRows.find((r) => r.langid === h.langid);
      const shown = g ? { title: g.title, url: guideUrl(config, g.guideid, g.title, g.langid) } : titleAndUrl(config, t, ref);
      return [{ doctype: h.type as 'guide' | 'wiki', docid: h.id, langid: h.langid, ...shown, document: records.get(docKey(ref)) ?? null }];
    });
  });

  app.get('/periodic_review/:doctype/:docid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Schedule of one document',
      description: 'The review document (its due date and status) and its schedule; both null when the document is on no schedule. 404 when the document does not exist, 403 when the caller may not read it.',
      params: Type.Object({ doctype: Doctype, docid: Id() }),
      response: { 200: DocumentSchedule, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const { doctype, docid } = request.params;
    const target = (await loadTargets(db, [{ doctype, docid }])).get(docKey({ doctype, docid }));
    if (!target) throw notFound(doctype === 'guide' ? 'Guide' : 'Wiki');
    forbiddenUnless(await readsDocument(db, request.user, target), 'This guide is private.');
    const doc = await documentsSelect(db).where('d.doctype', '=', doctype).where('d.docid', '=', docid).executeTakeFirst();
    if (!doc) return { doctype, docid, document: null, schedule: null };
    const [[document], [schedule]] = await Promise.all([
      documentRecords(db, config, [doc], clock.now()),
      scheduleRecords(db, config, [await existingSchedule(doc.prsid)]),
    ]);
    return { doctype, docid, document, schedule };
  });
}
