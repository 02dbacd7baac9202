// Player data of an assigned learner, where a module is used, and commits that complete the
// learner's course stage on the module version (SCORM 1.2 and 2004).
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { courseWithModule, importPackage, makeModule } from '../../helpers/factories/modules.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';
import { stageStatusOf } from '../../../src/areas/shared/course-status.js';
import { scormPackage } from '../../../src/areas/training-modules/modules.packages.js';

let admin: TestUser;
let learner: TestUser;
let outsider: TestUser;
let ops: Map<string, Operation>;

const t = appForFile({}, async () => {
  [admin, learner, outsider] = await Promise.all([makeAdmin(t), makeUser(t), makeUser(t)]);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}

const PLAYER = 'GET /external_training_modules/{id}/player';
const COMMIT = 'POST /external_training_modules/commits/{commit_token}';
const tokenOf = (data: { commit_url: string }) => data.commit_url.split('/').pop()!;

describe('player data', () => {
  it('only for a learner assigned to a course containing the module; resumes the attempt with its state', async () => {
    const m = await makeModule(t, admin, '1.2');
    const course = await courseWithModule(t, admin, m.external_training_moduleid, learner);
    checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: outsider.token }), PLAYER, 403);
    checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, {}), PLAYER, 401);
    checked(await t.get('/external_training_modules/999999/player', { token: learner.token }), PLAYER, 404);
    const data = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token }), PLAYER, 200);
    expect(data).toMatchObject({ external_training_moduleid: m.external_training_moduleid, importid: m.importid, scorm_version: '1.2', preview: false, attempt: 1, state: null, completed: false });
    expect(data.launch_url).toMatch(/\/training-modules\/play\/[\w-]{43}\/content\/index\.html$/);
    expect(data.commit_url).toMatch(/\/api\/2\.0\/external_training_modules\/commits\/[\w-]{43}$/);

    // An incomplete status is kept and comes back; the stage is not completed.
    checked(await t.post(`/external_training_modules/commits/${tokenOf(data)}`, { body: { cmi: { core: { lesson_status: 'incomplete' }, suspend_data: 'p=2' } } }), COMMIT, 200);
    checked(await t.post(`/external_training_modules/commits/${tokenOf(data)}`, { body: { cmi: { core: { lesson_status: 'failed', score: { raw: '20' } } } } }), COMMIT, 200);
    expect((await stageStatusOf(t.db, learner.userid, course.course_stageid))?.status).not.toBe('completed');
    const resumed = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token }), PLAYER, 200);
    expect(resumed.attempt).toBe(1);
    expect(resumed.state).toEqual({ core: { lesson_status: 'failed', score: { raw: '20' } } });

    // Passed: the stage completes on this module version, tied to the attempt.
    checked(await t.post(`/external_training_modules/commits/${tokenOf(resumed)}`, { body: { cmi: { core: { lesson_status: 'passed', score: { raw: '95' } } } } }), COMMIT, 200);
    const status = await stageStatusOf(t.db, learner.userid, course.course_stageid);
    expect(status).toMatchObject({ status: 'completed', completion: { via: 'module', doc_revisionid: m.importid } });
    const attempt = await t.db.selectFrom('training_module_attempts').selectAll().where('userid', '=', learner.userid).where('importid', '=', m.importid).executeTakeFirstOrThrow();
    expect(status!.completion!.module_attemptid).toBe(attempt.module_attemptid);
    expect(attempt).toMatchObject({ completed: 1, lesson_status: 'passed', score: '95', commit_count: 3 });
    // Commits again: still one completion. A new launch starts attempt 2.
    checked(await t.post(`/external_training_modules/commits/${tokenOf(resumed)}`, { body: { cmi: { core: { lesson_status: 'passed' } } } }), COMMIT, 200);
    expect(await t.db.selectFrom('course_stage_completions').select('course_assignment_stage_completionid').where('course_stageid', '=', course.course_stageid).execute()).toHaveLength(1);
    const next = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: learner.token }), PLAYER, 200);
    expect(next).toMatchObject({ attempt: 2, state: null, completed: false });
  });

  it('SCORM 2004: completed with passed or unknown success completes; completed and failed does not', async () => {
    const m = await makeModule(t, admin, '2004');
    const [a, b, c] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)]);
    const course = await courseWithModule(t, admin, m.external_training_moduleid, a);
    for (const u of [b, c]) await t.db.insertInto('course_assignments').values({ wikiid: course.wikiid, assignee_userid: u.userid, assignee_teamid: null, userid_assigner: admin.userid, due_within: null, created_date: t.clock.now() } as never).execute();
    const commit = async (u: TestUser, cmi: Record<string, unknown>) => {
      const data = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/player`, { token: u.token }), PLAYER, 200);
      expect(data.scorm_version).toBe('2004');
      checked(await t.post(`/external_training_modules/commits/${tokenOf(data)}`, { body: { cmi } }), COMMIT, 200);
      return (await stageStatusOf(t.db, u.userid, course.course_stageid))?.status;
    };
    expect(await commit(a, { completion_status: 'completed', success_status: 'passed', score: { scaled: '0.9' } })).toBe('completed');
    expect(await commit(b, { completion_status: 'completed', success_status: 'unknown' })).toBe('completed');
    expect(await commit(c, { completion_status: 'completed', success_status: 'failed' })).not.toBe('completed');
  });

  it('a module without a current version: 422; the preview of a manager completes nothing', async () => {
    const { importid, external_training_moduleid } = await importPackage(t, admin, scormPackage('1.2', 'No current'));
    const course = await courseWithModule(t, admin, external_training_moduleid, admin);
    const res = checked(await t.get(`/external_training_modules/${external_training_moduleid}/player`, { token: admin.token }), PLAYER, 422);
    expect(res.errors[0].code).toBe('no_current_version');
    const preview = checked(await t.get(`/external_training_modules/imports/${importid}/preview`, { token: admin.token }), 'GET /external_training_modules/imports/{importid}/preview', 200);
    checked(await t.post(`/external_training_modules/commits/${tokenOf(preview)}`, { body: { cmi: { core: { lesson_status: 'passed' } } } }), COMMIT, 200);
    expect((await stageStatusOf(t.db, admin.userid, course.course_stageid))?.status).not.toBe('completed');
  });
});

describe('usage', () => {
  it('lists the course stages pointing at the module', async () => {
    const m = await makeModule(t, admin, '1.2');
    const one = await courseWithModule(t, admin, m.external_training_moduleid);
    const two = await courseWithModule(t, admin, m.external_training_moduleid);
    const usage = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/usage`, { token: outsider.token }), 'GET /external_training_modules/{id}/usage', 200);
    expect(usage.courses.map((c: { course_stageid: number }) => c.course_stageid)).toEqual([one.course_stageid, two.course_stageid]);
    expect(usage.courses[0]).toMatchObject({ wikiid: one.wikiid, title: one.title });
    // A disabled course is shown to Admins (and Authors, managers), not to other users.
    await t.db.updateTable('courses').set({ enabled: 0 }).where('wikiid', '=', two.wikiid).execute();
    const mine = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/usage`, { token: outsider.token }), 'GET /external_training_modules/{id}/usage', 200);
    expect(mine.courses.map((c: { wikiid: number }) => c.wikiid)).toEqual([one.wikiid]);
    const all = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/usage`, { token: admin.token }), 'GET /external_training_modules/{id}/usage', 200);
    expect(all.courses.map((c: { wikiid: number }) => c.wikiid)).toEqual([one.wikiid, two.wikiid]);
    checked(await t.get('/external_training_modules/999999/usage', { token: outsider.token }), 'GET /external_training_modules/{id}/usage', 404);
    checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/usage`, {}), 'GET /external_training_modules/{id}/usage', 401);
  });

  it('a course stage takes a module id as docid (an unknown one: 422) and names the module', async () => {
    const m = await makeModule(t, admin, '1.2');
    const created = await t.post('/courses', { token: admin.token, body: { title: 'With a module', contents: 'x', stages: [{ doctype: 'external_training_module', docid: m.external_training_moduleid }] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().stages[0]).toMatchObject({ doctype: 'external_training_module', docid: m.external_training_moduleid, title: 'Module 1.2' });
    const usage = checked(await t.get(`/external_training_modules/${m.external_training_moduleid}/usage`, { token: outsider.token }), 'GET /external_training_modules/{id}/usage', 200);
    expect(usage.courses.map((c: { wikiid: number }) => c.wikiid)).toEqual([created.json().wikiid]);
    const bad = await t.post('/courses', { token: admin.token, body: { title: 'Bad module', contents: 'x', stages: [{ doctype: 'external_training_module', docid: 999999 }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('stages[0].docid');
  });
});
