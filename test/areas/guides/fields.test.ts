// Form fields on steps (an extension): written with a step, read back in the step record
// and in every kept revision; a field keeps its field_revisionid while unchanged.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makePublishedGuide } from '../../helpers/factories/guides.js';

let author: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

const FIELDS = [
  { type: 'text', label: ' Serial number ', required: true },
  { type: 'number', label: 'Pressure (bar)' },
  { type: 'checkbox', label: 'Leak test passed', required: true },
  { type: 'choice', label: 'Seal', options: ['New', 'Reused'] },
];

describe('form fields on steps', () => {
  it('POST a step with fields: in the step record, in order, labels trimmed, ids new and rising', async () => {
    const g = await addStep(t, author, await makePublishedGuide(t, author), { title: 'Check', fields: FIELDS });
    const fields = g.steps[0].fields;
    expect(fields.map((f: any) => [f.type, f.label, f.required, f.options])).toEqual([
      ['text', 'Serial number', true, []], ['number', 'Pressure (bar)', false, []], ['checkbox', 'Leak test passed', true, []], ['choice', 'Seal', false, ['New', 'Reused']],
    ]);
    const ids = fields.map((f: any) => f.field_revisionid);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
  });

  it('PATCH: unchanged fields keep their ids (named or not), a change gives a new one; the old revision keeps the old form', async () => {
    const g = await addStep(t, author, await makePublishedGuide(t, author), { title: 'Check', fields: FIELDS });
    const step = g.steps[0];
    const [serial, pressure, leak, seal] = step.fields;
    const res = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, {
      token: author.token,
      body: { fields: [
        { type: 'checkbox', label: 'Leak test passed', required: true },
        { field_revisionid: serial.field_revisionid, type: 'text', label: 'Serial number', required: true },
        { field_revisionid: pressure.field_revisionid, type: 'number', label: 'Pressure (bar)', required: true },
        { type: 'choice', label: 'Seal', options: ['New', 'Reused', 'None'] },
      ] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const now = res.json().fields;
    expect(now[0].field_revisionid).toBe(leak.field_revisionid);
    expect(now[1].field_revisionid).toBe(serial.field_revisionid);
    expect(now[2].field_revisionid).toBeGreaterThan(seal.field_revisionid);
    expect(now[3].field_revisionid).toBeGreaterThan(now[2].field_revisionid);
    const old = (await t.get(`/guides/${g.guideid}?revisionid=${g.revisionid}`)).json();
    expect(old.steps[0].fields).toEqual(step.fields);
    // a PATCH without fields keeps them
    const renamed = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${res.json().revisionid}`, { token: author.token, body: { title: 'Renamed' } });
    expect(renamed.json().fields).toEqual(now);
  });

  it('422 naming the field for a blank label, a choice without options, options on another type, an unknown type or field_revisionid; nothing changes', async () => {
    const g = await addStep(t, author, await makePublishedGuide(t, author), { title: 'Check', fields: FIELDS });
    const step = g.steps[0];
    const cases: Array<[unknown[], string]> = [
      [[{ type: 'text', label: '  ' }], 'fields[0].label'],
      [[{ type: 'text', label: 'A' }, { type: 'choice', label: 'B' }], 'fields[1].options'],
      [[{ type: 'choice', label: 'B', options: ['x', 'x'] }], 'fields[0].options'],
      [[{ type: 'number', label: 'B', options: ['x'] }], 'fields[0].options'],
      [[{ type: 'date', label: 'B' }], 'fields[0].type'],
      [[{ type: 'text', label: 'B', field_revisionid: 999999 }], 'fields[0].field_revisionid'],
    ];
    for (const [fields, field] of cases) {
      const res = await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: author.token, body: { fields } });
      expect(res.statusCode, JSON.stringify(fields)).toBe(422);
      expect(res.json().errors.map((e: any) => e.field)).toContain(field);
    }
    const now = (await t.get(`/guides/${g.guideid}`)).json();
    expect(now.revisionid).toBe(g.revisionid);
    expect(now.steps[0].fields).toEqual(step.fields);
    // only editors write fields
    expect((await t.patch(`/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { token: user.token, body: { fields: [] } })).statusCode).toBe(403);
  });

  it('the guide\'s page shows the form, escaped', async () => {
    const g = await addStep(t, author, await makePublishedGuide(t, author), { title: 'Check', fields: [{ type: 'choice', label: '<b>Seal</b>', options: ['<i>x</i>'], required: true }] });
    const page = await t.app.inject({ method: 'GET', url: new URL(g.url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('&lt;b&gt;Seal&lt;/b&gt; <abbr title="required">*</abbr>');
    expect(page.body).toContain('<option>&lt;i&gt;x&lt;/i&gt;</option>');
    expect(page.body).not.toContain('<b>Seal');
  });
});
