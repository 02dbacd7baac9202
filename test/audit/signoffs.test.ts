// The audit log of sign-offs: requests, cancellations, responses (meaning passed or failed,
// with the course stage) and acknowledgements; a refused change writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { makeCourse } from '../helpers/factories/assessments.js';
import { auditCount, auditEntries } from './helpers.js';

let author: TestUser;
let trainer: TestUser;
let lead: TestUser;
let outsider: TestUser;
let trainee: TestUser;
let team: { teamid: number; name: string };

const t = appForFile({}, async () => {
  [author, trainer, lead, outsider, trainee] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: trainer }]);
});

const requestFor = async (assessment: number) => {
  const res = await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: assessment } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().signoff_requestid as number;
};

describe('audit log of sign-offs', () => {
  it('records requests, cancellations, responses with their meaning, and acknowledgements', async () => {
    const guide = await makePublishedGuide(t, author);
    const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'signoff', teamid_signer: team.teamid }], [trainee.userid]);
    const stageid = stageids[0];

    const cancelled = await requestFor(stageid);
    expect((await t.del(`/stage-sign-offs/requests/${cancelled}`, { token: trainee.token })).statusCode).toBe(200);
    expect((await auditEntries(t, { resource_type: 'signoff_request', resource_id: cancelled })).map((e) => [e.action, e.userid])).toEqual([
      ['signoff.requested', trainee.userid], ['signoff.cancelled', trainee.userid],
    ]);

    const failed = await requestFor(stageid);
    const before = await auditCount(t);
    // Refused: the trainee answering their own, an outsider, a second cancel of the cancelled one.
    expect((await t.patch('/courses/stage-sign-offs/responses', { token: trainee.token, body: { signoff_requestid: failed, response_value: 'pass', response_feedback: 'me' } })).statusCode).toBe(403);
    expect((await t.patch('/courses/stage-sign-offs/responses', { token: outsider.token, body: { signoff_requestid: failed, response_value: 'pass', response_feedback: 'x' } })).statusCode).toBe(403);
    expect((await t.del(`/stage-sign-offs/requests/${cancelled}`, { token: trainee.token })).statusCode).toBe(422);
    expect((await t.patch(`/courses/stage-sign-offs/responses/${failed}/acknowledge`, { token: trainee.token })).statusCode).toBe(422);
    expect(await auditCount(t)).toBe(before);

    expect((await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: failed, response_value: 'fail', response_feedback: 'Skipped the lockout.' } })).statusCode).toBe(200);
    expect((await t.patch(`/courses/stage-sign-offs/responses/${failed}/acknowledge`, { token: trainee.token })).statusCode).toBe(200);
    const passed = await requestFor(stageid);
    expect((await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: passed, response_value: 'pass', response_feedback: 'Clean isolation.' } })).statusCode).toBe(200);
    expect((await t.patch(`/courses/stage-sign-offs/responses/${passed}/acknowledge`, { token: trainee.token })).statusCode).toBe(200);

    const rows = (id: number) => auditEntries(t, { resource_type: 'signoff_request', resource_id: id });
    expect((await rows(failed)).map((e) => [e.action, e.userid, e.meaning, e.reason])).toEqual([
      ['signoff.requested', trainee.userid, null, null],
      ['signoff.responded', trainer.userid, `failed: course stage ${stageid}`, 'Skipped the lockout.'],
      ['signoff.acknowledged', trainee.userid, 'failed', null],
    ]);
    expect((await rows(passed)).map((e) => [e.action, e.userid, e.meaning, e.revisionid_after])).toEqual([
      ['signoff.requested', trainee.userid, null, guide.revisionid],
      ['signoff.responded', trainer.userid, `passed: course stage ${stageid}`, guide.revisionid],
      ['signoff.acknowledged', trainee.userid, 'passed', null],
    ]);
  });
});
