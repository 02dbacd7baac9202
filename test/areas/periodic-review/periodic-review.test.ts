// Periodic review over HTTP: schedules, their documents, reviews, a user's lists, search,
// the schedule of one document; every answer checked against its schema in the OpenAPI
// document (closed objects: an undocumented field fails), errors in the one error shape.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';

const DAY = 86_400;
let admin: TestUser;
let author: TestUser;
let reviewer: TestUser;
let member: TestUser;
let collaborator: TestUser;
let outsider: TestUser;
let team: { teamid: number };
let ops: Map<string, Operation>;

// The clock moves by months here: tokens outlive it.
const t = appForFile({ config: { tokenTtl: 10 * 365 * DAY } }, async () => {
  [admin, author, reviewer, member, collaborator, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, member);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

/** Expects `status` and a body that matches the operation's declared schema for it. */
function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}

const fieldsOf = (res: LightMyRequestResponse) => (res.json().errors ?? []).map((e: { field: string }) => e.field);
const count = async (table: 'review_schedules' | 'review_documents' | 'review_reviews') => (await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

/** A guide the collaborator (a plain user) may edit. */
async function collaboratedGuide() {
  const g = await makeGuide(t, author);
  await t.db.insertInto('guide_collaborators').values({ guideid: g.guideid, kind: 'user', memberid: collaborator.userid, added_by: author.userid, date: t.clock.now() }).execute();
  return g;
}

async function schedule(body: Record<string, unknown> = {}, who: TestUser = author) {
  const res = await t.post('/periodic_review', { token: who.token, body: { name: unique('Schedule '), recurrence: 'interval', interval_days: 30, window_days: 7, userids: [reviewer.userid], teamids: [team.teamid], ...body } });
  return checked(res, 'POST /periodic_review', 201);
}

describe('schedules', () => {
  it('POST: an Author creates one with reviewers and documents; 201 with its record; every due date from the time of adding', async () => {
    const guide = await makeGuide(t, author);
    const wiki = await makeWiki(t, author);
    const s = await schedule({ documents: [{ doctype: 'guide', docid: guide.guideid }, { doctype: 'wiki', docid: wiki.wikiid }] });
    expect(s).toMatchObject({ recurrence: 'interval', interval_days: 30, window_days: 7, month: null, day: null, creator: author.userid, created_date: t.clock.now(), num_documents: 2 });
    expect(s.reviewers.users.map((u: { userid: number }) => u.userid)).toEqual([reviewer.userid]);
    expect(s.reviewers.teams.map((x: { teamid: number }) => x.teamid)).toEqual([team.teamid]);
    expect(s.documents.map((d: any) => [d.doctype, d.docid, d.status, d.due_date, d.overdue_date])).toEqual([
      ['guide', guide.guideid, 'scheduled', t.clock.now() + 30 * DAY, t.clock.now() + 37 * DAY],
      ['wiki', wiki.wikiid, 'scheduled', t.clock.now() + 30 * DAY, t.clock.now() + 37 * DAY],
    ]);
    expect(s.documents[0].title).toBe(guide.title);
    const stored = await t.db.selectFrom('review_documents').selectAll().where('prsid', '=', s.prsid).orderBy('prdid').execute();
    expect(stored.map((d) => d.due_date)).toEqual([t.clock.now() + 30 * DAY, t.clock.now() + 30 * DAY]);
  });

  it('POST yearly: due on the next occurrence of the date (UTC); February 29 and missing fields are 422s naming them; nothing stored', async () => {
    const guide = await makeGuide(t, author);
    const s = await schedule({ recurrence: 'yearly', interval_days: undefined, month: 3, day: 1, window_days: 30, documents: [{ doctype: 'guide', docid: guide.guideid }] });
    const year = new Date(t.clock.now() * 1000).getUTCFullYear();
    const march = Date.UTC(year, 2, 1) / 1000;
    expect(s.documents[0].due_date).toBe(march > t.clock.now() ? march : Date.UTC(year + 1, 2, 1) / 1000);
    const before = await count('review_schedules');
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ recurrence: 'yearly', interval_days: undefined, month: 2, day: 29 }, 'day'],
      [{ recurrence: 'yearly', interval_days: undefined, month: 2 }, 'day'],
      [{ recurrence: 'interval', interval_days: undefined }, 'interval_days'],
      [{ interval_days: 30, month: 4 }, 'month'],
      [{ userids: [], teamids: [] }, 'userids'],
      [{ userids: [999_999] }, 'userids[0]'],
      [{ teamids: [999_998] }, 'teamids[0]'],
      [{ documents: [{ doctype: 'guide', docid: 999_997 }] }, 'documents[0].docid'],
      [{ window_days: 0 }, 'window_days'],
      [{ name: '   ' }, 'name'],
    ];
    for (const [body, field] of bad) {
      const res = await t.post('/periodic_review', { token: author.token, body: { name: 'x', recurrence: 'interval', interval_days: 30, window_days: 7, userids: [reviewer.userid], ...body } });
      checked(res, 'POST /periodic_review', 422);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect(await count('review_schedules')).toBe(before);
  });

  it('POST permissions: anonymous 401; a plain user 403 without documents or with one they may not edit, 201 with documents they edit', async () => {
    const body = { name: 'Mine', recurrence: 'interval', interval_days: 10, window_days: 2, userids: [reviewer.userid] };
    checked(await t.post('/periodic_review', { body }), 'POST /periodic_review', 401);
    checked(await t.post('/periodic_review', { token: collaborator.token, body }), 'POST /periodic_review', 403);
    // refused before the reviewers are looked up: no 422 tells them which user or team ids exist
    for (const reviewers of [{ userids: [999_999] }, { teamids: [999_998] }, { userids: [] }]) {
      checked(await t.post('/periodic_review', { token: collaborator.token, body: { ...body, ...reviewers } }), 'POST /periodic_review', 403);
    }
    const notMine = await makeGuide(t, author);
    const mine = await collaboratedGuide();
    const before = await count('review_schedules');
    const refused = await t.post('/periodic_review', { token: collaborator.token, body: { ...body, documents: [{ doctype: 'guide', docid: mine.guideid }, { doctype: 'guide', docid: notMine.guideid }] } });
    checked(refused, 'POST /periodic_review', 403);
    expect(await count('review_schedules')).toBe(before);
    const made = await schedule({ documents: [{ doctype: 'guide', docid: mine.guideid }] }, collaborator);
    expect(made.creator).toBe(collaborator.userid);
    // a wiki an Author may not edit (INFO) is refused even to an Author
    const info = await makeWiki(t, admin, { namespace: 'INFO', title: unique('Info ') });
    checked(await t.post('/periodic_review', { token: author.token, body: { ...body, documents: [{ doctype: 'wiki', docid: info.wikiid }] } }), 'POST /periodic_review', 403);
  });

  it('GET list and GET one: logged-in users; documents the caller may not read are left out of the page; 404 unknown', async () => {
    const priv = await makeGuide(t, author);
    const pub = await makePublishedGuide(t, author);
    const s = await schedule({ documents: [{ doctype: 'guide', docid: priv.guideid }, { doctype: 'guide', docid: pub.guideid }] });
    const list = checked(await t.get('/periodic_review?limit=200', { token: outsider.token }), 'GET /periodic_review', 200);
    expect(list.map((x: { prsid: number }) => x.prsid)).toContain(s.prsid);
    checked(await t.get('/periodic_review'), 'GET /periodic_review', 401);
    const seenByOutsider = checked(await t.get(`/periodic_review/${s.prsid}`, { token: outsider.token }), 'GET /periodic_review/{prsid}', 200);
    expect(seenByOutsider.documents.map((d: { docid: number }) => d.docid)).toEqual([pub.guideid]);
    expect(seenByOutsider.num_documents).toBe(2);
    const seenByAuthor = checked(await t.get(`/periodic_review/${s.prsid}`, { token: author.token }), 'GET /periodic_review/{prsid}', 200);
    expect(seenByAuthor.documents.map((d: { docid: number }) => d.docid)).toEqual([priv.guideid, pub.guideid]);
    checked(await t.get('/periodic_review/999999', { token: author.token }), 'GET /periodic_review/{prsid}', 404);
    checked(await t.get('/periodic_review/abc', { token: author.token }), 'GET /periodic_review/{prsid}', 422);
  });

  it('DELETE: its creator, Authors and Admins (403 others); documents leave review, reviews are kept', async () => {
    const mine = await collaboratedGuide();
    const s = await schedule({ documents: [{ doctype: 'guide', docid: mine.guideid }] }, collaborator);
    checked(await t.post('/periodic_review/review', { token: reviewer.token, body: { doctype: 'guide', docid: mine.guideid, status: 'change_request', notes: 'Fix step 1' } }), 'POST /periodic_review/review', 201);
    checked(await t.del(`/periodic_review/${s.prsid}`, { token: outsider.token }), 'DELETE /periodic_review/{prsid}', 403);
    checked(await t.del(`/periodic_review/${s.prsid}`, { token: collaborator.token }), 'DELETE /periodic_review/{prsid}', 204);
    checked(await t.del(`/periodic_review/${s.prsid}`, { token: collaborator.token }), 'DELETE /periodic_review/{prsid}', 404);
    expect(await t.db.selectFrom('review_documents').selectAll().where('prsid', '=', s.prsid).execute()).toEqual([]);
    const reviews = await t.db.selectFrom('review_reviews').selectAll().where('docid', '=', mine.guideid).where('doctype', '=', 'guide').execute();
    expect(reviews.map((r) => [r.kind, r.prsid])).toEqual([['change_request', null]]);
  });
});

