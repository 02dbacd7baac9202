// The audit log of the work log: entries started, moved through their statuses (the notes
// as reason), finished (with the course stage it completes), deleted; a refused change
// writes no entry; a change through an impersonation token names both accounts.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { makeCourse } from '../helpers/factories/assessments.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let user: TestUser;
let other: TestUser;

const t = appForFile({}, async () => {
  [admin, author, user, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t)]);
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');

describe('audit log of the work log', () => {
  it('records entries started, paused, suspended, assumed, finished and deleted', async () => {
    const guide = await makePublishedGuide(t, author);
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid }], [other.userid]);
    const before = await auditCount(t);
    expect((await t.post('/work_log', { token: user.token, body: { guideid: 999_999 } })).statusCode).toBe(422);
    expect(await auditCount(t)).toBe(before);

    const started = await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: 'WO-7', notes: 'Night shift' } });
    expect(started.statusCode, started.body).toBe(201);
    const entryid = started.json().entryid;
    expect((await t.post(`/work_log/${entryid}/pause`, { token: other.token })).statusCode).toBe(403);
    expect((await t.post(`/work_log/${entryid}/resume`, { token: user.token })).statusCode).toBe(422);
    expect((await t.post(`/work_log/${entryid}/pause`, { token: user.token })).statusCode).toBe(200);
    expect((await t.post(`/work_log/${entryid}/suspend`, { token: user.token, body: { notes: 'Waiting for parts' } })).statusCode).toBe(200);
    expect((await t.post(`/work_log/${entryid}/assume`, { token: other.token })).statusCode).toBe(200);
    expect((await t.post(`/work_log/${entryid}/finish`, { token: other.token })).statusCode).toBe(200);
    const entries = await auditEntries(t, { resource_type: 'work_log_entry', resource_id: entryid });
    expect(entries.map((e) => [e.action, e.userid, changes(e)?.status ?? null])).toEqual([
      ['work_log.started', user.userid, { new: 'started' }],
      ['work_log.paused', user.userid, { old: 'started', new: 'paused' }],
      ['work_log.suspended', user.userid, { old: 'paused', new: 'suspended' }],
      ['work_log.assumed', other.userid, { old: 'suspended', new: 'started' }],
      ['work_log.finished', other.userid, { old: 'started', new: 'complete' }],
    ]);
    expect(changes(entries[0])).toMatchObject({ guideid: { new: guide.guideid }, guide_revisionid: { new: guide.revisionid }, workorderid: { new: 'WO-7' } });
    expect(entries[0].reason).toBe('Night shift');
    expect(entries[2].reason).toBe('Waiting for parts');
    expect(changes(entries[3]).userid).toEqual({ old: user.userid, new: other.userid });
    // The finish completed the performer's stage, in the same request.
    const [stage] = (await auditEntries(t, { action: 'course.stage_completed' })).filter((e) => changes(e).course_stageid.new === stageids[0]);
    expect([stage.userid, stage.request_id, changes(stage).via.new, changes(stage).work_log_entryid.new]).toEqual([other.userid, entries[4].request_id, 'work_log', entryid]);

    // Deleting: refused for a user who is not its creator alone (403), done by an Admin once.
    const n = await auditCount(t);
    expect((await t.del(`/work_log/${entryid}`, { token: user.token })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(n);
    expect((await t.del(`/work_log/${entryid}`, { token: admin.token })).statusCode).toBe(204);
    expect((await t.del(`/work_log/${entryid}`, { token: admin.token })).statusCode).toBe(404);
    const deleted = await auditEntries(t, { action: 'work_log.deleted', resource_id: entryid });
    expect(deleted.map((e) => [e.userid, e.resource_type])).toEqual([[admin.userid, 'work_log_entry']]);
  });

  it('a change through an impersonation token names both accounts', async () => {
    const guide = await makePublishedGuide(t, author);
    const imp = await t.post('/user/token/impersonate', { token: admin.token, body: { userid: user.userid } });
    expect(imp.statusCode).toBe(201);
    const started = await t.post('/work_log', { token: imp.json().authToken, body: { guideid: guide.guideid } });
    expect(started.statusCode, started.body).toBe(201);
    const [entry] = await auditEntries(t, { action: 'work_log.started', resource_id: started.json().entryid });
    expect([entry.userid, entry.impersonator_userid]).toEqual([user.userid, admin.userid]);
  });
});
