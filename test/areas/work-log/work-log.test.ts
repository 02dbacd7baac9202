import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';

const FIELDS = ['entryid', 'guideid', 'langid', 'revisionid', 'guide_title', 'userid', 'username', 'userid_created', 'status', 'notes', 'start_date', 'end_date', 'status_date', 'modified_date', 'duration', 'step_data'].sort();
const keysOf = (o: object) => Object.keys(o).sort();

let t: TestApp;
let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
let other: TestUser;
let guide: any;
let privateGuide: any;
beforeAll(async () => {
  t = await buildTestApp();
  [admin, author, moderator, user, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeModerator(t), makeUser(t), makeUser(t)]);
  guide = await makePublishedGuide(t, author, 3);
  privateGuide = await addStep(t, author, await makeGuide(t, author), { title: 'Only step' });
});
afterAll(() => t.close());

const stored = (entryid: number) => t.db.selectFrom('work_log').selectAll().where('entryid', '=', entryid).executeTakeFirst();
const start = async (who: TestUser, body: Record<string, unknown> = {}) => {
  const res = await t.post('/work_log', { token: who.token, body: { guideid: guide.guideid, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const act = (who: TestUser, entryid: number, action: string, body?: unknown) => t.post(`/work_log/${entryid}/${action}`, { token: who.token, body });

describe('POST /work_log', () => {
  it('starts an entry in progress on the guide\'s current revision, assigned to the caller: 201, stored', async () => {
    const res = await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, notes: '  Line 3  ' } });
    expect(res.statusCode).toBe(201);
    const e = res.json();
    expect(keysOf(e)).toEqual(FIELDS);
    expect(e).toMatchObject({
      guideid: guide.guideid, langid: 'en', revisionid: guide.revisionid, guide_title: guide.title, userid: user.userid, username: user.username,
      userid_created: user.userid, status: 'in_progress', notes: 'Line 3', start_date: t.clock.now(), end_date: null, status_date: t.clock.now(), duration: 0, step_data: [],
    });
    expect(await stored(e.entryid)).toMatchObject({ guideid: guide.guideid, userid: user.userid, status: 'in_progress', active_since: t.clock.now(), active_seconds: 0 });
  });

  it('takes a kept revision of the guide; another guide\'s revision is a 422 naming revisionid', async () => {
    const old = guide.revisionid;
    const e = await start(user, { revisionid: old });
    expect(e.revisionid).toBe(old);
    const bad = await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, revisionid: privateGuide.revisionid } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'invalid_value' });
  });

  it('422 for an unknown guide, a missing guideid, a language the guide lacks, unknown fields; nothing stored', async () => {
    const before = (await t.db.selectFrom('work_log').select('entryid').execute()).length;
    expect((await t.post('/work_log', { token: user.token, body: { guideid: 999999 } })).json().errors[0]).toMatchObject({ field: 'guideid' });
    expect((await t.post('/work_log', { token: user.token, body: {} })).json().errors[0]).toMatchObject({ field: 'guideid', code: 'missing_field' });
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, langid: 'fr' } })).json().errors[0]).toMatchObject({ field: 'langid' });
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, status: 'finished' } })).statusCode).toBe(422);
    expect((await t.post('/work_log', { token: user.token, body: { guideid: 2 ** 31 } })).statusCode).toBe(422);
    expect((await t.db.selectFrom('work_log').select('entryid').execute()).length).toBe(before);
  });

  it('401 without a token; 403 on a private guide the caller may not read', async () => {
    expect((await t.post('/work_log', { body: { guideid: guide.guideid } })).statusCode).toBe(401);
    expect((await t.post('/work_log', { token: user.token, body: { guideid: privateGuide.guideid } })).statusCode).toBe(403);
    expect((await t.post('/work_log', { token: author.token, body: { guideid: privateGuide.guideid } })).statusCode).toBe(201);
  });

  it('Moderators and Admins assign an entry to another user; a User may not (403)', async () => {
    const e = (await t.post('/work_log', { token: moderator.token, body: { guideid: guide.guideid, userid: other.userid } })).json();
    expect(e).toMatchObject({ userid: other.userid, userid_created: moderator.userid, status: 'in_progress' });
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, userid: other.userid } })).statusCode).toBe(403);
    expect((await t.post('/work_log', { token: admin.token, body: { guideid: guide.guideid, userid: 999999 } })).json().errors[0].field).toBe('userid');
    // the assignee must be able to read the guide
    expect((await t.post('/work_log', { token: admin.token, body: { guideid: privateGuide.guideid, userid: user.userid } })).json().errors[0].field).toBe('userid');
  });
});