describe('documents', () => {
  it('POST documents: adds guides and wikis, moves a document from another schedule; 422 unknown schedule or document; 403 a document the caller may not edit', async () => {
    const a = await schedule();
    const b = await schedule();
    const guide = await collaboratedGuide();
    const wiki = await makeWiki(t, author);
    const added = checked(await t.post('/periodic_review/documents', { token: author.token, body: { prsid: a.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }, { doctype: 'wiki', docid: wiki.wikiid }] } }), 'POST /periodic_review/documents', 200);
    expect(added.map((d: any) => [d.prsid, d.doctype, d.docid])).toEqual([[a.prsid, 'guide', guide.guideid], [a.prsid, 'wiki', wiki.wikiid]]);
    t.clock.advance(DAY);
    const moved = checked(await t.post('/periodic_review/documents', { token: collaborator.token, body: { prsid: b.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] } }), 'POST /periodic_review/documents', 200);
    expect(moved[0]).toMatchObject({ prdid: added[0].prdid, prsid: b.prsid, added_date: t.clock.now(), due_date: t.clock.now() + 30 * DAY });
    const before = await count('review_documents');
    const r1 = await t.post('/periodic_review/documents', { token: author.token, body: { prsid: 999_999, documents: [{ doctype: 'guide', docid: guide.guideid }] } });
    checked(r1, 'POST /periodic_review/documents', 422);
    expect(fieldsOf(r1)).toEqual(['prsid']);
    const r2 = await t.post('/periodic_review/documents', { token: author.token, body: { prsid: a.prsid, documents: [{ doctype: 'wiki', docid: 999_999 }] } });
    checked(r2, 'POST /periodic_review/documents', 422);
    expect(fieldsOf(r2)).toEqual(['documents[0].docid']);
    const r3 = await t.post('/periodic_review/documents', { token: author.token, body: { prsid: a.prsid, documents: [{ doctype: 'page', docid: 1 }] } });
    checked(r3, 'POST /periodic_review/documents', 422);
    const other = await makeGuide(t, author);
    checked(await t.post('/periodic_review/documents', { token: collaborator.token, body: { prsid: a.prsid, documents: [{ doctype: 'guide', docid: other.guideid }] } }), 'POST /periodic_review/documents', 403);
    checked(await t.post('/periodic_review/documents', { body: { prsid: a.prsid, documents: [{ doctype: 'guide', docid: other.guideid }] } }), 'POST /periodic_review/documents', 401);
    expect(await count('review_documents')).toBe(before);
  });

  it('DELETE documents (many) and DELETE documents/{prdid}: editors of each document; all or nothing', async () => {
    const s = await schedule();
    const mine = await collaboratedGuide();
    const notMine = await makeGuide(t, author);
    const docs = checked(await t.post('/periodic_review/documents', { token: author.token, body: { prsid: s.prsid, documents: [{ doctype: 'guide', docid: mine.guideid }, { doctype: 'guide', docid: notMine.guideid }] } }), 'POST /periodic_review/documents', 200);
    const [p1, p2] = docs.map((d: { prdid: number }) => d.prdid);
    checked(await t.del('/periodic_review/documents', { token: collaborator.token, body: { prdids: [p1, p2] } }), 'DELETE /periodic_review/documents', 403);
    const missing = await t.del('/periodic_review/documents', { token: author.token, body: { prdids: [p1, 999_999] } });
    checked(missing, 'DELETE /periodic_review/documents', 422);
    expect(fieldsOf(missing)).toEqual(['prdids[1]']);
    checked(await t.del('/periodic_review/documents', { token: author.token, body: {} }), 'DELETE /periodic_review/documents', 422);
    expect((await t.db.selectFrom('review_documents').select('prdid').where('prsid', '=', s.prsid).execute()).length).toBe(2);
    checked(await t.del(`/periodic_review/documents/${p2}`, { token: collaborator.token }), 'DELETE /periodic_review/documents/{id}', 403);
    checked(await t.del(`/periodic_review/documents/${p1}`, { token: collaborator.token }), 'DELETE /periodic_review/documents/{id}', 204);
    checked(await t.del(`/periodic_review/documents/${p1}`, { token: collaborator.token }), 'DELETE /periodic_review/documents/{id}', 404);
    checked(await t.del('/periodic_review/documents', { token: author.token, body: { prdids: [p2] } }), 'DELETE /periodic_review/documents', 204);
    expect((await t.db.selectFrom('review_documents').select('prdid').where('prsid', '=', s.prsid).execute()).length).toBe(0);
  });

  it('GET {doctype}/{docid}: the document\'s schedule and due state as the clock moves; nulls when on none; 404 unknown, 403 private', async () => {
    const guide = await makePublishedGuide(t, author);
    const path = `/periodic_review/guide/${guide.guideid}`;
    const none = checked(await t.get(path, { token: outsider.token }), 'GET /periodic_review/{doctype}/{docid}', 200);
    expect(none).toEqual({ doctype: 'guide', docid: guide.guideid, document: null, schedule: null });
    const s = await schedule({ interval_days: 10, window_days: 5, documents: [{ doctype: 'guide', docid: guide.guideid }] });
    const states: string[] = [];
    for (const step of [0, 10 * DAY - 1, 1, 5 * DAY - 1, 1]) {
      t.clock.advance(step);
      const body = checked(await t.get(path, { token: outsider.token }), 'GET /periodic_review/{doctype}/{docid}', 200);
      expect(body.schedule.prsid).toBe(s.prsid);
      states.push(body.document.status);
    }
    expect(states).toEqual(['scheduled', 'scheduled', 'due', 'due', 'overdue']);
    checked(await t.get('/periodic_review/guide/999999', { token: outsider.token }), 'GET /periodic_review/{doctype}/{docid}', 404);
    checked(await t.get(`/periodic_review/page/${guide.guideid}`, { token: outsider.token }), 'GET /periodic_review/{doctype}/{docid}', 422);
    const priv = await makeGuide(t, author);
    checked(await t.get(`/periodic_review/guide/${priv.guideid}`, { token: outsider.token }), 'GET /periodic_review/{doctype}/{docid}', 403);
    checked(await t.get(path), 'GET /periodic_review/{doctype}/{docid}', 401);
  });

  it('GET search/{searchTerm}: guides and wikis from the index, with their review document when scheduled', async () => {
    const word = `Zqx${process.pid}`;
    const guide = await makePublishedGuide(t, author, 0, { title: `${word} Pump Check` });
    const wiki = await makeWiki(t, author, { title: `${word} Wiki` });
    let hits = checked(await t.get(`/periodic_review/search/${word.toLowerCase()}`, { token: outsider.token }), 'GET /periodic_review/search/{searchTerm}', 200);
    expect(hits.map((h: any) => [h.doctype, h.docid, h.document])).toEqual([['wiki', wiki.wikiid, null], ['guide', guide.guideid, null]]);
    await schedule({ documents: [{ doctype: 'guide', docid: guide.guideid }] });
    hits = checked(await t.get(`/periodic_review/search/${word}%20pump?limit=5`, { token: outsider.token }), 'GET /periodic_review/search/{searchTerm}', 200);
    expect(hits.map((h: any) => [h.docid, h.title, h.document?.docid])).toEqual([[guide.guideid, guide.title, guide.guideid]]);
    // a private guide: found by those who read it only
    const priv = await makeGuide(t, author, { title: `${word} Private Procedure` });
    const byAuthor = checked(await t.get(`/periodic_review/search/${word}%20priv`, { token: author.token }), 'GET /periodic_review/search/{searchTerm}', 200);
    expect(byAuthor.map((h: any) => [h.doctype, h.docid, h.title])).toEqual([['guide', priv.guideid, priv.title]]);
    const byOutsider = checked(await t.get(`/periodic_review/search/${word}%20priv`, { token: outsider.token }), 'GET /periodic_review/search/{searchTerm}', 200);
    expect(byOutsider).toEqual([]);
    checked(await t.get(`/periodic_review/search/${word}?limit=500`, { token: outsider.token }), 'GET /periodic_review/search/{searchTerm}', 422);
    checked(await t.get(`/periodic_review/search/${word}`), 'GET /periodic_review/search/{searchTerm}', 401);
  });
});

