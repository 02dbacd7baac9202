// The work log as its clients (the platform's automation app, the live sites' API pages)
// drive it: the exact requests and answers of issue 11, on a guide with form fields.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';

const CLIENT_FIELDS = ['entryid', 'guideid', 'userid', 'workorderid', 'starttime', 'endtime', 'max_form_revisionid', 'cancelled', 'duration', 'status', 'work_data', 'timingid'];
const keysOf = (o: object) => Object.keys(o);

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
let other: TestUser;
let guide: any;
let privateGuide: any;
/** The guide's fields: [tension (number, required), torqued (checkbox, required), result (choice), remarks (text)]. */
let f: { tension: number; torqued: number; result: number; remarks: number };
let steps: number[];
const t = appForFile({}, async () => {
  [admin, author, moderator, user, other] = await Promise.all([makeAdmin(t), makeAuthor(t), makeModerator(t), makeUser(t), makeUser(t)]);
  guide = await makePublishedGuide(t, author, 1);
  guide = await addStep(t, author, guide, {
    title: 'Set the tension',
    fields: [{ type: 'number', label: 'Belt tension (Hz)', required: true }, { type: 'checkbox', label: 'Bolts torqued', required: true }],
  });
  guide = await addStep(t, author, guide, {
    title: 'Test',
    fields: [{ type: 'choice', label: 'Test run', options: ['Quiet', 'Squeal'] }, { type: 'text', label: 'Remarks' }],
  });
  steps = guide.steps.map((s: { stepid: number }) => s.stepid);
  const [, s2, s3] = guide.steps;
  f = { tension: s2.fields[0].field_revisionid, torqued: s2.fields[1].field_revisionid, result: s3.fields[0].field_revisionid, remarks: s3.fields[1].field_revisionid };
  privateGuide = await addStep(t, author, await makeGuide(t, author), { title: 'Only step' });
});