describe('the state machine', () => {
  it('pause, resume, suspend, assume, finish: statuses, dates and the time spent (pauses left out)', async () => {
    const e = await start(user);
    t.clock.advance(100);
    let r = await act(user, e.entryid, 'pause');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'paused', duration: 100, status_date: t.clock.now(), end_date: null });
    t.clock.advance(1000);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).json().duration).toBe(100);
    r = await act(user, e.entryid, 'resume');
    expect(r.json()).toMatchObject({ status: 'in_progress', duration: 100 });
    t.clock.advance(50);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).json().duration).toBe(150);
    r = await act(user, e.entryid, 'suspend', { notes: 'Shift over' });
    expect(r.json()).toMatchObject({ status: 'suspended', duration: 150, notes: 'Shift over' });
    t.clock.advance(500);
    r = await act(other, e.entryid, 'assume');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'in_progress', userid: other.userid, userid_created: user.userid, duration: 150 });
    t.clock.advance(25);
    r = await act(other, e.entryid, 'finish');
    expect(r.json()).toMatchObject({ status: 'finished', duration: 175, end_date: t.clock.now() });
    expect(await stored(e.entryid)).toMatchObject({ status: 'finished', userid: other.userid, active_seconds: 175, active_since: null, end_date: t.clock.now() });
  });

  it('invalid transitions are 422 invalid_transition with a clear message, and change nothing', async () => {
    const e = await start(user);
    const cases: Array<[TestUser, string]> = [[user, 'resume'], [other, 'assume']];
    for (const [who, action] of cases) {
      const r = await act(who, e.entryid, action);
      expect(r.statusCode, action).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ field: 'status', code: 'invalid_transition' });
      expect(r.json().message).toContain('This entry is in progress.');
    }
    expect((await act(user, e.entryid, 'resume')).json().message).toBe('Only an entry that is paused or suspended can be resumed. This entry is in progress.');
    await act(user, e.entryid, 'finish');
    const before = await stored(e.entryid);
    for (const action of ['pause', 'resume', 'suspend', 'finish', 'cancel', 'assume']) {
      const r = await act(action === 'assume' ? other : user, e.entryid, action);
      expect(r.statusCode, action).toBe(422);
      expect(r.json().errors[0].code).toBe('invalid_transition');
    }
    expect(await stored(e.entryid)).toEqual(before);
    // the assignee resumes a suspended entry rather than assuming it
    const s = await start(user);
    await act(user, s.entryid, 'suspend');
    expect((await act(user, s.entryid, 'assume')).json().message).toContain('assigned to you already');
    expect((await act(user, s.entryid, 'resume')).json().status).toBe('in_progress');
  });

  it('cancel from suspended; a cancelled entry is final', async () => {
    const e = await start(user);
    await act(user, e.entryid, 'suspend');
    const r = await act(user, e.entryid, 'cancel', { notes: 'Wrong machine' });
    expect(r.json()).toMatchObject({ status: 'cancelled', notes: 'Wrong machine', end_date: t.clock.now() });
    expect((await act(user, e.entryid, 'resume')).statusCode).toBe(422);
  });

  it('only the assignee, a Moderator or an Admin moves an entry (403 for others; nothing changes); 404 for none', async () => {
    const e = await start(user);
    for (const action of ['pause', 'suspend', 'finish', 'cancel']) expect((await act(other, e.entryid, action)).statusCode, action).toBe(403);
    expect((await stored(e.entryid))!.status).toBe('in_progress');
    expect((await act(moderator, e.entryid, 'pause')).json().status).toBe('paused');
    expect((await act(admin, e.entryid, 'resume')).json().status).toBe('in_progress');
    expect((await act(user, 999999, 'pause')).statusCode).toBe(404);
    expect((await act(user, 0, 'pause')).statusCode).toBe(422);
    expect((await t.post(`/work_log/${e.entryid}/pause`)).statusCode).toBe(401);
    expect((await act(user, e.entryid, 'pause', { notes: 5 })).statusCode).toBe(422);
  });

  it('two simultaneous transitions of one entry: exactly one succeeds', async () => {
    const e = await start(user);
    const answers = await Promise.all([act(user, e.entryid, 'finish'), act(user, e.entryid, 'cancel'), act(user, e.entryid, 'pause'), act(user, e.entryid, 'suspend')]);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 422)).toHaveLength(3);
    const suspended = await start(user);
    await act(user, suspended.entryid, 'suspend');
    const takers = await Promise.all([act(other, suspended.entryid, 'assume'), act(moderator, suspended.entryid, 'assume'), act(admin, suspended.entryid, 'assume')]);
    expect(takers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    const winner = takers.find((a) => a.statusCode === 200)!.json().userid;
    expect((await stored(suspended.entryid))!.userid).toBe(winner);
  });
});