describe('reviews', () => {
  it('POST review: reviewers (directly or through a team) and Admins; a change request needs notes and leaves the review due; still valid satisfies it and resolves the requests', async () => {
    const guide = await makeGuide(t, author);
    const s = await schedule({ interval_days: 20, window_days: 5, documents: [{ doctype: 'guide', docid: guide.guideid }] });
    const review = (who: TestUser, body: Record<string, unknown>) => t.post('/periodic_review/review', { token: who.token, body: { doctype: 'guide', docid: guide.guideid, ...body } });
    t.clock.advance(21 * DAY);
    const before = await count('review_reviews');
    checked(await review(outsider, { status: 'still_valid' }), 'POST /periodic_review/review', 403);
    checked(await review(author, { status: 'still_valid' }), 'POST /periodic_review/review', 403);
    const noNotes = await review(reviewer, { status: 'change_request', notes: '  ' });
    checked(noNotes, 'POST /periodic_review/review', 422);
    expect(fieldsOf(noNotes)).toEqual(['notes']);
    checked(await review(reviewer, { status: 'maybe' }), 'POST /periodic_review/review', 422);
    checked(await t.post('/periodic_review/review', { body: { doctype: 'guide', docid: guide.guideid, status: 'still_valid' } }), 'POST /periodic_review/review', 401);
    expect(await count('review_reviews')).toBe(before);

    const request = checked(await review(member, { status: 'change_request', notes: 'Step 2 names the old torque.' }), 'POST /periodic_review/review', 201);
    expect(request).toMatchObject({ kind: 'change_request', notes: 'Step 2 names the old torque.', prsid: s.prsid, date: t.clock.now(), due_date: null, resolved_date: null, title: guide.title });
    expect(request.user.userid).toBe(member.userid);
    let doc = checked(await t.get(`/periodic_review/guide/${guide.guideid}`, { token: author.token }), 'GET /periodic_review/{doctype}/{docid}', 200).document;
    expect(doc).toMatchObject({ status: 'due', open_change_requests: 1, last_reviewed_date: null });

    const requests = checked(await t.get(`/periodic_review/requests/${reviewer.userid}`, { token: reviewer.token }), 'GET /periodic_review/requests/{userid}', 200);
    expect(requests.map((r: { reviewid: number }) => r.reviewid)).toContain(request.reviewid);

    t.clock.advance(DAY);
    const valid = checked(await review(reviewer, { status: 'still_valid' }), 'POST /periodic_review/review', 201);
    expect(valid).toMatchObject({ kind: 'still_valid', due_date: doc.due_date, notes: '' });
    doc = checked(await t.get(`/periodic_review/guide/${guide.guideid}`, { token: author.token }), 'GET /periodic_review/{doctype}/{docid}', 200).document;
    expect(doc).toMatchObject({ status: 'scheduled', last_reviewed_date: t.clock.now(), due_date: t.clock.now() + 20 * DAY, open_change_requests: 0 });
    const open = checked(await t.get(`/periodic_review/requests/${reviewer.userid}`, { token: reviewer.token }), 'GET /periodic_review/requests/{userid}', 200);
    expect(open.map((r: { reviewid: number }) => r.reviewid)).not.toContain(request.reviewid);
    const resolved = checked(await t.get(`/periodic_review/requests/${reviewer.userid}?state=resolved`, { token: reviewer.token }), 'GET /periodic_review/requests/{userid}', 200);
    expect(resolved.find((r: { reviewid: number }) => r.reviewid === request.reviewid)).toMatchObject({ resolved_date: t.clock.now() });
    // an Admin reviews any document
    checked(await review(admin, { status: 'still_valid' }), 'POST /periodic_review/review', 201);
  });

  it('POST review: 404 for a document that does not exist, 422 not_scheduled for one on no schedule', async () => {
    const res = await t.post('/periodic_review/review', { token: admin.token, body: { doctype: 'wiki', docid: 999_999, status: 'still_valid' } });
    checked(res, 'POST /periodic_review/review', 404);
    const wiki = await makeWiki(t, author);
    const off = await t.post('/periodic_review/review', { token: admin.token, body: { doctype: 'wiki', docid: wiki.wikiid, status: 'still_valid' } });
    checked(off, 'POST /periodic_review/review', 422);
    expect(off.json().errors[0]).toMatchObject({ field: 'docid', code: 'not_scheduled' });
  });

  it('a user\'s reviews, review documents (by status) and change requests: the user, Authors and Admins; 403 others, 404 no such user', async () => {
    const lonely = await makeUser(t);
    const g1 = await makeGuide(t, author);
    const g2 = await makeGuide(t, author);
    const s = await schedule({ userids: [lonely.userid], teamids: [], interval_days: 3, window_days: 2, documents: [{ doctype: 'guide', docid: g1.guideid }] });
    t.clock.advance(DAY);
    checked(await t.post('/periodic_review/documents', { token: author.token, body: { prsid: s.prsid, documents: [{ doctype: 'guide', docid: g2.guideid }] } }), 'POST /periodic_review/documents', 200);
    t.clock.advance(2 * DAY); // g1 due now, g2 due in a day
    const docs = checked(await t.get(`/periodic_review/documents/${lonely.userid}`, { token: lonely.token }), 'GET /periodic_review/documents/{id}', 200);
    expect(docs.map((d: any) => [d.docid, d.status])).toEqual([[g1.guideid, 'due'], [g2.guideid, 'scheduled']]);
    const due = checked(await t.get(`/periodic_review/documents/${lonely.userid}?status=due`, { token: author.token }), 'GET /periodic_review/documents/{id}', 200);
    expect(due.map((d: { docid: number }) => d.docid)).toEqual([g1.guideid]);
    t.clock.advance(2 * DAY);
    const overdue = checked(await t.get(`/periodic_review/documents/${lonely.userid}?status=overdue`, { token: admin.token }), 'GET /periodic_review/documents/{id}', 200);
    expect(overdue.map((d: { docid: number }) => d.docid)).toEqual([g1.guideid]);
    checked(await t.get(`/periodic_review/documents/${lonely.userid}`, { token: outsider.token }), 'GET /periodic_review/documents/{id}', 403);
    checked(await t.get('/periodic_review/documents/999999', { token: admin.token }), 'GET /periodic_review/documents/{id}', 404);

    const r = checked(await t.post('/periodic_review/review', { token: lonely.token, body: { doctype: 'guide', docid: g2.guideid, status: 'change_request', notes: 'Outdated photo' } }), 'POST /periodic_review/review', 201);
    const reviews = checked(await t.get(`/periodic_review/reviews/${lonely.userid}`, { token: lonely.token }), 'GET /periodic_review/reviews/{userid}', 200);
    expect(reviews.map((x: { reviewid: number }) => x.reviewid)).toEqual([r.reviewid]);
    checked(await t.get(`/periodic_review/reviews/${lonely.userid}`, { token: outsider.token }), 'GET /periodic_review/reviews/{userid}', 403);
    checked(await t.get(`/periodic_review/reviews/${lonely.userid}`), 'GET /periodic_review/reviews/{userid}', 401);
    // the guide's owner sees the change request on their guide
    const forOwner = checked(await t.get(`/periodic_review/requests/${author.userid}`, { token: author.token }), 'GET /periodic_review/requests/{userid}', 200);
    expect(forOwner.map((x: { reviewid: number }) => x.reviewid)).toContain(r.reviewid);
    checked(await t.get(`/periodic_review/requests/${lonely.userid}`, { token: outsider.token }), 'GET /periodic_review/requests/{userid}', 403);
  });

  it('a guide released with "reviewed": true satisfies its due review from the moment it is released; without it, nothing changes', async () => {
    const guide = await makeGuide(t, author);
    await schedule({ interval_days: 30, window_days: 10, documents: [{ doctype: 'guide', docid: guide.guideid }] });
    t.clock.advance(31 * DAY);
    const state = async () => checked(await t.get(`/periodic_review/guide/${guide.guideid}`, { token: author.token }), 'GET /periodic_review/{doctype}/{docid}', 200).document;
    expect((await state()).status).toBe('due');
    const plain = await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } });
    expect(plain.statusCode, plain.body).toBe(201);
    expect((await state()).status).toBe('due');
    const bad = await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'minor', reviewed: 'yes' } });
    expect(bad.statusCode).toBe(422);
    t.clock.advance(3600);
    const released = await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'minor', notes: 'Reviewed: torque values current.', reviewed: true } });
    expect(released.statusCode, released.body).toBe(201);
    const doc = await state();
    expect(doc).toMatchObject({ status: 'scheduled', last_reviewed_date: t.clock.now(), due_date: t.clock.now() + 30 * DAY });
    const reviews = checked(await t.get(`/periodic_review/reviews/${author.userid}`, { token: author.token }), 'GET /periodic_review/reviews/{userid}', 200);
    expect(reviews[0]).toMatchObject({ kind: 'reviewed_release', releaseid: released.json().releaseid, docid: guide.guideid, date: t.clock.now(), notes: 'Reviewed: torque values current.' });
    expect((await t.db.selectFrom('guide_releases').select('reviewed').where('releaseid', '=', released.json().releaseid).executeTakeFirstOrThrow()).reviewed).toBe(1);
  });
});
