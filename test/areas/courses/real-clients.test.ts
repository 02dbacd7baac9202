// What real clients of courses trip on (issue 62): stage doctypes in capitals (item 7), and
// `courseid` in POST /courses' answer (item 2).
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { openApiDocument, operations } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';

let admin: TestUser;
let author: TestUser;
let guide: any;
let wiki: any;
const t = appForFile({}, async () => {
  [admin, author] = await Promise.all([makeAdmin(t), makeAuthor(t)]);
  guide = await makePublishedGuide(t, author);
  wiki = await makeWiki(t, author);
});

describe('POST /courses as the CloudPrem seed sends it', () => {
  it('takes stage doctypes in any case and answers them in the documented case, with courseid equal to wikiid', async () => {
    const res = await t.post('/courses', { token: author.token, body: { title: 'Seeded course', contents: 'x', stages: [{ doctype: 'GUIDE', docid: guide.guideid }, { doctype: 'Wiki', docid: wiki.wikiid }] } });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c.stages.map((s: any) => s.doctype)).toEqual(['guide', 'wiki']);
    expect(c.courseid).toBe(c.wikiid);
    const op = operations(openApiDocument(t.app)).find((o) => o.id === 'POST /courses')!;
    expect(checkResponse(op, res.statusCode, res.headers, res.body)).toEqual([]);
    expect(JSON.stringify(openApiDocument(t.app))).toContain('"courseid"');
    // Stored in the documented case: the course reads back so, and PATCH takes capitals too.
    expect((await t.get(`/courses/${c.wikiid}`, { token: author.token })).json().stages.map((s: any) => s.doctype)).toEqual(['guide', 'wiki']);
    const patched = await t.patch(`/courses/${c.wikiid}?revisionid=${c.revisionid}`, { token: author.token, body: { stages: [{ doctype: 'WIKI', docid: wiki.wikiid }] } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().stages.map((s: any) => s.doctype)).toEqual(['wiki']);
  });

  it('a doctype in a path takes any case too; a value of no known doctype stays a 422', async () => {
    // No assigned stage on the document: 404, past the validation of `GUIDE`.
    const start = await t.patch(`/course_assignments/start/GUIDE/${guide.guideid}`, { token: admin.token });
    expect(start.statusCode, start.body).toBe(404);
    const bad = await t.post('/courses', { token: author.token, body: { title: 'Bad', contents: 'x', stages: [{ doctype: 'GUIDES', docid: guide.guideid }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('stages[0].doctype');
    expect((await t.patch(`/course_assignments/start/Manual/${guide.guideid}`, { token: admin.token })).statusCode).toBe(422);
  });
});