const stored = (entryid: number) => t.db.selectFrom('work_log').selectAll().where('entryid', '=', entryid).executeTakeFirst();
const start = async (who: TestUser, body: Record<string, unknown> = {}) => {
  const res = await t.post('/work_log', { token: who.token, body: { guideid: guide.guideid, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const act = (who: TestUser, entryid: number, action: string, body?: unknown) => t.post(`/work_log/${entryid}/${action}`, { token: who.token, body });
const stepData = (who: TestUser, entryid: number, body: unknown) => t.put(`/work_log/${entryid}/stepData`, { token: who.token, body });

describe('form fields on steps', () => {
  it('are part of the step record; max_form_revisionid is the highest field_revisionid of the revision', async () => {
    const step = guide.steps[1];
    expect(step.fields).toEqual([
      { field_revisionid: f.tension, type: 'number', label: 'Belt tension (Hz)', required: true, options: [] },
      { field_revisionid: f.torqued, type: 'checkbox', label: 'Bolts torqued', required: true, options: [] },
    ]);
    expect(guide.steps[2].fields[0]).toMatchObject({ type: 'choice', options: ['Quiet', 'Squeal'], required: false });
    expect(guide.steps[0].fields).toEqual([]);
  });
});

describe('the client\'s requests', () => {
  it('POST /work_log {"guideid", "workorderid"}: 201 with the client\'s fields', async () => {
    const res = await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: 'WO-1001' } });
    expect(res.statusCode).toBe(201);
    const e = res.json();
    expect(keysOf(e)).toEqual(expect.arrayContaining([...CLIENT_FIELDS, 'guide_revisionid']));
    expect(e).toMatchObject({
      guideid: guide.guideid, userid: user.userid, workorderid: 'WO-1001', starttime: t.clock.now(), endtime: null,
      max_form_revisionid: f.remarks, cancelled: 0, duration: 0, status: 'started', work_data: [], timingid: null, guide_revisionid: guide.revisionid,
    });
    expect(await stored(e.entryid)).toMatchObject({ workorderid: 'WO-1001', status: 'started', userid: user.userid });
  });

  it('join_code: empty is ignored; any other value is a 422 that says why and stores nothing', async () => {
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: '7', join_code: '' } })).statusCode).toBe(201);
    const before = (await t.db.selectFrom('work_log').select('entryid').execute()).length;
    const res = await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: '7', join_code: 'ABC123' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'join_code', code: 'unsupported' });
    expect(res.json().errors[0].message).toContain('assume');
    expect((await t.db.selectFrom('work_log').select('entryid').execute()).length).toBe(before);
  });

  it('PUT stepData {"fields": {...}}: values kept as strings with who entered them; lasttimingid closes a timing and opens the next', async () => {
    const e = await start(user, { workorderid: 'WO-2' });
    t.clock.advance(30);
    let r = await stepData(user, e.entryid, { fields: {} });
    expect(r.statusCode).toBe(200);
    const first = r.json().timingid;
    expect(first).toEqual(expect.any(Number));
    t.clock.advance(60);
    r = await stepData(user, e.entryid, { fields: { [f.tension]: 45.5, [f.torqued]: true }, lasttimingid: first });
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body.work_data).toEqual([
      { label: 'Belt tension (Hz)', value: '45.5', field_revisionid: f.tension, stepid: steps[1], userid: user.userid, modified_date: t.clock.now() },
      { label: 'Bolts torqued', value: '1', field_revisionid: f.torqued, stepid: steps[1], userid: user.userid, modified_date: t.clock.now() },
    ]);
    expect(body.timingid).not.toBe(first);
    expect(body.timings).toEqual([
      { timingid: first, stepid: steps[1], userid: user.userid, starttime: t.clock.now() - 60, endtime: t.clock.now() },
      { timingid: body.timingid, stepid: null, userid: user.userid, starttime: t.clock.now(), endtime: null },
    ]);
    // strings, numbers and booleans all become strings; false is "0"; null removes a value
    r = await stepData(user, e.entryid, { fields: { [f.torqued]: false, [f.result]: 'Quiet', [f.remarks]: 12, [f.tension]: null }, lasttimingid: body.timingid });
    expect(r.json().work_data.map((w: any) => [w.field_revisionid, w.value])).toEqual([[f.torqued, '0'], [f.result, 'Quiet'], [f.remarks, '12']]);
    const rows = await t.db.selectFrom('work_log_values').select(['field_revisionid', 'value', 'userid']).where('entryid', '=', e.entryid).orderBy('field_revisionid').execute();
    expect(rows).toEqual([
      { field_revisionid: f.torqued, value: '0', userid: user.userid },
      { field_revisionid: f.result, value: 'Quiet', userid: user.userid },
      { field_revisionid: f.remarks, value: '12', userid: user.userid },
    ]);
  });

  it('stepData: an unknown field is a 422 naming it; a wrong value or a stale lasttimingid too; nothing is stored', async () => {
    const e = await start(user);
    const timing = (await stepData(user, e.entryid, { fields: {} })).json().timingid;
    const otherField = 999_999;
    const cases: Array<[unknown, string]> = [
      [{ fields: { [f.tension]: 3, [otherField]: 'x' } }, `fields.${otherField}`],
      [{ fields: { abc: 'x' } }, 'fields.abc'],
      [{ fields: { [f.tension]: 'fast' } }, `fields.${f.tension}`],
      [{ fields: { [f.torqued]: 'maybe' } }, `fields.${f.torqued}`],
      [{ fields: { [f.result]: 'Loud' } }, `fields.${f.result}`],
      [{ fields: { [f.tension]: 3 }, lasttimingid: timing + 1000 }, 'lasttimingid'],
    ];
    for (const [body, field] of cases) {
      const r = await stepData(user, e.entryid, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json().errors.map((x: any) => x.field), JSON.stringify(body)).toContain(field);
    }
    expect(r422(await stepData(user, e.entryid, {}))).toContain('fields');
    expect(await t.db.selectFrom('work_log_values').selectAll().where('entryid', '=', e.entryid).execute()).toEqual([]);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).json().timingid).toBe(timing);
    // a field of another revision of the guide is not one of this entry's
    const edited = (await t.patch(`/guides/${guide.guideid}/steps/${steps[2]}?revisionid=${guide.steps[2].revisionid}`, {
      token: author.token, body: { fields: [{ type: 'choice', label: 'Test run', options: ['Quiet', 'Squeal'] }, { type: 'text', label: 'Remarks (optional)' }] },
    })).json();
    expect(edited.fields[0].field_revisionid).toBe(f.result);
    const renamed = edited.fields[1].field_revisionid;
    expect(renamed).toBeGreaterThan(f.remarks);
    const r = await stepData(user, e.entryid, { fields: { [renamed]: 'x' } });
    expect(r.json().errors[0]).toMatchObject({ field: `fields.${renamed}` });
    const newer = await start(user);
    expect(newer.max_form_revisionid).toBe(renamed);
    expect((await stepData(user, newer.entryid, { fields: { [renamed]: 'ok' } })).statusCode).toBe(200);
    // put the guide back for the other tests
    guide = (await t.get(`/guides/${guide.guideid}`)).json();
  });

  it('POST finish: a required field empty (a required checkbox unchecked) is a 422 listing them; then complete with endtime and guide_revisionid', async () => {
    const e = await start(user, { workorderid: 'WO-3' });
    await stepData(user, e.entryid, { fields: { [f.torqued]: false } });
    t.clock.advance(120);
    let r = await act(user, e.entryid, 'finish');
    expect(r.statusCode).toBe(422);
    expect(r.json().errors.map((x: any) => x.field).sort()).toEqual([`fields.${f.tension}`, `fields.${f.torqued}`].sort());
    expect((await stored(e.entryid))!.status).toBe('started');
    await stepData(user, e.entryid, { fields: { [f.tension]: '45', [f.torqued]: '1' } });
    r = await act(user, e.entryid, 'finish');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'complete', endtime: t.clock.now(), max_form_revisionid: e.max_form_revisionid, guide_revisionid: e.guide_revisionid, duration: 120, timingid: null });
    expect(r.json().timings.every((x: any) => x.endtime !== null)).toBe(true);
  });

  it('GET /work_log?guideid=&userid=&workorderid=&limit=&order=: {"results": [...]}; a finished entry as the client reads it', async () => {
    const who = await makeUser(t);
    const a = await start(who, { workorderid: 'WO-9' });
    const b = await start(who, { workorderid: 'WO-9' });
    await start(who, { workorderid: 'WO-10' });
    await stepData(who, a.entryid, { fields: { [f.tension]: 40, [f.torqued]: true } });
    t.clock.advance(10);
    await act(who, a.entryid, 'finish');
    const res = await t.get(`/work_log?guideid=${guide.guideid}&userid=${who.userid}&workorderid=WO-9&limit=10&order=DESC`, { token: who.token });
    expect(res.statusCode).toBe(200);
    expect(keysOf(res.json())).toEqual(['results']);
    const results = res.json().results;
    expect(results.map((x: any) => x.entryid)).toEqual([b.entryid, a.entryid]);
    expect(results[1]).toMatchObject({
      status: 'complete', endtime: t.clock.now(), guide_revisionid: a.guide_revisionid, duration: 10, cancelled: 0,
      work_data: [expect.objectContaining({ label: 'Belt tension (Hz)', value: '40', field_revisionid: f.tension, stepid: steps[1] }), expect.objectContaining({ value: '1' })],
    });
    const one = await t.get(`/work_log/${a.entryid}`, { token: who.token });
    expect(one.json()).toEqual(results[1]);
    expect((await t.get('/work_log?status=finished', { token: who.token })).json().errors[0].field).toBe('status');
  });
});

