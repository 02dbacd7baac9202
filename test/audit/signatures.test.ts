// Signatures that show their meaning (issue 63, item 5): an approval signature and a
// sign-off response carry the signer's printed name (as they signed: a later rename does not
// change it), the time and the meaning, the same meaning and time their audit entry records;
// the signing requests are sent as before.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { makeCourse } from '../helpers/factories/assessments.js';
import { makeCategoryAt, makeProcess } from '../areas/approvals/helpers.js';
import { auditEntries } from './helpers.js';

let admin: TestUser, author: TestUser, first: TestUser, member: TestUser, lead: TestUser, trainee: TestUser;
let team: { teamid: number; name: string };

const t = appForFile({}, async () => {
  [admin, author, first, member, lead, trainee] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: member }]);
});

const rename = (u: TestUser, username: string) => t.db.updateTable('users').set({ username, username_lower: username.toLowerCase() }).where('userid', '=', u.userid).execute();

describe('signatures show the signer\'s printed name, the time and the meaning', () => {
  it('approval signatures: the name as signed, sign_date and meaning equal to the approval.signed entry', async () => {
    const p = await makeProcess(t, admin.token, [{ userid: first.userid }, { teamid: team.teamid, num_required: 1 }]);
    const cat = await makeCategoryAt(t);
    expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    const g = await makePublishedGuide(t, author, 0, { category: cat.title, title: 'Signed guide' });
    const release = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } });
    expect(release.statusCode, release.body).toBe(201);
    const id = release.json().approval_requestid as number;

    t.clock.advance(60);
    const signed = await t.post(`/approvals/request/sign/${id}`, { token: first.token, body: { status: 'approve', password: first.password, notes: 'Checked' } });
    expect(signed.statusCode, signed.body).toBe(200);
    t.clock.advance(60);
    const rejected = await t.post(`/approvals/request/sign/${id}`, { token: member.token, body: { status: 'reject', password: member.password } });
    expect(rejected.statusCode, rejected.body).toBe(200);

    const entries = await auditEntries(t, { resource_type: 'approval_request', resource_id: id, action: 'approval.signed' });
    expect(entries.map((e) => [e.userid, e.meaning])).toEqual([
      [first.userid, `approved: stage 1 (user ${first.userid})`],
      [member.userid, `rejected: stage 2 (team ${team.teamid})`],
    ]);
    // Renamed after signing: the signature keeps the name it was signed under.
    await rename(first, 'First Renamed');
    const record = (await t.get(`/approvals/request/${id}`, { token: admin.token })).json();
    const sigs = record.stages.map((s: { signatures: unknown[] }) => s.signatures[0]);
    expect(sigs[0]).toMatchObject({ signer_name: first.username, status: 'approve', meaning: entries[0].meaning, sign_date: entries[0].time, notes: 'Checked' });
    expect(sigs[0].user.username).toBe('First Renamed');
    expect(sigs[1]).toMatchObject({ signer_name: member.username, status: 'reject', meaning: entries[1].meaning, sign_date: entries[1].time });
    expect(entries[1].time - entries[0].time).toBe(60);
  });

  it('sign-off responses: the trainer\'s name as they responded, completed_at and meaning equal to the signoff.responded entry', async () => {
    const guide = await makePublishedGuide(t, author);
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'signoff', teamid_signer: team.teamid }], [trainee.userid]);
    const asked = await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: stageids[0] } });
    expect(asked.statusCode, asked.body).toBe(201);
    // Unanswered: no signer, no meaning.
    expect(asked.json()).toMatchObject({ signer_name: null, meaning: null, completed_at: null });
    const id = asked.json().signoff_requestid as number;
    t.clock.advance(30);
    const answered = await t.patch('/courses/stage-sign-offs/responses', { token: member.token, body: { signoff_requestid: id, response_value: 'pass', response_feedback: 'Clean isolation.' } });
    expect(answered.statusCode, answered.body).toBe(200);
    const [entry] = await auditEntries(t, { resource_type: 'signoff_request', resource_id: id, action: 'signoff.responded' });
    expect(entry.meaning).toBe(`passed: course stage ${stageids[0]}`);
    expect(answered.json()).toMatchObject({ signer_name: member.username, meaning: entry.meaning, completed_at: entry.time, userid_requestee: member.userid, response_value: 'pass' });

    await rename(member, 'Member Renamed');
    const listed = (await t.get(`/courses/stage-sign-offs/responses/unacknowledged/${trainee.userid}`, { token: trainee.token })).json();
    const mine = listed.find((r: { signoff_requestid: number }) => r.signoff_requestid === id);
    expect(mine).toMatchObject({ signer_name: member.username, requestee_name: 'Member Renamed', meaning: entry.meaning });
  });
});