describe('PUT /work_log/{entryid}/stepData', () => {
  it('records checkmarks, values and notes per step of the revision performed; an empty record removes a step\'s data', async () => {
    const e = await start(user);
    const [s1, s2] = guide.steps.map((s: { stepid: number }) => s.stepid);
    let r = await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: s1, checked: true }, { stepid: s2, value: '12 mm', notes: ' ok ' }] } });
    expect(r.statusCode).toBe(200);
    expect(r.json().step_data).toEqual([
      { stepid: s1, checked: true, value: null, notes: '', modified_date: t.clock.now(), userid_modified: user.userid },
      { stepid: s2, checked: false, value: '12 mm', notes: 'ok', modified_date: t.clock.now(), userid_modified: user.userid },
    ].sort((a, b) => a.stepid - b.stepid));
    r = await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: s2 }] } });
    expect(r.json().step_data.map((s: { stepid: number }) => s.stepid)).toEqual([s1]);
    const rows = await t.db.selectFrom('work_log_steps').selectAll().where('entryid', '=', e.entryid).execute();
    expect(rows).toEqual([expect.objectContaining({ stepid: s1, checked: 1, value: null })]);
  });

  it('422 for a step not in the revision, a step listed twice, a missing steps; nothing stored', async () => {
    const e = await start(user);
    const s1 = guide.steps[0].stepid;
    const other = privateGuide.steps[0].stepid;
    let r = await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: s1, checked: true }, { stepid: other, checked: true }] } });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0]).toMatchObject({ field: 'steps[1].stepid', index: 1 });
    r = await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: s1, checked: true }, { stepid: s1 }] } });
    expect(r.json().errors[0]).toMatchObject({ field: 'steps[1].stepid', code: 'duplicate' });
    expect((await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: {} })).json().errors[0]).toMatchObject({ field: 'steps', code: 'missing_field' });
    expect((await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: s1, checked: 'yes' }] } })).statusCode).toBe(422);
    expect(await t.db.selectFrom('work_log_steps').selectAll().where('entryid', '=', e.entryid).execute()).toEqual([]);
  });

  it('only while in progress or paused; only the assignee, a Moderator or an Admin', async () => {
    const e = await start(user);
    const s1 = guide.steps[0].stepid;
    const put = (who: TestUser) => t.put(`/work_log/${e.entryid}/stepData`, { token: who.token, body: { steps: [{ stepid: s1, checked: true }] } });
    expect((await put(other)).statusCode).toBe(403);
    expect((await put(moderator)).statusCode).toBe(200);
    await act(user, e.entryid, 'pause');
    expect((await put(user)).statusCode).toBe(200);
    await act(user, e.entryid, 'finish');
    const r = await put(user);
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].code).toBe('invalid_transition');
    expect((await t.put('/work_log/999999/stepData', { token: user.token, body: { steps: [] } })).statusCode).toBe(404);
  });
});