function r422(res: { statusCode: number; json: () => any }): string[] {
  expect(res.statusCode).toBe(422);
  return res.json().errors.map((x: any) => x.field);
}

describe('POST /work_log', () => {
  it('takes a kept revision of the guide; another guide\'s revision is a 422 naming revisionid', async () => {
    const old = guide.revisionid;
    const e = await start(user, { revisionid: old });
    expect(e.guide_revisionid).toBe(old);
    expect(r422(await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, revisionid: privateGuide.revisionid } }))).toEqual(['revisionid']);
  });

  it('422 for an unknown guide, a missing guideid, a language the guide lacks, unknown fields; nothing stored', async () => {
    const before = (await t.db.selectFrom('work_log').select('entryid').execute()).length;
    expect(r422(await t.post('/work_log', { token: user.token, body: { guideid: 999999 } }))).toEqual(['guideid']);
    expect((await t.post('/work_log', { token: user.token, body: {} })).json().errors[0]).toMatchObject({ field: 'guideid', code: 'missing_field' });
    expect(r422(await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, langid: 'fr' } }))).toEqual(['langid']);
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, status: 'complete' } })).statusCode).toBe(422);
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, workorderid: 5 } })).statusCode).toBe(422);
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
    expect(e).toMatchObject({ userid: other.userid, userid_created: moderator.userid, status: 'started' });
    expect((await t.post('/work_log', { token: user.token, body: { guideid: guide.guideid, userid: other.userid } })).statusCode).toBe(403);
    expect(r422(await t.post('/work_log', { token: admin.token, body: { guideid: guide.guideid, userid: 999999 } }))).toEqual(['userid']);
    expect(r422(await t.post('/work_log', { token: admin.token, body: { guideid: privateGuide.guideid, userid: user.userid } }))).toEqual(['userid']);
  });
});

