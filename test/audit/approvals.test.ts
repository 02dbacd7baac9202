// The audit log of approvals: processes created, edited, attached to and detached from
// categories; requests opened, every signature with its meaning, cancellations, and the
// release an approval publishes. A refused change writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { makeCategoryAt } from '../areas/approvals/helpers.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let first: TestUser;
let second: TestUser;

const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  first = await makeUser(t);
  second = await makeUser(t);
});

describe('audit log of approvals', () => {
  it('records each change of a process, each signature with its meaning, and the release an approval publishes', async () => {
    const created = await t.post('/approvals/process', { token: admin.token, body: { name: 'Audited release', stages: [{ userid: first.userid }, { userid: second.userid }] } });
    expect(created.statusCode, created.body).toBe(201);
    const p = created.json();
    const patched = await t.patch(`/approvals/process/${p.approval_processid}?revisionid=${p.revisionid}`, { token: admin.token, body: { name: 'Audited release 2' } });
    expect(patched.statusCode, patched.body).toBe(200);
    const cat = await makeCategoryAt(t);
    expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(200);

    const processEntries = await auditEntries(t, { resource_type: 'approval_process', resource_id: p.approval_processid });
    expect(processEntries.map((e) => e.action)).toEqual(['approval_process.created', 'approval_process.edited', 'approval_process.attached']);
    for (const e of processEntries) expect(e.userid).toBe(admin.userid);
    expect(processEntries[1].revisionid_before).toBe(p.revisionid);
    expect(processEntries[1].revisionid_after).toBe(patched.json().revisionid);
    expect(JSON.parse(processEntries[1].changes!)).toEqual({ name: { old: 'Audited release', new: 'Audited release 2' } });

    // A request: opened by the release, approved by the first stage, rejected by the second.
    const g = await makePublishedGuide(t, author, 0, { category: cat.title, title: 'Audited approval guide' });
    const release = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', notes: 'For approval' } });
    expect(release.statusCode, release.body).toBe(201);
    const requestid = release.json().approval_requestid;
    // Refused: a wrong password and the wrong signer write nothing.
    const before = await auditCount(t);
    expect((await t.post(`/approvals/request/sign/${requestid}`, { token: first.token, body: { status: 'approve', password: 'wrong password', notes: '' } })).statusCode).toBe(403);
    expect((await t.post(`/approvals/request/sign/${requestid}`, { token: second.token, body: { status: 'approve', password: second.password, notes: '' } })).statusCode).toBeGreaterThanOrEqual(400);
    expect((await t.post(`/approvals/request/${requestid}/cancel`, { token: author.token })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);

    const signed = await t.post(`/approvals/request/sign/${requestid}`, { token: first.token, body: { status: 'approve', password: first.password, notes: 'Looks right' } });
    expect(signed.statusCode, signed.body).toBe(200);
    const rejected = await t.post(`/approvals/request/sign/${requestid}`, { token: second.token, body: { status: 'reject', password: second.password, notes: 'Step 2 is wrong' } });
    expect(rejected.statusCode, rejected.body).toBe(200);
    const requestEntries = await auditEntries(t, { resource_type: 'approval_request', resource_id: requestid });
    expect(requestEntries.map((e) => [e.action, e.userid, e.meaning, e.revisionid_after])).toEqual([
      ['approval.requested', author.userid, null, g.revisionid],
      ['approval.signed', first.userid, `approved: stage 1 (user ${first.userid})`, g.revisionid],
      ['approval.signed', second.userid, `rejected: stage 2 (user ${second.userid})`, g.revisionid],
    ]);
    expect(requestEntries[1].reason).toBe('Looks right');
    expect(JSON.stringify(requestEntries)).not.toContain(first.password);

    // Approved through both stages: the release an approval publishes is recorded on the guide.
    const again = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } });
    const id2 = again.json().approval_requestid;
    expect((await t.post(`/approvals/request/sign/${id2}`, { token: first.token, body: { status: 'approve', password: first.password, notes: '' } })).statusCode).toBe(200);
    expect((await t.post(`/approvals/request/sign/${id2}`, { token: second.token, body: { status: 'approve', password: second.password, notes: '' } })).statusCode).toBe(200);
    const released = await auditEntries(t, { action: 'approval.released' });
    expect(released.map((e) => [e.resource_type, e.resource_id, e.userid, e.revisionid_after])).toEqual([['guide', String(g.guideid), second.userid, g.revisionid]]);

    // Cancelled by an Admin; then the process detached.
    const third = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'minor' } });
    const id3 = third.json().approval_requestid;
    expect((await t.post(`/approvals/request/${id3}/cancel`, { token: admin.token })).statusCode).toBe(200);
    expect((await auditEntries(t, { resource_type: 'approval_request', resource_id: id3 })).map((e) => [e.action, e.userid])).toEqual([
      ['approval.requested', author.userid], ['approval.cancelled', admin.userid],
    ]);
    expect((await t.del(`/approvals/${cat.wikiid}`, { token: admin.token })).statusCode).toBe(204);
    const n = await auditCount(t);
    expect((await t.del(`/approvals/${cat.wikiid}`, { token: admin.token })).statusCode).toBe(404);
    expect(await auditCount(t)).toBe(n);
    const detached = await auditEntries(t, { action: 'approval_process.detached' });
    expect(detached.map((e) => [e.resource_id, e.userid])).toEqual([[String(p.approval_processid), admin.userid]]);
  });
});
