// Issue 14's "done when", over HTTP: a course assigned to a team; a member completes one
// guide, performs the second through the work log (its PDF downloads), the assignees
// listing shows them In Progress, then Completed once the third stage is done; a major
// release of the first guide makes that stage invalidated and the member In Progress again.
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';

let admin: TestUser;
let author: TestUser;
let lead: TestUser;
let member: TestUser;
let ops: Map<string, Operation>;
const t = appForFile({}, async () => {
  [admin, author, lead, member] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t)]);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body && res.headers['content-type']?.toString().includes('json') ? res.json() : res.rawPayload;
}

describe('done when', () => {
  it('team assignment; explicit, work log and guide-completed completions; PDF; a major release invalidates', async () => {
    const [g1, g2, g3] = [await makePublishedGuide(t, author, 1), await makePublishedGuide(t, author, 2), await makePublishedGuide(t, author, 1)];
    const course = checked(await t.post('/courses', { token: author.token, body: {
      title: 'Safety basics', contents: 'Read these.',
      stages: [{ doctype: 'guide', docid: g1.guideid, strictness: 'major' }, { doctype: 'guide', docid: g2.guideid }, { doctype: 'guide', docid: g3.guideid }],
    } }), 'POST /courses', 201);
    expect(course).toMatchObject({ namespace: 'COURSE', assigneeCount: 0, assignees: null, viewUrl: `/Courses/View/${course.wikiid}` });
    expect(course.revisionid).toBeGreaterThan(0);
    const team = await makeTeam(t, lead, [{ user: member }]);
    const assignment = checked(await t.post('/course_assignments', { token: lead.token, body: { wikiid: course.wikiid, assignee_teamid: team.teamid, due_within: 7 * 86_400 } }), 'POST /course_assignments', 201);
    expect(assignment.completion_status.map((c: { userid: number }) => c.userid).sort()).toEqual([lead.userid, member.userid].sort());

    const listing = async () => checked(await t.get(`/course_assignees/course/${course.wikiid}/users?orderby=status&direction=DESC`, { token: lead.token }), 'GET /course_assignees/course/{wikiid}/users', 200);
    const mine = async () => (await listing()).response.find((r: { userid: number }) => r.userid === member.userid);
    expect(await mine()).toMatchObject({ status: 'Not Started', completed_stages: 0, total_stages: 3 });

    // 1. The explicit complete of the first guide.
    const done1 = checked(await t.patch(`/course_assignments/complete/guide/${g1.guideid}`, { token: member.token }), 'PATCH /course_assignments/complete/{doctype}/{docid}', 200);
    expect(done1).toMatchObject({ changed: 1 });
    expect(done1.stages[0]).toMatchObject({ status: 'completed', last_completion: { course_stage_doc_revisionid: g1.revisionid } });
    expect(await mine()).toMatchObject({ status: 'In Progress', completed_stages: 1 });

    // 2. The second through the work log; its PDF downloads.
    const entry = (await t.post('/work_log', { token: member.token, body: { guideid: g2.guideid } })).json();
    const fin = await t.post(`/work_log/${entry.entryid}/finish`, { token: member.token });
    expect(fin.statusCode, fin.body).toBe(200);
    const view = checked(await t.get(`/course_assignees/course/${course.wikiid}/user/${member.userid}`, { token: lead.token }), 'GET /course_assignees/course/{wikiid}/user/{userid}', 200);
    expect(view.completion_status).toBe('In Progress');
    expect(view.stages.map((s: { completion_status: string | null }) => s.completion_status)).toEqual(['completed', 'completed', null]);
    const url: string = view.stages[1].work_log_entry_pdf_url;
    expect(url).toContain(`/courses/work_log/${entry.entryid}/pdf`);
    expect(view.stages[0]).toMatchObject({ attached_quiz: null, quiz_session: null, quiz_attempts_remaining: null, signoff: null });
    const pdf = await t.get(url.slice(url.indexOf('/api/2.0') + '/api/2.0'.length), { token: member.token });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await t.get(url.slice(url.indexOf('/api/2.0') + 8), { token: (await makeUser(t)).token })).statusCode).toBe(200); // public guide: readable entry

    // 3. The third by marking the guide completed: Completed.
    expect((await t.put(`/guides/${g3.guideid}/completed`, { token: member.token })).statusCode).toBe(200);
    expect(await mine()).toMatchObject({ status: 'Completed', completed_stages: 3, course_completion_date: t.clock.now() });

    // 4. A minor release of the first guide changes nothing (strictness major); a major one invalidates it.
    t.clock.advance(60);
    expect((await t.post('/guides/releases', { token: author.token, body: { guideid: g1.guideid, type: 'minor', notes: '' } })).statusCode).toBe(201);
    expect(await mine()).toMatchObject({ status: 'Completed' });
    expect((await t.post('/guides/releases', { token: author.token, body: { guideid: g1.guideid, type: 'major', notes: '' } })).statusCode).toBe(201);
    expect(await mine()).toMatchObject({ status: 'In Progress', completed_stages: 2, course_completion_date: null });
    const after = checked(await t.get(`/course_assignees/course/${course.wikiid}/user/${member.userid}`, { token: member.token }), 'GET /course_assignees/course/{wikiid}/user/{userid}', 200);
    expect(after.stages[0].completion_status).toBe('invalidated');
    // The record of who was trained on which revision stays.
    const rows = await t.db.selectFrom('course_stage_completions').selectAll().where('userid', '=', member.userid).orderBy('course_assignment_stage_completionid').execute();
    expect(rows.map((r) => [r.docid, r.via, r.doc_revisionid, r.work_log_entryid, r.invalidated_date != null])).toEqual([
      [g1.guideid, 'explicit', g1.revisionid, null, true],
      [g2.guideid, 'work_log', g2.revisionid, entry.entryid, false],
      [g3.guideid, 'guide_completed', g3.revisionid, null, false],
    ]);
    void admin;
  });
});