describe('the state machine', () => {
  it('pause stops the timing, resume restarts it; suspend, assume, finish; durations leave pauses out', async () => {
    const e = await start(user);
    const timing = (await stepData(user, e.entryid, { fields: {} })).json().timingid;
    t.clock.advance(100);
    let r = await act(user, e.entryid, 'pause');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'paused', duration: 100, status_date: t.clock.now(), endtime: null, timingid: null });
    expect(r.json().timings).toEqual([{ timingid: timing, stepid: null, userid: user.userid, starttime: t.clock.now() - 100, endtime: t.clock.now() }]);
    t.clock.advance(1000);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).json().duration).toBe(100);
    r = await act(user, e.entryid, 'resume');
    expect(r.json()).toMatchObject({ status: 'started', duration: 100 });
    expect(r.json().timingid).toBeGreaterThan(timing);
    t.clock.advance(50);
    await stepData(user, e.entryid, { fields: { [f.tension]: 44 } });
    r = await act(user, e.entryid, 'suspend', { notes: 'Shift over' });
    expect(r.json()).toMatchObject({ status: 'suspended', duration: 150, notes: 'Shift over', timingid: null });
    t.clock.advance(500);
    r = await act(other, e.entryid, 'assume');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'started', userid: other.userid, userid_created: user.userid, duration: 150 });
    const assumed = r.json();
    expect(assumed.timings.at(-1)).toMatchObject({ userid: other.userid, endtime: null });
    // who did which part: the user's value stays theirs, the assumer's is theirs
    r = await stepData(other, e.entryid, { fields: { [f.torqued]: true }, lasttimingid: assumed.timingid });
    expect(r.json().work_data.map((w: any) => [w.field_revisionid, w.userid])).toEqual([[f.tension, user.userid], [f.torqued, other.userid]]);
    t.clock.advance(25);
    r = await act(other, e.entryid, 'finish');
    expect(r.json()).toMatchObject({ status: 'complete', duration: 175, endtime: t.clock.now() });
    expect(await stored(e.entryid)).toMatchObject({ status: 'complete', userid: other.userid, active_seconds: 175, active_since: null, end_date: t.clock.now() });
  });

  it('invalid transitions are 422 invalid_transition with a clear message, and change nothing', async () => {
    const e = await start(user);
    for (const [who, action] of [[user, 'resume'], [other, 'assume']] as Array<[TestUser, string]>) {
      const r = await act(who, e.entryid, action);
      expect(r.statusCode, action).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ field: 'status', code: 'invalid_transition' });
    }
    expect((await act(user, e.entryid, 'resume')).json().message).toBe('Only an entry that is paused or suspended can be resumed. This entry is started.');
    await act(user, e.entryid, 'cancel');
    const before = await stored(e.entryid);
    for (const action of ['pause', 'resume', 'suspend', 'finish', 'cancel', 'assume']) {
      const r = await act(action === 'assume' ? other : user, e.entryid, action);
      expect(r.statusCode, action).toBe(422);
    }
    expect(await stored(e.entryid)).toEqual(before);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).json()).toMatchObject({ status: 'cancelled', cancelled: 1 });
    const s = await start(user);
    await act(user, s.entryid, 'suspend');
    expect((await act(user, s.entryid, 'assume')).json().message).toContain('assigned to you already');
    expect((await act(user, s.entryid, 'resume')).json().status).toBe('started');
  });

  it('only the assignee, a Moderator or an Admin moves an entry (403 for others; nothing changes); 404 for none', async () => {
    const e = await start(user);
    for (const action of ['pause', 'suspend', 'finish', 'cancel']) expect((await act(other, e.entryid, action)).statusCode, action).toBe(403);
    expect((await stored(e.entryid))!.status).toBe('started');
    expect((await act(moderator, e.entryid, 'pause')).json().status).toBe('paused');
    expect((await act(admin, e.entryid, 'resume')).json().status).toBe('started');
    expect((await act(user, 999999, 'pause')).statusCode).toBe(404);
    expect((await act(user, 0, 'pause')).statusCode).toBe(422);
    expect((await t.post(`/work_log/${e.entryid}/pause`)).statusCode).toBe(401);
    expect((await stepData(other, e.entryid, { fields: {} })).statusCode).toBe(403);
  });

  it('step data only while started or paused', async () => {
    const e = await start(user);
    await act(user, e.entryid, 'pause');
    expect((await stepData(user, e.entryid, { fields: { [f.tension]: 1 } })).statusCode).toBe(200);
    await act(user, e.entryid, 'cancel');
    const r = await stepData(user, e.entryid, { fields: { [f.tension]: 2 } });
    expect(r.statusCode).toBe(422);
    expect(r.json().errors[0].code).toBe('invalid_transition');
    expect((await stepData(user, 999999, { fields: {} })).statusCode).toBe(404);
  });

  it('two simultaneous transitions of one entry: exactly one succeeds', async () => {
    const e = await start(user);
    const answers = await Promise.all([act(user, e.entryid, 'cancel'), act(user, e.entryid, 'pause'), act(user, e.entryid, 'suspend')]);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 422)).toHaveLength(2);
    const suspended = await start(user);
    await act(user, suspended.entryid, 'suspend');
    const takers = await Promise.all([act(other, suspended.entryid, 'assume'), act(moderator, suspended.entryid, 'assume'), act(admin, suspended.entryid, 'assume')]);
    expect(takers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    const winner = takers.find((a) => a.statusCode === 200)!.json().userid;
    expect((await stored(suspended.entryid))!.userid).toBe(winner);
    expect(await t.db.selectFrom('work_log_timings').select('timingid').where('entryid', '=', suspended.entryid).where('end_date', 'is', null).execute()).toHaveLength(1);
  });
});

