// The audit log of guides: creation, edits, steps, publish and unpublish, delete and
// restore, releases; each entry with its action, actor, resource and revisions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAuthor, type TestUser } from '../helpers/factories.js';
import { addStep, line, makeGuide } from '../helpers/factories/guides.js';
import { auditCount, auditEntries } from './helpers.js';

let t: TestApp;
let author: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  author = await makeAuthor(t);
});
afterAll(() => t.close());

const actions = async (guideid: number) => (await auditEntries(t, { resource_type: 'guide', resource_id: guideid })).map((e) => e.action);

describe('audit log of guides', () => {
  it('records every change of a guide with its revisions before and after', async () => {
    const g0 = await makeGuide(t, author, { title: 'Audited guide' });
    const [created] = await auditEntries(t, { action: 'guide.created', resource_id: g0.guideid });
    expect(created).toMatchObject({ userid: author.userid, resource_type: 'guide', langid: 'en', revisionid_before: null, revisionid_after: g0.revisionid });
    expect(JSON.parse(created.changes!)).toEqual({ title: { new: 'Audited guide' } });

    const long = 'x'.repeat(300);
    const edit = await t.patch(`/guides/${g0.guideid}?revisionid=${g0.revisionid}`, { token: author.token, body: { title: 'Renamed', introduction: long } });
    expect(edit.statusCode).toBe(200);
    const g1 = edit.json();
    const [edited] = await auditEntries(t, { action: 'guide.edited', resource_id: g0.guideid });
    expect(edited).toMatchObject({ userid: author.userid, revisionid_before: g0.revisionid, revisionid_after: g1.revisionid, request_id: edit.headers['x-request-id'] });
    const changes = JSON.parse(edited.changes!);
    expect(changes.title).toEqual({ old: 'Audited guide', new: 'Renamed' });
    expect(changes.introduction.new).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), length: 300 });

    const g2 = await addStep(t, author, g1, { title: 'One', lines: [line('Do it')] });
    const stepid = g2.steps[0].stepid;
    const stepEdit = await t.patch(`/guides/${g0.guideid}/steps/${stepid}?revisionid=${g2.steps[0].revisionid}`, { token: author.token, body: { title: 'Two' } });
    expect(stepEdit.statusCode).toBe(200);
    const [stepEdited] = await auditEntries(t, { action: 'guide.step_edited', resource_id: g0.guideid });
    expect(JSON.parse(stepEdited.changes!)).toEqual({ stepid: { new: stepid }, title: {} });

    let rev = Number(stepEdit.headers['x-guide-revisionid']);
    const pub = await t.put(`/guides/${g0.guideid}/public?revisionid=${rev}`, { token: author.token });
    expect(pub.statusCode).toBe(200);
    rev = pub.json().revisionid;
    const unpub = await t.del(`/guides/${g0.guideid}/public?revisionid=${rev}`, { token: author.token });
    expect(unpub.statusCode).toBe(200);
    rev = unpub.json().revisionid;
    expect((await t.del(`/guides/${g0.guideid}?revisionid=${rev}`, { token: author.token })).statusCode).toBe(204);
    const restored = await t.post(`/guides/${g0.guideid}/en/restore`, { token: author.token, body: {} });
    expect(restored.statusCode).toBe(200);

    const rel = await t.post('/guides/releases', { token: author.token, body: { guideid: g0.guideid, type: 'major', notes: 'First release' } });
    expect(rel.statusCode).toBe(201);
    const [released] = await auditEntries(t, { action: 'guide.released', resource_id: g0.guideid });
    expect(released).toMatchObject({ reason: 'First release', revisionid_after: restored.json().revisionid, userid: author.userid });

    expect(await actions(g0.guideid)).toEqual([
      'guide.created', 'guide.edited', 'guide.step_added', 'guide.step_edited', 'guide.published', 'guide.unpublished', 'guide.deleted', 'guide.restored', 'guide.released',
    ]);
    // Each entry's revisions follow on from the one before.
    const entries = (await auditEntries(t, { resource_type: 'guide', resource_id: g0.guideid })).filter((e) => e.action !== 'guide.released');
    for (let i = 1; i < entries.length; i++) expect(entries[i].revisionid_before).toBe(entries[i - 1].revisionid_after);
  });

  it('a change that fails (a stale revision) writes no entry', async () => {
    const g = await makeGuide(t, author);
    const before = await auditCount(t);
    const stale = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid - 1}`, { token: author.token, body: { title: 'Nope' } });
    expect(stale.statusCode).toBe(409);
    expect(await auditCount(t)).toBe(before);
  });
});
