// The audit log of courses: the course and its stages (with the course revisions), its
// assignments, and each user's stage progress (started, completed, a manager's override, an
// invalidation, expiry by the system); refused changes write no entry; a change through an
// impersonation token names both accounts.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { runExpiry } from '../../src/areas/courses/courses.service.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let lead: TestUser;
let member: TestUser;
let outsider: TestUser;
let teamid: number;

const t = appForFile({}, async () => {
  [admin, author, lead, member, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
  ({ teamid } = await makeTeam(t, lead, [{ user: member }]));
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');
const brief = (e: { userid: number | null; impersonator_userid: number | null; resource_type: string; resource_id: string }) => [e.userid, e.impersonator_userid, e.resource_type, e.resource_id];

describe('audit log of courses', () => {
  it('records a course created, edited (fields and stages) and deleted, with its revisions', async () => {
    const [g1, g2, g3] = await Promise.all([makePublishedGuide(t, author), makePublishedGuide(t, author), makePublishedGuide(t, author)]);
    const before = await auditCount(t);
    expect((await t.post('/courses', { token: member.token, body: { title: 'x', contents: 'y' } })).statusCode).toBe(403);
    expect((await t.post('/courses', { token: author.token, body: { title: 'x', contents: 'y', stages: [{ doctype: 'guide', docid: 999999 }] } })).statusCode).toBe(422);
    expect(await auditCount(t)).toBe(before);

    const created = await t.post('/courses', { token: author.token, body: { title: 'Audited course', contents: 'c', stages: [{ doctype: 'guide', docid: g1.guideid }, { doctype: 'guide', docid: g2.guideid }] } });
    expect(created.statusCode, created.body).toBe(201);
    const c = created.json();
    const made = await auditEntries(t, { resource_type: 'course', resource_id: c.wikiid });
    expect(made.map((e) => [e.action, ...brief(e), e.revisionid_before, e.revisionid_after])).toEqual([
      ['course.created', author.userid, null, 'course', String(c.wikiid), null, c.revisionid],
      ['course.stage_added', author.userid, null, 'course', String(c.wikiid), null, c.revisionid],
      ['course.stage_added', author.userid, null, 'course', String(c.wikiid), null, c.revisionid],
    ]);
    expect(changes(made[0]).title).toEqual({ new: 'Audited course' });
    expect(made.slice(1).map((e) => changes(e).course_stageid.new)).toEqual(c.stages.map((s: any) => s.course_stageid));

    // A stale revision (409) and a refused user (403) write nothing.
    const n = await auditCount(t);
    expect((await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid + 1000}`, { token: author.token, body: { title: 'Stale' } })).statusCode).toBe(409);
    expect((await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid}`, { token: member.token, body: { title: 'No' } })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(n);

    // Renamed; first stage kept as it was, second stage removed, a third added.
    const keep = { course_stageid: c.stages[0].course_stageid, doctype: 'guide', docid: g1.guideid };
    const edited = await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid}`, { token: author.token, body: { title: 'Renamed course', stages: [keep, { doctype: 'guide', docid: g3.guideid }] } });
    expect(edited.statusCode, edited.body).toBe(200);
    const e = edited.json();
    const edits = (await auditEntries(t, { resource_type: 'course', resource_id: c.wikiid })).slice(3);
    expect(edits.map((x) => [x.action, x.userid, x.revisionid_before, x.revisionid_after])).toEqual([
      ['course.edited', author.userid, c.revisionid, e.revisionid],
      ['course.stage_removed', author.userid, c.revisionid, e.revisionid],
      ['course.stage_added', author.userid, c.revisionid, e.revisionid],
    ]);
    expect(changes(edits[0])).toEqual({ title: { old: 'Audited course', new: 'Renamed course' } });
    expect(changes(edits[1]).course_stageid.new).toBe(c.stages[1].course_stageid);

    // Deleted once; a second delete (404) writes nothing.
    expect((await t.del(`/courses/${c.wikiid}`, { token: author.token })).statusCode).toBe(204);
    expect((await t.del(`/courses/${c.wikiid}`, { token: author.token })).statusCode).toBe(404);
    const deleted = await auditEntries(t, { action: 'course.deleted', resource_id: c.wikiid });
    expect(deleted.map((x) => [...brief(x), x.revisionid_before])).toEqual([[author.userid, null, 'course', String(c.wikiid), e.revisionid]]);
  });

  it('records assignments, stage progress, overrides, invalidations and expiry', async () => {
    const [g1, g2] = await Promise.all([makePublishedGuide(t, author), makePublishedGuide(t, author)]);
    const created = await t.post('/courses', { token: author.token, body: { title: 'Progress course', contents: 'c', stages: [{ doctype: 'guide', docid: g1.guideid, frequency_quantity: 1, frequency_unit: 'day' }, { doctype: 'guide', docid: g2.guideid }] } });
    expect(created.statusCode, created.body).toBe(201);
    const c = created.json();
    const [s1, s2] = c.stages.map((s: any) => s.course_stageid);

    const before = await auditCount(t);
    expect((await t.post('/course_assignments', { token: outsider.token, body: { wikiid: c.wikiid, assignee_teamid: teamid } })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);
    const assigned = await t.post('/course_assignments', { token: lead.token, body: { wikiid: c.wikiid, assignee_teamid: teamid } });
    expect(assigned.statusCode, assigned.body).toBe(201);
    const a = assigned.json();
    expect((await t.post('/course_assignments', { token: lead.token, body: { wikiid: c.wikiid, assignee_teamid: teamid } })).statusCode).toBe(422);
    const [assign] = await auditEntries(t, { resource_type: 'course_assignment', resource_id: a.course_assignmentid });
    expect([assign.action, ...brief(assign)]).toEqual(['course.assigned', lead.userid, null, 'course_assignment', String(a.course_assignmentid)]);
    expect(changes(assign)).toMatchObject({ wikiid: { new: c.wikiid }, assignee_teamid: { new: teamid } });

    // The learner starts and completes g1: two entries on the same completion row.
    expect((await t.patch(`/course_assignments/start/guide/${g1.guideid}`, { token: member.token })).statusCode).toBe(200);
    expect((await t.patch(`/course_assignments/complete/guide/${g1.guideid}`, { token: member.token })).statusCode).toBe(200);
    const n = await auditCount(t);
    // Completing again changes nothing and writes nothing.
    expect((await t.patch(`/course_assignments/complete/guide/${g1.guideid}`, { token: member.token })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(n);
    const progress = (await auditEntries(t, { resource_type: 'course_stage_completion' })).filter((e) => changes(e).wikiid.new === c.wikiid);
    expect(progress.map((e) => [e.action, e.userid, changes(e).course_stageid.new, changes(e).userid.new])).toEqual([
      ['course.stage_started', member.userid, s1, member.userid],
      ['course.stage_completed', member.userid, s1, member.userid],
    ]);
    expect(progress[0].resource_id).toBe(progress[1].resource_id);
    expect(changes(progress[1])).toMatchObject({ via: { new: 'explicit' }, doc_revisionid: { new: g1.revisionid } });

    // A lead's override of another user: refused for an outsider, recorded for the lead.
    const m = await auditCount(t);
    expect((await t.patch(`/course_assignments/User/completeAll/${member.userid}`, { token: outsider.token })).statusCode).toBe(403);
    expect((await t.patch(`/course_assignments/invalidate/guide/${g1.guideid}/${member.userid}`, { token: outsider.token })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(m);
    expect((await t.patch(`/course_assignments/User/completeAll/${member.userid}`, { token: lead.token, body: { wikiid: c.wikiid } })).json().changed).toBe(1);
    const [override] = (await auditEntries(t, { action: 'course.completion_overridden' })).filter((e) => changes(e).wikiid.new === c.wikiid);
    expect([override.userid, changes(override).course_stageid.new, changes(override).userid.new, changes(override).via.new, changes(override).self_override.new]).toEqual([lead.userid, s2, member.userid, 'manager', false]);

    // An Admin's override of their own account is marked self_override.
    expect((await t.post('/course_assignments', { token: admin.token, body: { wikiid: c.wikiid, assignee_userid: admin.userid } })).statusCode).toBe(201);
    const done = await t.post('/course_assignments/stage_completions', { token: admin.token, body: { completions: [{ userid: admin.userid, course_stageid: s2 }] } });
    expect(done.statusCode, done.body).toBe(200);
    const [own] = (await auditEntries(t, { action: 'course.completion_overridden' })).filter((e) => changes(e).userid.new === admin.userid);
    expect([own.userid, changes(own).via.new, changes(own).self_override.new]).toEqual([admin.userid, 'bulk', true]);

    // A lead invalidates the learner's g2 completion.
    expect((await t.patch(`/course_assignments/invalidate/guide/${g2.guideid}/${member.userid}`, { token: lead.token })).statusCode).toBe(200);
    const [inv] = (await auditEntries(t, { action: 'course.completion_invalidated' })).filter((e) => changes(e).wikiid.new === c.wikiid);
    expect([inv.userid, inv.resource_id, changes(inv).userid.new, changes(inv).course_stageid.new, changes(inv).status.new]).toEqual([lead.userid, override.resource_id, member.userid, s2, 'completed']);

    // Expiry of g1's daily recurrence: the system's entry.
    t.clock.advance(2 * 86_400);
    await runExpiry(t.db, t.clock.now());
    const [expired] = (await auditEntries(t, { action: 'course.completion_expired' })).filter((e) => changes(e).wikiid.new === c.wikiid);
    expect([expired.userid, expired.impersonator_userid, expired.request_id, expired.resource_id, changes(expired).userid.new]).toEqual([null, null, null, progress[0].resource_id, member.userid]);

    // Cancelling the assignment: once; the second (404) writes nothing.
    expect((await t.del(`/course_assignments/${a.course_assignmentid}`, { token: lead.token })).statusCode).toBe(204);
    expect((await t.del(`/course_assignments/${a.course_assignmentid}`, { token: lead.token })).statusCode).toBe(404);
    const cancelled = await auditEntries(t, { action: 'course.assignment_cancelled', resource_id: a.course_assignmentid });
    expect(cancelled.map(brief)).toEqual([[lead.userid, null, 'course_assignment', String(a.course_assignmentid)]]);
  });

  it('a completion through an impersonation token names both accounts', async () => {
    const g = await makePublishedGuide(t, author);
    const created = await t.post('/courses', { token: author.token, body: { title: 'Impersonated course', contents: 'c', stages: [{ doctype: 'guide', docid: g.guideid }] } });
    const c = created.json();
    expect((await t.post('/course_assignments', { token: admin.token, body: { wikiid: c.wikiid, assignee_userid: outsider.userid } })).statusCode).toBe(201);
    const imp = await t.post('/user/token/impersonate', { token: admin.token, body: { userid: outsider.userid } });
    expect(imp.statusCode).toBe(201);
    expect((await t.patch(`/course_assignments/complete/guide/${g.guideid}`, { token: imp.json().authToken })).statusCode).toBe(200);
    const [entry] = (await auditEntries(t, { action: 'course.stage_completed' })).filter((e) => changes(e).wikiid.new === c.wikiid);
    expect([entry.userid, entry.impersonator_userid]).toEqual([outsider.userid, admin.userid]);
  });
});
