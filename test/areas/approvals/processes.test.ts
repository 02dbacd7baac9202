import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { expectSchema } from '../../helpers/schema.js';
import { ApprovalProcess, ApprovalProcessDetail, ProcessSearchResult } from '../../../src/areas/approvals/approvals.schemas.js';
import { makeCategoryAt, makeProcess } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let user: TestUser;
let signer: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  user = await makeUser(t);
  signer = await makeUser(t);
});

const count = async (table: 'approval_processes' | 'approval_process_stages') => Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('POST /approvals/process', () => {
  it('an Admin creates a process with a user stage and a team stage: 201, the detail shape', async () => {
    const team = await makeTeam(t, user, [{ user: author }]);
    const res = await t.post('/approvals/process', { token: admin.token, body: { name: 'Quality release', stages: [{ userid: signer.userid }, { teamid: team.teamid, num_required: 2 }], webhooks_enabled: false } });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expectSchema(ApprovalProcessDetail, p);
    expect(p).toMatchObject({ name: 'Quality release', allow_repeated_signatures: false, status: 'enabled', is_default: false, is_satisfiable: true, webhooks_enabled: false, guides: [], requests: [], num_guides: 0, num_requests: 0 });
    expect(p.revisionid).toBeGreaterThan(0);
    expect(p.stages[0]).toMatchObject({ user: { userid: signer.userid }, is_satisfiable: true });
    expect(p.stages[0].team).toBeUndefined();
    expect(p.stages[1]).toMatchObject({ team: { teamid: team.teamid, member_count: 2 }, num_required: 2, is_satisfiable: true });
    expect(p.stages[1].user).toBeUndefined();
  });

  it('401 without a token, 403 for a non-Admin, 422 for bad stages; nothing stored', async () => {
    const before = [await count('approval_processes'), await count('approval_process_stages')];
    const body = { name: 'X', stages: [{ userid: signer.userid }] };
    expect((await t.post('/approvals/process', { body })).statusCode).toBe(401);
    expect((await t.post('/approvals/process', { token: author.token, body })).statusCode).toBe(403);
    const team = await makeTeam(t, user);
    const cases: Array<[unknown, string]> = [
      [{ name: 'X', stages: [] }, 'stages'],
      [{ name: 'X', stages: Array.from({ length: 11 }, () => ({ userid: signer.userid })) }, 'stages'],
      [{ name: 'X', stages: [{ userid: signer.userid, teamid: team.teamid, num_required: 1 }] }, 'stages[0]'],
      [{ name: 'X', stages: [{}] }, 'stages[0]'],
      [{ name: 'X', stages: [{ teamid: team.teamid }] }, 'stages[0].num_required'],
      [{ name: 'X', stages: [{ userid: 999999 }] }, 'stages[0].userid'],
      [{ name: 'X', stages: [{ teamid: 999999, num_required: 1 }] }, 'stages[0].teamid'],
      [{ name: '  ', stages: [{ userid: signer.userid }] }, 'name'],
      [{ stages: [{ userid: signer.userid }] }, 'name'],
    ];
    for (const [b, field] of cases) {
      const res = await t.post('/approvals/process', { token: admin.token, body: b });
      expect(res.statusCode, JSON.stringify(b)).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
    expect([await count('approval_processes'), await count('approval_process_stages')]).toEqual(before);
  });
});

describe('GET /approvals/processes and search', () => {
  it('lists with order, offset and limit; each in the list shape', async () => {
    const a = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const b = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const asc = (await t.get('/approvals/processes?limit=200', { token: user.token })).json();
    for (const p of asc) expectSchema(ApprovalProcess, p);
    const ids = asc.map((p: { approval_processid: number }) => p.approval_processid);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    const desc = (await t.get('/approvals/processes?order=DESC&limit=2', { token: user.token })).json();
    expect(desc.map((p: { approval_processid: number }) => p.approval_processid)).toEqual([b.approval_processid, a.approval_processid]);
    expect((await t.get('/approvals/processes?offset=1&limit=1&order=DESC', { token: user.token })).json()[0].approval_processid).toBe(a.approval_processid);
    expect((await t.get('/approvals/processes')).statusCode).toBe(401);
    expect((await t.get('/approvals/processes?limit=500', { token: user.token })).statusCode).toBe(422);
  });

  it('search matches any part of the name, ignoring case; % and _ are literal', async () => {
    await makeProcess(t, admin.token, [{ userid: signer.userid }], { name: 'Zeta Line 100% check' });
    await makeProcess(t, admin.token, [{ userid: signer.userid }], { name: 'zeta line_2 review' });
    await makeProcess(t, admin.token, [{ userid: signer.userid }], { name: 'Unrelated' });
    const res = await t.get(`/approvals/process/search/${encodeURIComponent('ETA LINE')}?limit=1`, { token: user.token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectSchema(ProcessSearchResult, body);
    expect(body).toMatchObject({ limit: 1, offset: 0, totalResults: 2, moreResults: true, search: 'ETA LINE' });
    const page2 = (await t.get(`/approvals/process/search/${encodeURIComponent('eta line')}?offset=1`, { token: user.token })).json();
    expect(page2).toMatchObject({ totalResults: 2, moreResults: false });
    expect(page2.results).toHaveLength(1);
    expect((await t.get(`/approvals/process/search/${encodeURIComponent('100%')}`, { token: user.token })).json().results.map((p: { name: string }) => p.name)).toEqual(['Zeta Line 100% check']);
    expect((await t.get(`/approvals/process/search/${encodeURIComponent('line_')}`, { token: user.token })).json().totalResults).toBe(1);
    expect((await t.get('/approvals/process/search/zeta')).statusCode).toBe(401);
  });
});

describe('GET and PATCH /approvals/process/{id}', () => {
  it('detail; 404; PATCH checks the revisionid (409 with the current process) and only Admins change it', async () => {
    const p = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const got = await t.get(`/approvals/process/${p.approval_processid}`, { token: user.token });
    expectSchema(ApprovalProcessDetail, got.json());
    expect((await t.get('/approvals/process/999999', { token: user.token })).statusCode).toBe(404);
    expect((await t.get(`/approvals/process/${p.approval_processid}`)).statusCode).toBe(401);
    const stale = p.revisionid;
    const ok = await t.patch(`/approvals/process/${p.approval_processid}?revisionid=${p.revisionid}`, { token: admin.token, body: { name: 'Renamed', allow_repeated_signatures: true, webhooks_enabled: null } });
    expect(ok.statusCode).toBe(200);
    expectSchema(ApprovalProcessDetail, ok.json());
    expect(ok.json()).toMatchObject({ name: 'Renamed', allow_repeated_signatures: true, webhooks_enabled: null });
    expect(ok.json().revisionid).toBeGreaterThan(stale);
    const conflict = await t.patch(`/approvals/process/${p.approval_processid}?revisionid=${stale}`, { token: admin.token, body: { name: 'Lost' } });
    expect(conflict.statusCode).toBe(409);
    expectSchema(ApprovalProcessDetail, conflict.json());
    expect(conflict.json()).toMatchObject({ name: 'Renamed', revisionid: ok.json().revisionid });
    expect((await t.patch(`/approvals/process/${p.approval_processid}?revisionid=${ok.json().revisionid}`, { token: author.token, body: { name: 'No' } })).statusCode).toBe(403);
    expect((await t.patch(`/approvals/process/${p.approval_processid}`, { token: admin.token, body: { name: 'No' } })).statusCode).toBe(422);
    expect((await t.patch(`/approvals/process/${p.approval_processid}?revisionid=${ok.json().revisionid}`, { token: admin.token, body: { stages: [{ teamid: 1 }] } })).statusCode).toBe(422);
    expect((await t.get(`/approvals/process/${p.approval_processid}`, { token: user.token })).json().name).toBe('Renamed');
  });
});

describe('PUT/DELETE /approvals/{wikiid} and GET /guides/{guideid}/approvalProcesses', () => {
  it('the nearest category up the tree, else the default of the guide\'s era, else none', async () => {
    const parentP = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const childP = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const top = await makeCategoryAt(t);
    const mid = await makeCategoryAt(t, top.wikiid);
    const leaf = await makeCategoryAt(t, mid.wikiid);
    const g = await makePublishedGuide(t, author, 0, { category: leaf.title });
    const applies = async () => (await t.get(`/guides/${g.guideid}/approvalProcesses`)).json().map((p: { approval_processid: number }) => p.approval_processid);
    expect(await applies()).toEqual([]);

    const put = await t.put(`/approvals/${top.wikiid}/${parentP.approval_processid}`, { token: admin.token });
    expect(put.statusCode).toBe(200);
    expectSchema(ApprovalProcessDetail, put.json());
    const list = (await t.get(`/guides/${g.guideid}/approvalProcesses`)).json();
    expect(list).toHaveLength(1);
    expectSchema(ApprovalProcess, list[0]);
    expect(await applies()).toEqual([parentP.approval_processid]);
    expect((await t.put(`/approvals/${mid.wikiid}/${childP.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    expect(await applies()).toEqual([childP.approval_processid]);
    expect((await t.del(`/approvals/${mid.wikiid}`, { token: admin.token })).statusCode).toBe(204);
    expect(await applies()).toEqual([parentP.approval_processid]);
    expect((await t.del(`/approvals/${mid.wikiid}`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.del(`/approvals/${top.wikiid}`, { token: admin.token })).statusCode).toBe(204);
    expect(await applies()).toEqual([]);

    // the default applies to guides created after it was set, never to existing ones
    const def = await makeProcess(t, admin.token, [{ userid: signer.userid }], { is_default: true });
    expect(def.is_default).toBe(true);
    expect(await applies()).toEqual([]);
    const newer = await makePublishedGuide(t, author, 0, { category: leaf.title });
    expect((await t.get(`/guides/${newer.guideid}/approvalProcesses`)).json().map((p: { approval_processid: number }) => p.approval_processid)).toEqual([def.approval_processid]);
    // a category's process wins over the default
    await t.put(`/approvals/${leaf.wikiid}/${childP.approval_processid}`, { token: admin.token });
    expect((await t.get(`/guides/${newer.guideid}/approvalProcesses`)).json()[0].approval_processid).toBe(childP.approval_processid);
    await t.del(`/approvals/${leaf.wikiid}`, { token: admin.token });
    // unsetting the default leaves guides created meanwhile under it
    const unset = await t.patch(`/approvals/process/${def.approval_processid}?revisionid=${def.revisionid}`, { token: admin.token, body: { is_default: false } });
    expect(unset.json().is_default).toBe(false);
    expect((await t.get(`/guides/${newer.guideid}/approvalProcesses`)).json()[0].approval_processid).toBe(def.approval_processid);
    const newest = await makePublishedGuide(t, author, 0, { category: leaf.title });
    expect((await t.get(`/guides/${newest.guideid}/approvalProcesses`)).json()).toEqual([]);
  });

  it('permissions and validation: Admins only, CATEGORY wikis only, the guide read rule', async () => {
    const p = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const cat = await makeCategoryAt(t);
    expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`)).statusCode).toBe(401);
    expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`, { token: author.token })).statusCode).toBe(403);
    expect((await t.del(`/approvals/${cat.wikiid}`, { token: author.token })).statusCode).toBe(403);
    expect((await t.put(`/approvals/999999/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.put(`/approvals/${cat.wikiid}/999999`, { token: admin.token })).statusCode).toBe(404);
    const item = await t.db.insertInto('wikis').values({ namespace: 'ITEM', title: `Item ${cat.title}` }).returning('wikiid').executeTakeFirstOrThrow();
    expect((await t.put(`/approvals/${item.wikiid}/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(422);
    expect(await t.db.selectFrom('approval_category_processes').selectAll().where('wikiid', 'in', [cat.wikiid, item.wikiid]).execute()).toEqual([]);
    const priv = await makePublishedGuide(t, author, 0, { public: false });
    expect((await t.get(`/guides/${priv.guideid}/approvalProcesses`)).statusCode).toBe(401);
    expect((await t.get(`/guides/${priv.guideid}/approvalProcesses`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/guides/999999/approvalProcesses')).statusCode).toBe(404);
  });
});

describe('is_satisfiable of a process', () => {
  it('a disabled user, a team short of enabled members, and too few distinct people without repeated signatures', async () => {
    const a = await makeUser(t);
    const b = await makeUser(t);
    const team = await makeTeam(t, a, [{ user: b }]);
    const p = await makeProcess(t, admin.token, [{ userid: a.userid }, { teamid: team.teamid, num_required: 1 }]);
    expect(p.is_satisfiable).toBe(true); // a signs stage 1, b stage 2
    const tight = await makeProcess(t, admin.token, [{ userid: a.userid }, { teamid: team.teamid, num_required: 2 }]);
    expect(tight.is_satisfiable).toBe(false); // stage 2 needs a and b, but a signed stage 1
    expect(tight.stages.map((s: { is_satisfiable: boolean }) => s.is_satisfiable)).toEqual([true, true]);
    const repeated = await makeProcess(t, admin.token, [{ userid: a.userid }, { teamid: team.teamid, num_required: 2 }], { allow_repeated_signatures: true });
    expect(repeated.is_satisfiable).toBe(true);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', b.userid).execute();
    const after = (await t.get(`/approvals/process/${p.approval_processid}`, { token: user.token })).json();
    expect(after.is_satisfiable).toBe(false);
    expect(after.stages.map((s: { is_satisfiable: boolean }) => s.is_satisfiable)).toEqual([true, true]);
    const rep = (await t.get(`/approvals/process/${repeated.approval_processid}`, { token: user.token })).json();
    expect(rep.stages[1].is_satisfiable).toBe(false);
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', a.userid).execute();
    expect((await t.get(`/approvals/process/${p.approval_processid}`, { token: user.token })).json().stages[0].is_satisfiable).toBe(false);
  });
});
