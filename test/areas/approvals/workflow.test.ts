import { describe, expect, it } from 'vitest';
import { appForFile, buildTestApp } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { expectSchema } from '../../helpers/schema.js';
import { ApprovalRequest } from '../../../src/areas/approvals/approvals.schemas.js';
import { Release } from '../../../src/areas/guides/guides.schemas.js';
import { eventsOf, mailedTokens, makeCategoryAt, makeProcess, subscribeToApprovals } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let reader: TestUser;
let signer: TestUser;
let m1: TestUser;
let m2: TestUser;
let m3: TestUser;
let teamid: number;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  reader = await makeUser(t);
  signer = await makeUser(t);
  m1 = await makeUser(t);
  m2 = await makeUser(t);
  m3 = await makeUser(t);
  // the signer of stage 1 is also in the team of stage 2
  teamid = (await makeTeam(t, m1, [{ user: m2 }, { user: m3 }, { user: signer }])).teamid;
  await subscribeToApprovals(t);
});

/** A guide in a category under a fresh process; answers both. */
async function guideUnderProcess(stages: Array<Record<string, number>>, extra: Record<string, unknown> = {}) {
  const process = await makeProcess(t, admin.token, stages, extra);
  const cat = await makeCategoryAt(t);
  const guide = await makePublishedGuide(t, author, 1, { category: cat.title, title: 'Approved title' });
  expect((await t.put(`/approvals/${cat.wikiid}/${process.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
  return { process, guide, cat };
}

const sign = (token: string, id: number, body: Record<string, unknown>) => t.post(`/approvals/request/sign/${id}`, { token, body });
const approve = (u: TestUser, id: number, notes = '') => sign(u.token, id, { status: 'approve', password: u.password, notes });
const getRequest = async (u: TestUser, id: number) => {
  const res = await t.get(`/approvals/request/${id}`, { token: u.token });
  expect(res.statusCode).toBe(200);
  expectSchema(ApprovalRequest, res.json());
  return res.json();
};
const signatureCount = async (id: number) => Number((await t.db.selectFrom('approval_signatures').select((eb) => eb.fn.countAll<number>().as('n')).where('approval_requestid', '=', id).executeTakeFirstOrThrow()).n);
const readerSees = async (guideid: number, u: TestUser | null = reader) => t.get(`/guides/${guideid}`, u ? { token: u.token } : {});

describe('a release under a process: user stage, then a team stage needing two signatures', () => {
  it('goes from request to released; readers see the approved revision before and after', async () => {
    const { guide } = await guideUnderProcess([{ userid: signer.userid }, { teamid, num_required: 2 }]);
    const approvedRev = guide.revisionid;
    // an edit after the guide came under the process is a draft readers do not see
    const edited = (await t.patch(`/guides/${guide.guideid}?revisionid=${guide.revisionid}`, { token: author.token, body: { title: 'Draft title' } })).json();
    expect((await readerSees(guide.guideid)).json()).toMatchObject({ revisionid: approvedRev, title: 'Approved title' });
    expect((await readerSees(guide.guideid, null)).json()).toMatchObject({ revisionid: approvedRev, title: 'Approved title' });
    expect((await readerSees(guide.guideid, author)).json()).toMatchObject({ revisionid: edited.revisionid, title: 'Draft title' });
    expect((await t.get(`/guides/${guide.guideid}?released=true`, { token: author.token })).json().revisionid).toBe(approvedRev);
    // readers may not ask for the draft by its revisionid; editors may
    expect((await t.get(`/guides/${guide.guideid}?revisionid=${edited.revisionid}`, { token: reader.token })).statusCode).toBe(404);
    expect((await t.get(`/guides/${guide.guideid}?revisionid=${edited.revisionid}`, { token: author.token })).statusCode).toBe(200);

    const res = await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major', notes: 'For approval' } });
    expect(res.statusCode).toBe(201);
    const release = res.json();
    expectSchema(Release, release);
    expect(release).toMatchObject({ status: 'pending', revisionid: edited.revisionid, release_date: null, approval_requestid: expect.any(Number) });
    const id = release.approval_requestid;

    let r = await getRequest(author, id);
    expect(r).toMatchObject({ status: 'pending', is_satisfiable: true, end_date: null, guide: { guideid: guide.guideid, langid: 'en', title: 'Draft title' }, release: { releaseid: release.releaseid, status: 'pending' } });
    expect(r.stages.map((s: { status: string }) => s.status)).toEqual(['pending', 'waiting']);
    expect(r.stages[1]).toMatchObject({ user: null, team: { teamid }, num_required: 2 });
    // the signer of stage 1 got a mailed token; the team not yet
    let tokens = await mailedTokens(t, id);
    expect([...tokens.keys()]).toEqual([signer.email]);

    // readers who neither edit nor sign may not read the request; the signer may, and it waits on them
    expect((await t.get(`/approvals/request/${id}`, { token: reader.token })).statusCode).toBe(403);
    expect((await t.get(`/approvals/request/${id}`)).statusCode).toBe(401);
    const waiting = (await t.get('/approvals/requests?waiting_on_me=true', { token: signer.token })).json();
    expect(waiting.map((x: { approval_requestid: number }) => x.approval_requestid)).toContain(id);
    expect((await t.get('/approvals/requests?waiting_on_me=true', { token: m1.token })).json().map((x: { approval_requestid: number }) => x.approval_requestid)).not.toContain(id);
    expect((await t.get('/approvals/requests', { token: reader.token })).json().map((x: { approval_requestid: number }) => x.approval_requestid)).not.toContain(id);

    // a team member may not sign the user stage; a wrong password records nothing
    expect((await approve(m1, id)).statusCode).toBe(403);
    const wrong = await sign(signer.token, id, { status: 'approve', password: 'not the password' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('wrong_password');
    expect(await signatureCount(id)).toBe(0);

    const s1 = await approve(signer, id, 'Looks right');
    expect(s1.statusCode).toBe(200);
    expectSchema(ApprovalRequest, s1.json());
    r = s1.json();
    expect(r.stages.map((s: { status: string }) => s.status)).toEqual(['complete', 'pending']);
    expect(r.stages[0]).toMatchObject({ approved: true, rejected: false });
    expect(r.stages[0].signatures[0]).toMatchObject({ user: { userid: signer.userid }, status: 'approve', notes: 'Looks right', sign_date: t.clock.now(), revisionid: edited.revisionid });
    // the team's members are mailed now, not the signer of stage 1 again (no repeated signatures)
    tokens = await mailedTokens(t, id);
    expect([...tokens.keys()].sort()).toEqual([signer.email, m1.email, m2.email, m3.email].sort());
    const mails = await t.db.selectFrom('jobs').select('payload').where('type', '=', 'mail.send').execute();
    expect(mails.filter((m) => JSON.parse(m.payload).to === signer.email && JSON.parse(m.payload).text.includes(`/sign/${id}/token`))).toHaveLength(1);

    // repeated signatures are off: the signer, a team member, may not sign stage 2
    const repeated = await approve(signer, id);
    expect(repeated.statusCode).toBe(422);
    expect(repeated.json().code).toBe('repeated_signature');

    t.clock.advance(60);
    const s2 = await approve(m1, id);
    expect(s2.statusCode).toBe(200);
    expect(s2.json()).toMatchObject({ status: 'pending' });
    expect(s2.json().stages[1].signatures).toHaveLength(1);
    const again = await approve(m1, id);
    expect(again.statusCode).toBe(422);
    expect(again.json().code).toBe('already_signed');
    expect((await readerSees(guide.guideid)).json().revisionid).toBe(approvedRev);

    // the second team signature, with the token mailed to m2: the release goes live
    const viaToken = await t.post(`/approvals/request/sign/${id}/token`, { token: m2.token, body: { status: 'approve', token: tokens.get(m2.email) } });
    expect(viaToken.statusCode).toBe(200);
    r = viaToken.json();
    expectSchema(ApprovalRequest, r);
    expect(r).toMatchObject({ status: 'approved', end_date: t.clock.now(), release: { status: 'released', release_date: t.clock.now() } });
    expect(r.stages.map((s: { status: string }) => s.status)).toEqual(['complete', 'complete']);
    expect(r.stages[1].signatures.map((s: { user: { userid: number } }) => s.user.userid)).toEqual([m1.userid, m2.userid]);
    expect((await readerSees(guide.guideid)).json()).toMatchObject({ revisionid: edited.revisionid, title: 'Draft title' });
    expect((await readerSees(guide.guideid, null)).json().revisionid).toBe(edited.revisionid);

    // every event, in order, with the request as GET answers it
    const events = await eventsOf(t, id);
    expect(events.map((e) => e.key)).toEqual(['Approvals.RequestSubmitted', 'Approvals.StageCompleted', 'Approvals.StageCompleted', 'Approvals.RequestApproved']);
    expect(events[0].event.title).toBe('Approval Request Submitted');
    expectSchema(ApprovalRequest, events[3].event.data);
    expect(events[3].event.data.status).toBe('approved');

    // a finished request is never changed
    const late = await t.post(`/approvals/request/sign/${id}/token`, { token: m3.token, body: { status: 'reject', token: tokens.get(m3.email) } });
    expect(late.statusCode).toBe(422);
    expect((await approve(m3, id)).json().code).toBe('request_closed');
    expect((await t.post(`/approvals/request/${id}/cancel`, { token: admin.token })).statusCode).toBe(422);
    expect(await signatureCount(id)).toBe(3);
    // nor its release's status, other than through the request
    expect((await t.patch(`/guides/releases/${release.releaseid}`, { token: author.token, body: { notes: 'Noted' } })).statusCode).toBe(200);
  });

  it('a rejection ends the request and its release rejected; readers keep the last approved revision', async () => {
    const { guide } = await guideUnderProcess([{ userid: signer.userid }, { teamid, num_required: 1 }]);
    const draft = (await t.patch(`/guides/${guide.guideid}?revisionid=${guide.revisionid}`, { token: author.token, body: { title: 'Bad draft' } })).json();
    const release = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'minor' } })).json();
    const id = release.approval_requestid;
    // the release's status changes only through the request
    const patched = await t.patch(`/guides/releases/${release.releaseid}`, { token: author.token, body: { status: 'released' } });
    expect(patched.statusCode).toBe(422);
    expect(patched.json().errors[0].code).toBe('under_approval');
    expect((await t.del(`/guides/releases/${release.releaseid}`, { token: author.token })).statusCode).toBe(422);
    const res = await sign(signer.token, id, { status: 'reject', password: signer.password, notes: 'Step 1 is wrong' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'rejected', release: { status: 'rejected' } });
    expect(res.json().stages.map((s: { status: string; rejected: boolean }) => [s.status, s.rejected])).toEqual([['rejected', true], ['cancelled', false]]);
    expect(res.json().stages[0].signatures[0]).toMatchObject({ status: 'reject', notes: 'Step 1 is wrong', revisionid: draft.revisionid });
    expect((await readerSees(guide.guideid)).json()).toMatchObject({ revisionid: guide.revisionid, title: 'Approved title' });
    expect((await eventsOf(t, id)).map((e) => e.key)).toEqual(['Approvals.RequestSubmitted', 'Approvals.RequestRejected']);
    expect((await approve(m1, id)).json().code).toBe('request_closed');
    expect((await t.get(`/approvals/requests?status=rejected&guideid=${guide.guideid}`, { token: author.token })).json().map((x: { approval_requestid: number }) => x.approval_requestid)).toEqual([id]);
  });

  it('with repeated signatures allowed, one person signs both stages', async () => {
    const { guide } = await guideUnderProcess([{ userid: signer.userid }, { teamid, num_required: 1 }], { allow_repeated_signatures: true, webhooks_enabled: false });
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    expect((await approve(signer, id)).statusCode).toBe(200);
    const second = await approve(signer, id);
    expect(second.statusCode).toBe(200);
    expect(second.json().status).toBe('approved');
    // webhooks_enabled false: no event at all
    expect(await eventsOf(t, id)).toEqual([]);
  });
});

describe('two members signing the last signature at once', () => {
  it('one signature completes the request; the other is refused and recorded nowhere', async () => {
    const { guide } = await guideUnderProcess([{ teamid, num_required: 1 }]);
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    const [a, b] = await Promise.all([approve(m1, id), approve(m2, id)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 422]);
    expect(await signatureCount(id)).toBe(1);
    const r = await getRequest(admin, id);
    expect(r.status).toBe('approved');
    expect((await eventsOf(t, id)).filter((e) => e.key === 'Approvals.RequestApproved')).toHaveLength(1);
  });
});

describe('open requests keep the stages they started with', () => {
  it('a PATCH of the stages changes new requests only', async () => {
    const { process, guide } = await guideUnderProcess([{ userid: signer.userid }]);
    const first = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    const patched = (await t.patch(`/approvals/process/${process.approval_processid}?revisionid=${process.revisionid}`, { token: admin.token, body: { stages: [{ userid: m3.userid }] } })).json();
    expect(patched.stages[0].user.userid).toBe(m3.userid);
    const second = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'minor' } })).json().approval_requestid;
    expect((await getRequest(admin, first)).stages[0].user.userid).toBe(signer.userid);
    expect((await getRequest(admin, second)).stages[0].user.userid).toBe(m3.userid);
    expect((await approve(m3, first)).statusCode).toBe(403);
    expect((await approve(signer, first)).json().status).toBe('approved');
    expect((await approve(m3, second)).json().status).toBe('approved');
    const detail = (await t.get(`/approvals/process/${process.approval_processid}`, { token: admin.token })).json();
    expect(detail).toMatchObject({ num_requests: 2, num_guides: 1, guides: [{ guideid: guide.guideid, langid: 'en' }], requests: [] });
  });
});

describe('signing tokens', () => {
  it('work once, for their user, request and stage only; a wrong one records nothing', async () => {
    const { guide } = await guideUnderProcess([{ userid: signer.userid }, { userid: m1.userid }]);
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    const tokens = await mailedTokens(t, id);
    const mine = tokens.get(signer.email)!;
    const stored = await t.db.selectFrom('approval_sign_tokens').select('token_hash').where('approval_requestid', '=', id).execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(mine);
    // an Admin impersonating the signer cannot sign for them, even with their token
    const impersonation = (await t.post('/user/token/impersonate', { token: admin.token, body: { userid: signer.userid } })).json().authToken;
    const asAdmin = await t.post(`/approvals/request/sign/${id}/token`, { token: impersonation, body: { status: 'approve', token: mine } });
    expect(asAdmin.statusCode).toBe(403);
    expect(asAdmin.json().code).toBe('impersonated');
    const bad = await t.post(`/approvals/request/sign/${id}/token`, { token: signer.token, body: { status: 'approve', token: 'nope' } });
    expect(bad.statusCode).toBe(403);
    expect(bad.json().code).toBe('invalid_token');
    expect((await t.post(`/approvals/request/sign/${id}/token`, { token: m1.token, body: { status: 'approve', token: mine } })).statusCode).toBe(403);
    expect(await signatureCount(id)).toBe(0);
    expect((await t.post(`/approvals/request/sign/${id}/token`, { token: signer.token, body: { status: 'approve', token: mine } })).statusCode).toBe(200);
    // stage 2's user gets a token now; the spent one never works again
    const m1Token = (await mailedTokens(t, id)).get(m1.email)!;
    expect((await t.post(`/approvals/request/sign/${id}/token`, { token: signer.token, body: { status: 'approve', token: mine } })).statusCode).toBe(403);
    t.clock.advance(t.config.approvalTokenTtl + 1);
    const expired = await t.post(`/approvals/request/sign/${id}/token`, { token: m1.token, body: { status: 'approve', token: m1Token } });
    expect(expired.statusCode).toBe(403);
    expect(await signatureCount(id)).toBe(1);
    expect((await approve(m1, id)).json().status).toBe('approved');
  });
});

describe('is_satisfiable of a request, and an Admin cancelling', () => {
  it('a request whose current stage cannot be signed stays open, shows it, and an Admin cancels it', async () => {
    const x = await makeUser(t);
    const y = await makeUser(t);
    const team = await makeTeam(t, x, [{ user: y }]);
    const { guide } = await guideUnderProcess([{ teamid: team.teamid, num_required: 2 }]);
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    expect((await getRequest(admin, id)).is_satisfiable).toBe(true);
    expect((await approve(x, id)).statusCode).toBe(200);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', y.userid).execute();
    const r = await getRequest(admin, id);
    expect(r).toMatchObject({ status: 'pending', is_satisfiable: false });
    expect(r.stages[0].is_satisfiable).toBe(false);
    expect((await t.post(`/approvals/request/${id}/cancel`, { token: author.token })).statusCode).toBe(403);
    const cancelled = await t.post(`/approvals/request/${id}/cancel`, { token: admin.token });
    expect(cancelled.statusCode).toBe(200);
    expectSchema(ApprovalRequest, cancelled.json());
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', release: { status: 'cancelled' } });
    expect((await t.post(`/approvals/request/${id}/cancel`, { token: admin.token })).statusCode).toBe(422);
    expect((await t.post('/approvals/request/999999/cancel', { token: admin.token })).statusCode).toBe(404);
  });
});

describe('a guide created under the default process', () => {
  it('shows readers nothing until its first approved release', async () => {
    const def = await makeProcess(t, admin.token, [{ userid: signer.userid }], { is_default: true });
    const guide = await makePublishedGuide(t, author, 1);
    const res = await readerSees(guide.guideid);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_released');
    expect((await readerSees(guide.guideid, author)).statusCode).toBe(200);
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: guide.guideid, type: 'major' } })).json().approval_requestid;
    expect((await approve(signer, id)).json().status).toBe('approved');
    expect((await readerSees(guide.guideid)).json().revisionid).toBe(guide.revisionid);
    await t.patch(`/approvals/process/${def.approval_processid}?revisionid=${def.revisionid}`, { token: admin.token, body: { is_default: false } });
  });
});

describe('GET /approvals/requests', () => {
  it('filters and pages, each request in its shape; 401 without a token; 422 for a bad filter', async () => {
    const all = (await t.get('/approvals/requests?limit=200', { token: admin.token })).json();
    expect(all.length).toBeGreaterThan(3);
    for (const r of all) expectSchema(ApprovalRequest, r);
    const ids = all.map((r: { approval_requestid: number }) => r.approval_requestid);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const desc = (await t.get('/approvals/requests?order=DESC&limit=2', { token: admin.token })).json();
    expect(desc.map((r: { approval_requestid: number }) => r.approval_requestid)).toEqual([...ids].reverse().slice(0, 2));
    for (const r of (await t.get('/approvals/requests?status=approved&limit=200', { token: admin.token })).json()) expect(r.status).toBe('approved');
    // a signer reads the requests they sign, not others
    const mine = (await t.get('/approvals/requests?limit=200', { token: m3.token })).json();
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(all.length);
    expect((await t.get('/approvals/requests')).statusCode).toBe(401);
    expect((await t.get('/approvals/requests?status=nope', { token: admin.token })).statusCode).toBe(422);
    expect((await t.get('/approvals/request/999999', { token: admin.token })).statusCode).toBe(404);
  });
});

describe('signing is rate limited like logging in', () => {
  it('429 after LOGIN_RATE_LIMIT attempts a minute', async () => {
    const app = await buildTestApp({ config: { loginRateLimit: 2 } });
    try {
      const u = await makeUser(app);
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await app.post('/approvals/request/sign/1', { token: u.token, body: { status: 'approve', password: 'x' } })).statusCode);
      expect(codes).toEqual([404, 404, 429]);
      const viaToken = [];
      for (let i = 0; i < 3; i++) viaToken.push((await app.post('/approvals/request/sign/1/token', { token: u.token, body: { status: 'approve', token: 'x' } })).statusCode);
      expect(viaToken).toEqual([404, 404, 429]);
    } finally {
      await app.close();
    }
  });
});