describe('reading', () => {
  it('GET /work_log: paginated, filtered by userid, guideid and status, served in entryid order', async () => {
    const mine = await start(other);
    await act(other, mine.entryid, 'pause');
    const list = (await t.get(`/work_log?userid=${other.userid}&status=paused`, { token: user.token })).json();
    expect(list.map((e: { entryid: number }) => e.entryid)).toContain(mine.entryid);
    expect(list.every((e: { userid: number; status: string }) => e.userid === other.userid && e.status === 'paused')).toBe(true);
    const all = (await t.get(`/work_log?guideid=${guide.guideid}&limit=200`, { token: admin.token })).json();
    const ids = all.map((e: { entryid: number }) => e.entryid);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const desc = (await t.get(`/work_log?guideid=${guide.guideid}&order=DESC&limit=2&offset=1`, { token: admin.token })).json();
    expect(desc.map((e: { entryid: number }) => e.entryid)).toEqual([...ids].reverse().slice(1, 3));
    expect((await t.get('/work_log?status=done', { token: user.token })).json().errors[0].field).toBe('status');
    expect((await t.get('/work_log?limit=201', { token: user.token })).statusCode).toBe(422);
    expect((await t.get('/work_log')).statusCode).toBe(401);
  });

  it('entries on a private guide: listed and read only by those who may read the guide, its assignee, Moderators and Admins', async () => {
    const e = (await t.post('/work_log', { token: author.token, body: { guideid: privateGuide.guideid } })).json();
    const listed = async (who: TestUser) => (await t.get(`/work_log?guideid=${privateGuide.guideid}`, { token: who.token })).json().map((x: { entryid: number }) => x.entryid);
    expect(await listed(user)).toEqual([]);
    expect(await listed(moderator)).toContain(e.entryid);
    expect(await listed(admin)).toContain(e.entryid);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get(`/work_log/${e.entryid}`, { token: moderator.token })).statusCode).toBe(200);
    expect((await t.get(`/work_log/${e.entryid}`, { token: author.token })).json()).toMatchObject({ entryid: e.entryid, guideid: privateGuide.guideid });
    expect((await t.get('/work_log/999999', { token: user.token })).statusCode).toBe(404);
    expect((await t.get('/work_log/abc', { token: user.token })).statusCode).toBe(422);
    // a user may not act on an entry they cannot read
    expect((await act(user, e.entryid, 'pause')).statusCode).toBe(403);
  });

  it('GET /work_log/{guideid}/suspended: the guide\'s suspended entries, to assume', async () => {
    const a = await start(user);
    const b = await start(other);
    await act(user, a.entryid, 'suspend');
    const list = (await t.get(`/work_log/${guide.guideid}/suspended`, { token: moderator.token })).json();
    expect(list.map((e: { entryid: number }) => e.entryid)).toContain(a.entryid);
    expect(list.map((e: { entryid: number }) => e.entryid)).not.toContain(b.entryid);
    expect(list.every((e: { status: string; guideid: number }) => e.status === 'suspended' && e.guideid === guide.guideid)).toBe(true);
    expect((await t.get(`/work_log/${guide.guideid}/suspended?langid=de`, { token: user.token })).statusCode).toBe(404);
    expect((await t.get(`/work_log/${privateGuide.guideid}/suspended`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get(`/work_log/${privateGuide.guideid}/suspended`, { token: author.token })).json()).toEqual([]);
    expect((await t.get('/work_log/999999/suspended', { token: user.token })).statusCode).toBe(404);
    expect((await t.get(`/work_log/${guide.guideid}/suspended`)).statusCode).toBe(401);
  });
});

describe('DELETE /work_log/{entryid}', () => {
  it('the assignee, a Moderator or an Admin deletes an entry with its step data: 204, gone; others 403', async () => {
    const e = await start(user);
    await t.put(`/work_log/${e.entryid}/stepData`, { token: user.token, body: { steps: [{ stepid: guide.steps[0].stepid, checked: true }] } });
    expect((await t.del(`/work_log/${e.entryid}`, { token: other.token })).statusCode).toBe(403);
    expect(await stored(e.entryid)).toBeDefined();
    expect((await t.del(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(204);
    expect(await stored(e.entryid)).toBeUndefined();
    expect(await t.db.selectFrom('work_log_steps').selectAll().where('entryid', '=', e.entryid).execute()).toEqual([]);
    expect((await t.del(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(404);
    const f = await start(user);
    expect((await t.del(`/work_log/${f.entryid}`, { token: moderator.token })).statusCode).toBe(204);
    expect((await t.del(`/work_log/${f.entryid}`)).statusCode).toBe(401);
  });
});

describe('query counts', () => {
  it('a page of entries costs the same number of queries for 2 entries and for 40, with step data', async () => {
    const who = await makeUser(t);
    const page = async (limit: number) => {
      let n = 0;
      t.app.dbHandle.setQueryListener!(() => { n++; });
      try {
        const res = await t.get(`/work_log?userid=${who.userid}&limit=${limit}`, { token: who.token });
        expect(res.json()).toHaveLength(limit);
      } finally {
        t.app.dbHandle.setQueryListener!(null);
      }
      return n;
    };
    for (let i = 0; i < 40; i++) {
      const e = await start(who);
      await t.put(`/work_log/${e.entryid}/stepData`, { token: who.token, body: { steps: [{ stepid: guide.steps[0].stepid, checked: true }] } });
    }
    expect(await page(40)).toBe(await page(2));
  });
});
