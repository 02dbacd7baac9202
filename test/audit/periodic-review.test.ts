// The audit log of periodic review: schedules created and deleted, documents put on a
// schedule (or moved) and taken off, reviews and change requests (the notes as reason); a
// refused change writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../helpers/factories.js';
import { makeGuide } from '../helpers/factories/guides.js';
import { auditCount, auditEntries } from './helpers.js';

const DAY = 86_400;
let author: TestUser;
let reviewer: TestUser;
let outsider: TestUser;

const t = appForFile({ config: { tokenTtl: 10 * 365 * DAY } }, async () => {
  [author, reviewer, outsider] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t)]);
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');
const schedule = async (body: Record<string, unknown>) => {
  const res = await t.post('/periodic_review', { token: author.token, body: { name: 'Audited schedule', recurrence: 'interval', interval_days: 30, window_days: 7, userids: [reviewer.userid], teamids: [], ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};

describe('audit log of periodic review', () => {
  it('records schedules, documents scheduled and unscheduled, reviews and change requests', async () => {
    const guide = await makeGuide(t, author);
    const before = await auditCount(t);
    expect((await t.post('/periodic_review', { token: outsider.token, body: { name: 'No', recurrence: 'interval', interval_days: 30, window_days: 7, userids: [reviewer.userid], teamids: [] } })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);

    const a = await schedule({ documents: [{ doctype: 'guide', docid: guide.guideid }] });
    const [created] = await auditEntries(t, { action: 'review.schedule_created', resource_id: a.prsid });
    expect([created.userid, created.resource_type]).toEqual([author.userid, 'review_schedule']);
    expect(changes(created)).toMatchObject({ name: { new: 'Audited schedule' }, interval_days: { new: 30 }, reviewer_userids: { new: String(reviewer.userid) } });
    const [scheduled] = await auditEntries(t, { action: 'review.scheduled' });
    expect([scheduled.userid, scheduled.resource_type, changes(scheduled).docid.new, changes(scheduled).prsid]).toEqual([author.userid, 'review_document', guide.guideid, { old: null, new: a.prsid }]);
    const prdid = scheduled.resource_id;

    // Moved to another schedule: one entry naming both; adding it again where it is changes nothing.
    const b = await schedule({});
    expect((await t.post('/periodic_review/documents', { token: author.token, body: { prsid: b.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] } })).statusCode).toBe(200);
    const n = await auditCount(t);
    expect((await t.post('/periodic_review/documents', { token: author.token, body: { prsid: b.prsid, documents: [{ doctype: 'guide', docid: guide.guideid }] } })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(n);
    const moves = await auditEntries(t, { action: 'review.scheduled', resource_id: prdid });
    expect(moves.map((e) => changes(e).prsid)).toEqual([{ old: null, new: a.prsid }, { old: a.prsid, new: b.prsid }]);

    // A change request (notes as reason), then a review that finds it still valid.
    t.clock.advance(31 * DAY);
    const m = await auditCount(t);
    expect((await t.post('/periodic_review/review', { token: outsider.token, body: { doctype: 'guide', docid: guide.guideid, status: 'still_valid' } })).statusCode).toBe(403);
    expect((await t.post('/periodic_review/review', { token: reviewer.token, body: { doctype: 'guide', docid: guide.guideid, status: 'change_request', notes: ' ' } })).statusCode).toBe(422);
    expect(await auditCount(t)).toBe(m);
    const cr = await t.post('/periodic_review/review', { token: reviewer.token, body: { doctype: 'guide', docid: guide.guideid, status: 'change_request', notes: 'Step 2 names the old torque.' } });
    expect(cr.statusCode, cr.body).toBe(201);
    const ok = await t.post('/periodic_review/review', { token: reviewer.token, body: { doctype: 'guide', docid: guide.guideid, status: 'still_valid' } });
    expect(ok.statusCode, ok.body).toBe(201);
    const reviews = (await auditEntries(t, { resource_type: 'review' })).filter((e) => changes(e).docid.new === guide.guideid);
    expect(reviews.map((e) => [e.action, e.userid, e.resource_id, e.reason, changes(e).prsid.new])).toEqual([
      ['review.change_requested', reviewer.userid, String(cr.json().reviewid), 'Step 2 names the old torque.', b.prsid],
      ['review.completed', reviewer.userid, String(ok.json().reviewid), null, b.prsid],
    ]);

    // Taken off its schedule; again is a 404 that writes nothing.
    expect((await t.del(`/periodic_review/documents/${prdid}`, { token: author.token })).statusCode).toBe(204);
    expect((await t.del(`/periodic_review/documents/${prdid}`, { token: author.token })).statusCode).toBe(404);
    const off = await auditEntries(t, { action: 'review.unscheduled', resource_id: prdid });
    expect(off.map((e) => [e.userid, changes(e).prsid])).toEqual([[author.userid, { old: b.prsid, new: null }]]);

    expect((await t.del(`/periodic_review/${a.prsid}`, { token: outsider.token })).statusCode).toBe(403);
    expect((await t.del(`/periodic_review/${a.prsid}`, { token: author.token })).statusCode).toBe(204);
    expect((await t.del(`/periodic_review/${a.prsid}`, { token: author.token })).statusCode).toBe(404);
    const gone = await auditEntries(t, { action: 'review.schedule_deleted', resource_id: a.prsid });
    expect(gone.map((e) => [e.userid, e.resource_type])).toEqual([[author.userid, 'review_schedule']]);
  });
});
