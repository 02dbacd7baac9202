import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeGuide, makeImage, makePublishedGuide, makeVideo } from '../../helpers/factories/guides.js';
import { BULLET_STYLE_FIELDS, keys, LINE_FIELDS, sorted, STEP_FIELDS, VIDEO_DETAIL_FIELDS } from './records.js';

let author: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
  user = await makeUser(t);
});

describe('POST /guides/{guideid}/steps', () => {
  it('adds a step: 201 with the whole guide; lines, bullets, levels and image media read back', async () => {
    const [i1, i2] = [await makeImage(t, author.userid), await makeImage(t, author.userid)];
    const g = await makeGuide(t, author);
    const res = await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, {
      token: author.token,
      body: {
        title: 'Remove the screws',
        lines: [line("Remove the two '''3.4 mm''' screws."), line('Keep them apart', { bullet: 'red', level: 1 }), line('Magnetic mat helps', { bullet: 'icon_note', level: 2 })],
        media: { type: 'image', data: [i2, i1] },
      },
    });
    expect(res.statusCode).toBe(201);
    const guide = res.json();
    expect(guide.revisionid).toBeGreaterThan(g.revisionid);
    expect(guide.steps).toHaveLength(1);
    const step = guide.steps[0];
    expect(Object.keys(step)).toEqual(STEP_FIELDS);
    expect(step).toMatchObject({ title: 'Remove the screws', guideid: g.guideid, orderby: 1, comments: [] });
    expect(step.media.type).toBe('image');
    expect(step.media.data.map((i: { id: number }) => i.id)).toEqual([i2, i1]);
    expect(step.imageURL).toBe(step.media.data[0].standard);
    expect(step.lines).toHaveLength(3);
    for (const l of step.lines) {
      expect(keys(l)).toEqual(sorted(LINE_FIELDS));
      expect(keys(l.bullet_style)).toEqual(sorted(BULLET_STYLE_FIELDS));
    }
    expect(step.lines[0]).toMatchObject({ text_raw: "Remove the two '''3.4 mm''' screws.", text_rendered: 'Remove the two <strong>3.4 mm</strong> screws.', bullet: 'black', level: 0 });
    expect(step.lines[1]).toMatchObject({ bullet: 'red', level: 1, bullet_style: { type: 'color', bullet_color: '#d62d20', label: 'Red' } });
    expect(step.lines[2]).toMatchObject({ bullet: 'icon_note', level: 2, bullet_style: { type: 'icon', char: 'i' } });
    expect(step.lines[1].bullet_styleid).toBe(step.lines[1].bullet_style.bullet_styleid);
    const stored = await t.db.selectFrom('guide_lines').select(['text', 'bullet', 'level']).where('stepid', '=', step.stepid).orderBy('orderby').execute();
    expect(stored.map((l) => l.bullet)).toEqual(['black', 'red', 'icon_note']);
  });

  it('a video step reads back with type video and the video record', async () => {
    const video = await makeVideo(t, author.userid);
    const g = await addStep(t, author, await makeGuide(t, author), { media: { type: 'object', data: video } });
    const media = g.steps[0].media;
    expect(media.type).toBe('video');
    expect(media.data.videoid).toBe(video);
    for (const f of VIDEO_DETAIL_FIELDS) expect(media.data).toHaveProperty(f);
    expect(g.steps[0].imageURL).toBeNull();
  });

  it('bullet_styleid chooses the style; orderby inserts at a position', async () => {
    let g = await makePublishedGuide(t, author, 2);
    const style = g.steps[0].lines[0].bullet_style;
    g = await addStep(t, author, g, { title: 'First now', orderby: 1, lines: [line('x', { bullet_styleid: style.bullet_styleid })] });
    expect(g.steps.map((s: { title: string; orderby: number }) => [s.title, s.orderby])).toEqual([['First now', 1], ['Step 1', 2], ['Step 2', 3]]);
    g = await addStep(t, author, g, { title: 'Far', orderby: 99 });
    expect(g.steps.map((s: { orderby: number }) => s.orderby)).toEqual([1, 2, 3, 4]);
    expect(g.steps[3].title).toBe('Far');
  });

  it('422 for bad lines and media', async () => {
    const g = await makeGuide(t, author);
    const path = `/guides/${g.guideid}/steps?revisionid=${g.revisionid}`;
    const video = await makeVideo(t, author.userid);
    const image = await makeImage(t, author.userid);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{}, 'lines', 'missing_field'],
      [{ lines: [] }, 'lines', 'out_of_range'],
      [{ lines: [{ bullet: 'red' }] }, 'lines[0].text', 'missing_field'],
      [{ lines: [line('  ')] }, 'lines[0].text', 'invalid_value'],
      [{ lines: [line('a', { level: 1 })] }, 'lines[0].level', 'invalid_value'],
      [{ lines: [line('a'), line('b', { level: 4 })] }, 'lines[1].level', 'out_of_range'],
      [{ lines: [line('a'), line('b', { bullet: 'plaid' })] }, 'lines[1].bullet', 'invalid_value'],
      [{ lines: [line('a', { bullet_styleid: 9999 })] }, 'lines[0].bullet_styleid', 'invalid_value'],
      [{ lines: [line('a')], media: { type: 'image', data: [999999] } }, 'media.data[0]', 'invalid_value'],
      [{ lines: [line('a')], media: { type: 'image', data: [image, image] } }, 'media.data[1]', 'duplicate'],
      [{ lines: [line('a')], media: { type: 'image', data: video } }, 'media.data', 'invalid_value'],
      [{ lines: [line('a')], media: { type: 'object', data: [video] } }, 'media.data', 'invalid_value'],
      [{ lines: [line('a')], media: { type: 'object', data: 999999 } }, 'media.data', 'invalid_value'],
      [{ lines: [line('a')], media: { type: 'gif', data: 1 } }, 'media.type', 'invalid_value'],
      [{ lines: [line('a')], orderby: 0 }, 'orderby', 'out_of_range'],
      [{ lines: [line('a')], colour: 'red' }, 'colour', 'invalid_value'],
    ];
    for (const [body, field, code] of cases) {
      const res = await t.post(path, { token: author.token, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors[0], JSON.stringify(body)).toMatchObject({ field, code });
    }
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).json().steps).toEqual([]);
  });

  it('401, 403, 404, 409 with the current guide when the revisionid sent is stale', async () => {
    const g = await makeGuide(t, author);
    const body = { lines: [line('a')] };
    expect((await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { body })).statusCode).toBe(401);
    expect((await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: user.token, body })).statusCode).toBe(403);
    expect((await t.post('/guides/999999/steps?revisionid=1', { token: author.token, body })).statusCode).toBe(404);
    const stale = await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid + 500}`, { token: author.token, body });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual(g);
    expect((await t.post(`/guides/${g.guideid}/steps`, { body })).statusCode).toBe(401);
    expect((await t.post(`/guides/${g.guideid}/steps`, { token: user.token, body })).statusCode).toBe(403);
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).json()).toEqual(g);
  });

  // What a live site answers to clients that send no revisionid: the step is added (a
  // documented exception to the versioning rule), 201 with the whole guide.
  describe('without a revisionid, as real clients send it', () => {
    const QA_STEP = { orderby: 1, title: 'QA step', lines: [{ text: 'probe', level: 0, bullet: 'black' }] };
    const revisionsOf = async (guideid: number) =>
      (await t.db.selectFrom('guide_revisions').select('action').where('guideid', '=', guideid).orderBy('revisionid').execute()).map((r) => r.action);

    it('the client\'s exact body: 201 with the whole guide, the step at its orderby, as a new guide revision', async () => {
      const g = await makePublishedGuide(t, author, 2);
      const res = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: QA_STEP });
      expect(res.statusCode, res.body).toBe(201);
      const guide = res.json();
      expect(guide.guideid).toBe(g.guideid);
      expect(guide.revisionid).toBeGreaterThan(g.revisionid);
      expect(guide.steps.map((s: { title: string }) => s.title)).toEqual(['QA step', 'Step 1', 'Step 2']);
      expect(guide.steps.map((s: { orderby: number }) => s.orderby)).toEqual([1, 2, 3]);
      expect(guide.steps[0].lines).toMatchObject([{ text_raw: 'probe', bullet: 'black', level: 0 }]);
      expect((await t.get(`/guides/${g.guideid}`)).json()).toEqual(guide);
      expect(await revisionsOf(g.guideid)).toEqual(['create', 'step_add', 'step_add', 'step_add']);
    });

    it('without orderby the step goes last; with image or video media too', async () => {
      const image = await makeImage(t, author.userid);
      const video = await makeVideo(t, author.userid);
      const g = await makePublishedGuide(t, author, 1);
      const last = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: { title: 'Last', lines: QA_STEP.lines } });
      expect(last.statusCode, last.body).toBe(201);
      expect(last.json().steps.map((s: { title: string }) => s.title)).toEqual(['Step 1', 'Last']);
      const withImage = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: { ...QA_STEP, media: { type: 'image', data: [image] } } });
      expect(withImage.statusCode, withImage.body).toBe(201);
      expect(withImage.json().steps[0].media.type).toBe('image');
      expect(withImage.json().steps[0].media.data.map((i: { id: number }) => i.id)).toEqual([image]);
      const withVideo = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: { ...QA_STEP, media: { type: 'object', data: video } } });
      expect(withVideo.statusCode, withVideo.body).toBe(201);
      expect(withVideo.json().steps[0].media).toMatchObject({ type: 'video', data: { videoid: video } });
      expect(withVideo.json().steps.map((s: { title: string }) => s.title)).toEqual(['QA step', 'QA step', 'Step 1', 'Last']);
    });

    it('with a revisionid the check stays: 409 when stale, nothing added', async () => {
      const g = await makePublishedGuide(t, author, 1);
      const moved = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: QA_STEP });
      expect(moved.statusCode).toBe(201);
      const stale = await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: author.token, body: QA_STEP });
      expect(stale.statusCode).toBe(409);
      expect(stale.json()).toEqual(moved.json());
    });

    it('bad bodies are still 422 and add nothing', async () => {
      const g = await makePublishedGuide(t, author, 1);
      const res = await t.post(`/guides/${g.guideid}/steps`, { token: author.token, body: { ...QA_STEP, lines: [{ text: 'probe', level: 0, bullet: 'plaid' }] } });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ field: 'lines[0].bullet' });
      expect((await t.get(`/guides/${g.guideid}`)).json()).toEqual(g);
    });
  });
});

describe('PATCH /guides/{guideid}/steps/{stepid}', () => {
  it('edits with the step\'s own revisionid; the guide\'s revisionid moves too; lineids kept when sent', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const step = g.steps[1];
    const image = await makeImage(t, author.userid);
    const keep = step.lines[0].lineid;
    const res = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, {
      token: author.token,
      body: { title: 'Renamed', lines: [line('kept', { lineid: keep }), line('new', { bullet: 'green', level: 1 })], media: { type: 'image', data: [image] } },
    });
    expect(res.statusCode).toBe(200);
    const s = res.json();
    expect(Object.keys(s)).toEqual(STEP_FIELDS);
    expect(s).toMatchObject({ stepid: step.stepid, title: 'Renamed', orderby: 2 });
    expect(s.revisionid).toBeGreaterThan(step.revisionid);
    expect(s.lines.map((l: { lineid: number; text_raw: string }) => [l.lineid === keep, l.text_raw])).toEqual([[true, 'kept'], [false, 'new']]);
    expect(s.media.data[0].id).toBe(image);
    const guide = (await t.get(`/guides/${g.guideid}`)).json();
    expect(guide.revisionid).toBeGreaterThan(g.revisionid);
    expect(res.headers['x-guide-revisionid']).toBe(String(guide.revisionid));
    expect(guide.steps[1]).toEqual(s);
    expect(guide.steps[0]).toEqual(g.steps[0]);
    // every revision kept: the guide as it was still reads back
    expect((await t.get(`/guides/${g.guideid}?revisionid=${g.revisionid}`)).json().steps).toEqual(g.steps);
  });

  it('moves a step with orderby; removes media with null', async () => {
    const image = await makeImage(t, author.userid);
    let g = await makePublishedGuide(t, author, 3);
    g = await addStep(t, author, g, { title: 'With image', media: { type: 'image', data: [image] } });
    const last = g.steps[3];
    const moved = await t.patch(`/guides/${g.guideid}/steps/${last.stepid}?revisionid=${last.revisionid}`, { token: author.token, body: { orderby: 1, media: null } });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ orderby: 1, media: { type: 'image', data: [] }, imageURL: null });
    const after = (await t.get(`/guides/${g.guideid}`)).json();
    expect(after.steps.map((s: { title: string }) => s.title)).toEqual(['With image', 'Step 1', 'Step 2', 'Step 3']);
    expect(after.image).toBeNull();
  });

  it('409 with the current step when the step revisionid is stale (not the guide\'s)', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const step = g.steps[0];
    const first = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [line('edited')] } });
    expect(first.statusCode).toBe(200);
    const stale = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { lines: [line('stale edit')] } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual(first.json());
    expect(stale.json().lines[0].text_raw).toBe('edited');
    // the guide's revisionid is not a step's
    const g2 = (await t.get(`/guides/${g.guideid}`)).json();
    if (g2.revisionid !== first.json().revisionid) {
      expect((await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${g2.revisionid}`, { token: author.token, body: { title: 'x' } })).statusCode).toBe(409);
    }
  });

  it('two clients on one step revisionid: exactly one wins', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const step = g.steps[0];
    const other = await makeAuthor(t);
    const [a, b] = await Promise.all([
      t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { title: 'A' } }),
      t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: other.token, body: { title: 'B' } }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const [win, lose] = a.statusCode === 200 ? [a, b] : [b, a];
    expect(lose.json()).toEqual(win.json());
    const revs = await t.db.selectFrom('guide_step_revisions').select('action').where('stepid', '=', step.stepid).execute();
    expect(revs).toHaveLength(2);
  });

  it('401, 403, 404 (unknown step, or a step of another guide), 422', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const other = await makePublishedGuide(t, author, 1);
    const step = g.steps[0];
    const path = `/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`;
    expect((await t.patch(path, { body: { title: 'x' } })).statusCode).toBe(401);
    expect((await t.patch(path, { token: user.token, body: { title: 'x' } })).statusCode).toBe(403);
    expect((await t.patch(`/guides/${g.guideid}/steps/999999?revisionid=1`, { token: author.token, body: { title: 'x' } })).statusCode).toBe(404);
    expect((await t.patch(`/guides/${other.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { title: 'x' } })).statusCode).toBe(404);
    expect((await t.patch(path, { token: author.token, body: {} })).statusCode).toBe(422);
    expect((await t.patch(path, { token: author.token, body: { lines: [] } })).json().errors[0]).toMatchObject({ field: 'lines', code: 'out_of_range' });
    expect((await t.patch(`/guides/${g.guideid}/steps/${step.stepid}`, { token: author.token, body: { title: 'x' } })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
  });
});

describe('DELETE /guides/{guideid}/steps/{stepid}', () => {
  it('204; the others are numbered again; the old revision keeps the step', async () => {
    const g = await makePublishedGuide(t, author, 3);
    const middle = g.steps[1];
    const res = await t.del(`/guides/${g.guideid}/steps/${middle.stepid}?revisionid=${middle.revisionid}`, { token: author.token });
    expect(res.statusCode).toBe(204);
    const after = (await t.get(`/guides/${g.guideid}`)).json();
    expect(after.steps.map((s: { title: string; orderby: number }) => [s.title, s.orderby])).toEqual([['Step 1', 1], ['Step 3', 2]]);
    expect(after.revisionid).toBeGreaterThan(g.revisionid);
    expect((await t.get(`/guides/${g.guideid}?revisionid=${g.revisionid}`)).json().steps).toHaveLength(3);
    expect(await t.db.selectFrom('guide_lines').select('lineid').where('stepid', '=', middle.stepid).execute()).toEqual([]);
  });

  it('409 with the current step, 401, 403, 404, 422', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const step = g.steps[0];
    const stale = await t.del(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid + 99}`, { token: author.token });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual(step);
    expect((await t.del(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`)).statusCode).toBe(401);
    expect((await t.del(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del(`/guides/${g.guideid}/steps/999999?revisionid=1`, { token: author.token })).statusCode).toBe(404);
    expect((await t.del(`/guides/${g.guideid}/steps/${step.stepid}`, { token: author.token })).statusCode).toBe(422);
  });
});

describe('PUT /guides/{guideid}/steporder', () => {
  it('reorders with a permutation of the steps and answers the full guide', async () => {
    const g = await makePublishedGuide(t, author, 3);
    const ids = g.steps.map((s: { stepid: number }) => s.stepid);
    const res = await t.put(`/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`, { token: author.token, body: { stepids: [ids[2], ids[0], ids[1]] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().steps.map((s: { stepid: number; orderby: number }) => [s.stepid, s.orderby])).toEqual([[ids[2], 1], [ids[0], 2], [ids[1], 3]]);
    expect(res.json().revisionid).toBeGreaterThan(g.revisionid);
  });

  it('422 unless every step is there exactly once; 409, 401, 403, 404', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const ids = g.steps.map((s: { stepid: number }) => s.stepid);
    const path = `/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`;
    for (const stepids of [[ids[0]], [ids[0], ids[0]], [ids[0], ids[1], 999999], [ids[0], 999999], []]) {
      const res = await t.put(path, { token: author.token, body: { stepids } });
      expect(res.statusCode, JSON.stringify(stepids)).toBe(422);
      expect(res.json().errors[0].field).toBe('stepids');
    }
    expect((await t.put(path, { token: author.token, body: {} })).json().errors[0]).toMatchObject({ field: 'stepids', code: 'missing_field' });
    expect((await t.put(`/guides/${g.guideid}/steporder?revisionid=1`, { token: author.token, body: { stepids: ids } })).statusCode).toBe(409);
    expect((await t.put(path, { body: { stepids: ids } })).statusCode).toBe(401);
    expect((await t.put(path, { token: user.token, body: { stepids: ids } })).statusCode).toBe(403);
    expect((await t.put('/guides/999999/steporder?revisionid=1', { token: author.token, body: { stepids: ids } })).statusCode).toBe(404);
    expect((await t.get(`/guides/${g.guideid}`)).json().steps).toEqual(g.steps);
  });
});

describe('POST /guides/steps/lines/preview', () => {
  it('renders lines without saving them', async () => {
    const before = await t.db.selectFrom('guide_lines').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await t.post('/guides/steps/lines/preview', { token: user.token, body: { lines: [line("'''Bold''' <b>"), line('note', { bullet: 'icon_note', level: 1 })] } });
    expect(res.statusCode).toBe(200);
    const lines = res.json();
    expect(lines).toHaveLength(2);
    expect(keys(lines[0])).toEqual(sorted(LINE_FIELDS));
    expect(lines[0]).toMatchObject({ text_rendered: '<strong>Bold</strong> &lt;b&gt;', bullet: 'black', lineid: null, level: 0 });
    expect(lines[1]).toMatchObject({ bullet: 'icon_note', level: 1 });
    const after = await t.db.selectFrom('guide_lines').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('401 without a token, 422 for bad lines', async () => {
    expect((await t.post('/guides/steps/lines/preview', { body: { lines: [line('a')] } })).statusCode).toBe(401);
    expect((await t.post('/guides/steps/lines/preview', { token: user.token, body: { lines: [] } })).statusCode).toBe(422);
    expect((await t.post('/guides/steps/lines/preview', { token: user.token, body: { lines: [line('a', { bullet: 'nope' })] } })).json().errors[0].field).toBe('lines[0].bullet');
  });
});

describe('the full scenario over HTTP', () => {
  it('create, three steps, reorder, a stale line edit (409 with the current step), release, read back with ?pretty and ?format=xml', async () => {
    let g = await makeGuide(t, author, { title: 'Battery swap' });
    for (const n of [1, 2, 3]) g = await addStep(t, author, g, { title: `S${n}`, lines: [line(`line ${n}`)] });
    const ids = g.steps.map((s: { stepid: number }) => s.stepid);
    g = (await t.put(`/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`, { token: author.token, body: { stepids: [ids[1], ids[2], ids[0]] } })).json();
    expect(g.steps.map((s: { title: string }) => s.title)).toEqual(['S2', 'S3', 'S1']);
    const s = g.steps[0];
    const ok = await t.patch(`/guides/${g.guideid}/steps/${s.stepid}?revisionid=${s.revisionid}`, { token: author.token, body: { lines: [line('line 2, better')] } });
    expect(ok.statusCode).toBe(200);
    const stale = await t.patch(`/guides/${g.guideid}/steps/${s.stepid}?revisionid=${s.revisionid}`, { token: author.token, body: { lines: [line('lost')] } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().lines[0].text_raw).toBe('line 2, better');
    const release = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', notes: 'First release' } });
    expect(release.statusCode).toBe(201);
    expect(release.json()).toMatchObject({ version: '1.0', title: 'Battery swap', status: 'released' });
    const pretty = await t.get(`/guides/${g.guideid}?pretty`, { token: author.token });
    expect(pretty.statusCode).toBe(200);
    expect(pretty.body).toMatch(/^\{\n {2}"conclusion_raw"/);
    expect(JSON.parse(pretty.body).steps[0].lines[0].text_raw).toBe('line 2, better');
    const xml = await t.get(`/guides/${g.guideid}?format=xml`, { token: author.token });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<text_raw>line 2, better</text_raw>');
    const rel = await t.get(`/guides/${g.guideid}/releases?format=xml`, { token: author.token });
    expect(rel.body).toContain('<version>1.0</version>');
  });
});

describe('media usage', () => {
  it('guideMediaUses names the steps and guides that use an image or a video', async () => {
    const { guideMediaUses } = await import('../../../src/areas/guides/guides.media-usage.js');
    const [image, video] = [await makeImage(t, author.userid), await makeVideo(t, author.userid)];
    let g = await addStep(t, author, await makeGuide(t, author), { media: { type: 'image', data: [image] } });
    g = await addStep(t, author, g, { media: { type: 'object', data: video } });
    const owner = { userid: author.userid, privileges: ['Author' as const] };
    expect(await guideMediaUses(t.db, 'image', image, owner)).toEqual([{ type: 'guide_step', id: g.steps[0].stepid }]);
    expect(await guideMediaUses(t.db, 'video', video, owner)).toEqual([{ type: 'guide_step', id: g.steps[1].stepid }]);
    expect(await guideMediaUses(t.db, 'document', 1, owner)).toEqual([]);
  });
});
