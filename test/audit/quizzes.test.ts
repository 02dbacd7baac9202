// The audit log of quizzes: imports (with the quiz revisions), attachments, deletions, and
// sessions submitted (score and passed, never the answers), cancelled and invalidated; a
// passed quiz's stage completion; refused changes write no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { ALL_CORRECT, HALF_CORRECT, QUIZ_JSON, makeCourse } from '../helpers/factories/assessments.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let learner: TestUser;
let lead: TestUser;
let other: TestUser;

const t = appForFile({}, async () => {
  [admin, author, learner, lead, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
  await makeTeam(t, lead, [{ user: learner }]);
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');
const session = (quizid: number, guideid: number, answers: unknown) => ({ quizid, doctype: 'guide', docid: guideid, response_json: JSON.stringify(answers) });

describe('audit log of quizzes', () => {
  it('records imports with their revisions, attachments and deletions', async () => {
    const before = await auditCount(t);
    expect((await t.post('/quizzes/import', { token: learner.token, body: { quiz_json: QUIZ_JSON } })).statusCode).toBe(403);
    expect((await t.post('/quizzes/import', { token: author.token, body: {} })).statusCode).toBe(422);
    expect(await auditCount(t)).toBe(before);

    const q = (await t.post('/quizzes/import', { token: author.token, body: { quiz_json: QUIZ_JSON, passing_score: 80, category: 'Safety' } })).json();
    const v2 = await t.post('/quizzes/import', { token: author.token, body: { quizid: q.quizid, quiz_revisionid: q.quiz_revisionid, quiz_json: { ...QUIZ_JSON, title: 'Lockout quiz v2' } } });
    expect(v2.statusCode, v2.body).toBe(201);
    // A stale revision (409) writes nothing.
    const n = await auditCount(t);
    expect((await t.post('/quizzes/import', { token: author.token, body: { quizid: q.quizid, quiz_revisionid: q.quiz_revisionid, quiz_json: QUIZ_JSON } })).statusCode).toBe(409);
    expect(await auditCount(t)).toBe(n);
    const imports = await auditEntries(t, { action: 'quiz.imported', resource_id: q.quizid });
    expect(imports.map((e) => [e.userid, e.resource_type, e.revisionid_before, e.revisionid_after])).toEqual([
      [author.userid, 'quiz', null, q.quiz_revisionid],
      [author.userid, 'quiz', q.quiz_revisionid, v2.json().quiz_revisionid],
    ]);
    expect(changes(imports[0])).toMatchObject({ title: { new: 'Lockout quiz' }, passing_score: { new: 80 } });
    expect(changes(imports[1]).title).toEqual({ old: 'Lockout quiz', new: 'Lockout quiz v2' });
    // The questions are referenced by the revision, not copied.
    expect(JSON.stringify(imports)).not.toContain('correctAnswer');

    const guide = await makePublishedGuide(t, author);
    expect((await t.post('/quizzes/attach/guide', { token: learner.token, body: { quizid: q.quizid, guideid: guide.guideid } })).statusCode).toBe(403);
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q.quizid, guideid: guide.guideid } })).statusCode).toBe(200);
    const m = await auditCount(t);
    // Attaching the same quiz again changes nothing.
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q.quizid, guideid: guide.guideid } })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(m);
    const attached = await auditEntries(t, { action: 'quiz.attached', resource_id: q.quizid });
    expect(attached.map((e) => [e.userid, changes(e).doctype.new, changes(e).docid.new, changes(e).replaced_quizid.new])).toEqual([[author.userid, 'guide', guide.guideid, null]]);

    expect((await t.post('/quizzes/delete', { token: admin.token, body: { quizids: [q.quizid] } })).statusCode).toBe(200);
    expect((await t.post('/quizzes/delete', { token: admin.token, body: { quizids: [q.quizid] } })).statusCode).toBe(200);
    const deleted = await auditEntries(t, { action: 'quiz.deleted', resource_id: q.quizid });
    expect(deleted.map((e) => [e.userid, e.resource_type])).toEqual([[admin.userid, 'quiz']]);
  });

  it('records submissions without the answers, the stage a pass completes, cancellations and invalidations', async () => {
    const guide = await makePublishedGuide(t, author);
    const q = (await t.post('/quizzes/import', { token: author.token, body: { quiz_json: QUIZ_JSON, passing_score: 75 } })).json();
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid: q.quizid, guideid: guide.guideid } })).statusCode).toBe(200);
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'quiz' }], [learner.userid]);

    const failed = (await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(q.quizid, guide.guideid, HALF_CORRECT) })).json();
    const passed = (await t.post('/quizzes/sessions/submit', { token: learner.token, body: session(q.quizid, guide.guideid, ALL_CORRECT) })).json();
    const submitted = await auditEntries(t, { action: 'quiz.submitted' });
    const mine = submitted.filter((e) => changes(e).quizid.new === q.quizid);
    expect(mine.map((e) => [e.userid, e.resource_type, e.resource_id, e.revisionid_after, changes(e).score.new, changes(e).passed.new, changes(e).doc_revisionid.new])).toEqual([
      [learner.userid, 'quiz_session', String(failed.session.quiz_sessionid), q.quiz_revisionid, 50, false, guide.revisionid],
      [learner.userid, 'quiz_session', String(passed.session.quiz_sessionid), q.quiz_revisionid, 100, true, guide.revisionid],
    ]);
    // Never the responses.
    expect(JSON.stringify(mine)).not.toMatch(/response|danger|verify|isolate/i);
    const [completion] = (await auditEntries(t, { action: 'course.stage_completed' })).filter((e) => changes(e).course_stageid.new === stageids[0]);
    expect([completion.userid, changes(completion).via.new, changes(completion).quiz_sessionid.new]).toEqual([learner.userid, 'quiz', passed.session.quiz_sessionid]);

    // Cancelling: refused for another user (403), recorded for the learner's lead.
    const before = await auditCount(t);
    expect((await t.post('/quizzes/sessions/cancel', { token: other.token, body: { quiz_sessionid: passed.session.quiz_sessionid } })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);
    expect((await t.post('/quizzes/sessions/cancel', { token: lead.token, body: { quiz_sessionid: passed.session.quiz_sessionid } })).statusCode).toBe(200);
    expect((await t.post('/quizzes/sessions/cancel', { token: lead.token, body: { quiz_sessionid: passed.session.quiz_sessionid } })).statusCode).toBe(422);
    const cancelled = await auditEntries(t, { action: 'quiz.session_cancelled', resource_id: passed.session.quiz_sessionid });
    expect(cancelled.map((e) => [e.userid, e.resource_type, e.revisionid_before, changes(e).userid.new, changes(e).submitted.new, changes(e).self_override.new]))
      .toEqual([[lead.userid, 'quiz_session', q.quiz_revisionid, learner.userid, true, false]]);

    // Invalidating every session of the learner: one entry per session not cancelled yet.
    expect((await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`, { token: other.token })).statusCode).toBe(403);
    const inv = await t.patch(`/quizzes/sessions/userInvalidateAll/${learner.userid}`, { token: lead.token });
    expect(inv.statusCode, inv.body).toBe(200);
    const invalidated = await auditEntries(t, { action: 'quiz.session_invalidated' });
    expect(invalidated.map((e) => [e.userid, e.resource_id, changes(e).passed.new])).toEqual([[lead.userid, String(failed.session.quiz_sessionid), false]]);
    expect(inv.json().invalidated).toBe(1);
  });
});