describe('reading', () => {
  it('entries on a private guide: listed and read only by those who may read the guide, its assignee, Moderators and Admins', async () => {
    const e = (await t.post('/work_log', { token: author.token, body: { guideid: privateGuide.guideid } })).json();
    const listed = async (who: TestUser) => (await t.get(`/work_log?guideid=${privateGuide.guideid}`, { token: who.token })).json().results.map((x: { entryid: number }) => x.entryid);
    expect(await listed(user)).toEqual([]);
    expect(await listed(moderator)).toContain(e.entryid);
    expect(await listed(admin)).toContain(e.entryid);
    expect((await t.get(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get(`/work_log/${e.entryid}`, { token: moderator.token })).statusCode).toBe(200);
    expect((await t.get('/work_log/999999', { token: user.token })).statusCode).toBe(404);
    expect((await t.get('/work_log/abc', { token: user.token })).statusCode).toBe(422);
    expect((await act(user, e.entryid, 'pause')).statusCode).toBe(403);
    expect((await t.get('/work_log?limit=201', { token: user.token })).statusCode).toBe(422);
    expect((await t.get('/work_log')).statusCode).toBe(401);
  });

  it('GET /work_log/{guideid}/suspended: {"results": [...]}, the guide\'s suspended entries, to assume', async () => {
    const a = await start(user);
    const b = await start(other);
    await act(user, a.entryid, 'suspend');
    const list = (await t.get(`/work_log/${guide.guideid}/suspended`, { token: moderator.token })).json().results;
    expect(list.map((e: { entryid: number }) => e.entryid)).toContain(a.entryid);
    expect(list.map((e: { entryid: number }) => e.entryid)).not.toContain(b.entryid);
    expect(list.every((e: { status: string; guideid: number }) => e.status === 'suspended' && e.guideid === guide.guideid)).toBe(true);
    expect((await t.get(`/work_log/${privateGuide.guideid}/suspended`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get(`/work_log/${privateGuide.guideid}/suspended`, { token: author.token })).json()).toEqual({ results: [] });
    expect((await t.get('/work_log/999999/suspended', { token: user.token })).statusCode).toBe(404);
  });
});

describe('DELETE /work_log/{entryid}', () => {
  it('its creator deletes it while no one else took part: 204, gone with its values and timings', async () => {
    const e = await start(user);
    await stepData(user, e.entryid, { fields: { [f.tension]: 3 } });
    expect((await t.del(`/work_log/${e.entryid}`, { token: other.token })).statusCode).toBe(403);
    expect((await t.del(`/work_log/${e.entryid}`, { token: moderator.token })).statusCode).toBe(403);
    expect(await stored(e.entryid)).toBeDefined();
    expect((await t.del(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(204);
    expect(await stored(e.entryid)).toBeUndefined();
    expect(await t.db.selectFrom('work_log_values').selectAll().where('entryid', '=', e.entryid).execute()).toEqual([]);
    expect(await t.db.selectFrom('work_log_timings').selectAll().where('entryid', '=', e.entryid).execute()).toEqual([]);
    expect((await t.del(`/work_log/${e.entryid}`, { token: user.token })).statusCode).toBe(404);
    expect((await t.del(`/work_log/${(await start(user)).entryid}`)).statusCode).toBe(401);
  });

  it('an assumed entry is no one\'s to erase but an Admin\'s: neither the assumer nor, once the assumer took part, its creator', async () => {
    const e = await start(author);
    await stepData(author, e.entryid, { fields: { [f.tension]: 45 } });
    await act(author, e.entryid, 'suspend');
    expect((await act(other, e.entryid, 'assume')).statusCode).toBe(200);
    // the assumer may not delete what the creator recorded
    const byAssumer = await t.del(`/work_log/${e.entryid}`, { token: other.token });
    expect(byAssumer.statusCode).toBe(403);
    // nor the creator what the assumer did (a timing is open for them, then a value)
    await stepData(other, e.entryid, { fields: { [f.torqued]: true } });
    const byCreator = await t.del(`/work_log/${e.entryid}`, { token: author.token });
    expect(byCreator.statusCode).toBe(403);
    expect(byCreator.json().message).toContain('Another user took part');
    const entry = (await t.get(`/work_log/${e.entryid}`, { token: author.token })).json();
    expect(entry.work_data.map((w: any) => [w.field_revisionid, w.userid])).toEqual([[f.tension, author.userid], [f.torqued, other.userid]]);
    expect((await t.del(`/work_log/${e.entryid}`, { token: admin.token })).statusCode).toBe(204);
    expect(await stored(e.entryid)).toBeUndefined();
  });
});

describe('query counts', () => {
  it('a page of entries costs the same number of queries for 2 entries and for 40, with values and timings', async () => {
    const who = await makeUser(t);
    const page = async (limit: number) => {
      let n = 0;
      t.app.dbHandle.setQueryListener!(() => { n++; });
      try {
        const res = await t.get(`/work_log?userid=${who.userid}&limit=${limit}`, { token: who.token });
        expect(res.json().results).toHaveLength(limit);
      } finally {
        t.app.dbHandle.setQueryListener!(null);
      }
      return n;
    };
    for (let i = 0; i < 40; i++) {
      const e = await start(who);
      await stepData(who, e.entryid, { fields: { [f.tension]: i } });
    }
    expect(await page(40)).toBe(await page(2));
  });
});
