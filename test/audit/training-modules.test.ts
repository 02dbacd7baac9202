// The audit log of external training modules: imports created, started and cancelled by a
// manager, completed by the import job (the system), versions promoted to current or set as
// draft (the imports as revisions); a module's completion completes the learner's stage; a
// refused change writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../helpers/factories.js';
import { courseWithModule, importPackage } from '../helpers/factories/modules.js';
import { scormPackage } from '../../src/areas/training-modules/modules.packages.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let manager: TestUser;
let learner: TestUser;

const t = appForFile({}, async () => {
  [admin, manager, learner] = await Promise.all([makeAdmin(t), makeUser(t), makeUser(t)]);
  const granted = await t.patch(`/users/${manager.userid}`, { token: admin.token, body: { permissions: ['manage-external-training-module'] } });
  expect(granted.statusCode, granted.body).toBe(200);
});

const changes = (e: { changes: string | null }) => JSON.parse(e.changes ?? 'null');

describe('audit log of training modules', () => {
  it('records imports, their completion by the job, promotions, cancellations and the completion a module makes', async () => {
    const before = await auditCount(t);
    expect((await t.post('/external_training_modules/imports', { token: learner.token, body: {} })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);

    const first = await importPackage(t, manager, scormPackage('1.2', 'Audited module', {}));
    const id = String(first.external_training_moduleid);
    const entries = async () => (await auditEntries(t, { resource_type: 'training_module', resource_id: id })).map((e) => [e.action, e.userid, changes(e)?.importid?.new ?? null, e.revisionid_before, e.revisionid_after]);
    expect(await entries()).toEqual([
      ['training_module.import_created', manager.userid, first.importid, null, null],
      ['training_module.import_started', manager.userid, first.importid, null, null],
      ['training_module.imported', null, first.importid, null, first.importid],
    ]);
    expect(changes((await auditEntries(t, { action: 'training_module.import_started', resource_id: id }))[0]).source).toEqual({ new: 'upload' });

    expect((await t.put(`/external_training_modules/${id}/current`, { token: learner.token, body: { importid: first.importid } })).statusCode).toBe(403);
    expect((await t.put(`/external_training_modules/${id}/current`, { token: manager.token, body: { importid: first.importid } })).statusCode).toBe(200);
    const n = await auditCount(t);
    // Promoting the current version again changes nothing.
    expect((await t.put(`/external_training_modules/${id}/current`, { token: manager.token, body: { importid: first.importid } })).statusCode).toBe(200);
    expect(await auditCount(t)).toBe(n);
    const second = await importPackage(t, manager, scormPackage('1.2', 'Audited module v2', { autoComplete: true }), first.external_training_moduleid);
    expect((await t.put(`/external_training_modules/${id}/draft`, { token: manager.token, body: { importid: second.importid } })).statusCode).toBe(200);
    expect((await t.put(`/external_training_modules/${id}/current`, { token: manager.token, body: { importid: second.importid } })).statusCode).toBe(200);

    // An import created and cancelled; cancelling again (422) writes nothing.
    const third = (await t.post('/external_training_modules/imports', { token: manager.token, body: { external_training_moduleid: first.external_training_moduleid } })).json();
    expect((await t.post(`/external_training_modules/imports/${third.importid}/cancel`, { token: manager.token })).statusCode).toBe(200);
    expect((await t.post(`/external_training_modules/imports/${third.importid}/cancel`, { token: manager.token })).statusCode).toBe(422);

    expect((await entries()).slice(3)).toEqual([
      ['training_module.promoted', manager.userid, null, null, first.importid],
      ['training_module.import_created', manager.userid, second.importid, null, null],
      ['training_module.import_started', manager.userid, second.importid, null, null],
      ['training_module.imported', null, second.importid, null, second.importid],
      ['training_module.draft_set', manager.userid, null, null, second.importid],
      ['training_module.promoted', manager.userid, null, first.importid, second.importid],
      ['training_module.import_created', manager.userid, third.importid, null, null],
      ['training_module.import_cancelled', manager.userid, third.importid, null, null],
    ]);

    // The learner completes the module: their stage completion names them and the attempt.
    const course = await courseWithModule(t, admin, first.external_training_moduleid, learner);
    const data = (await t.get(`/external_training_modules/${id}/player`, { token: learner.token })).json();
    const commit = await t.post(`/external_training_modules/commits/${data.commit_url.split('/').pop()}`, { body: { cmi: { core: { lesson_status: 'passed' } } } });
    expect(commit.statusCode, commit.body).toBe(200);
    const [done] = (await auditEntries(t, { action: 'course.stage_completed' })).filter((e) => changes(e).course_stageid.new === course.course_stageid);
    expect([done.userid, done.impersonator_userid, changes(done).via.new, changes(done).doc_revisionid.new, typeof changes(done).module_attemptid.new]).toEqual([learner.userid, null, 'module', second.importid, 'number']);
  });
});
