// Migration 2026_12_04_1800_signer_names on a site with signatures made before it: each
// approval signature and each answered sign-off request gets its signer's display name (as
// it is when the migration runs); an unanswered request keeps none.
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { makeCourse } from '../helpers/factories/assessments.js';
import { makeCategoryAt, makeProcess } from '../areas/approvals/helpers.js';
import { migrations } from '../../src/db/migrations/index.js';
import { migrateToLatest } from '../../src/db/migrate.js';

let admin: TestUser, author: TestUser, signer: TestUser, trainer: TestUser, lead: TestUser, trainee: TestUser;
const t = appForFile({}, async () => {
  [admin, author, signer, trainer, lead, trainee] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
});

describe('the signer names of signatures made before the migration', () => {
  it('are filled from the signers\' display names', async () => {
    const p = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const cat = await makeCategoryAt(t);
    expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    const g = await makePublishedGuide(t, author, 0, { category: cat.title });
    const id = (await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } })).json().approval_requestid as number;
    expect((await t.post(`/approvals/request/sign/${id}`, { token: signer.token, body: { status: 'approve', password: signer.password } })).statusCode).toBe(200);

    const team = await makeTeam(t, lead, [{ user: trainer }]);
    const guide = await makePublishedGuide(t, author);
    const { stageids } = await makeCourse(t, [
      { doctype: 'guide', docid: guide.guideid, assessmenttype: 'signoff', teamid_signer: team.teamid },
      { doctype: 'guide', docid: (await makePublishedGuide(t, author)).guideid, assessmenttype: 'signoff', teamid_signer: team.teamid },
    ], [trainee.userid]);
    const answered = (await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: stageids[0] } })).json().signoff_requestid as number;
    const open = (await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: stageids[1] } })).json().signoff_requestid as number;
    expect((await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body: { signoff_requestid: answered, response_value: 'fail', response_feedback: 'Again.' } })).statusCode).toBe(200);

    const migrator = new Migrator({ db: t.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_12_04_1700_audit_log');
    expect(down.error).toBeUndefined();
    await t.db.updateTable('users').set({ username: 'Signer Now' }).where('userid', '=', signer.userid).execute();
    await migrateToLatest(t.db);

    const sig = await t.db.selectFrom('approval_signatures').select(['signer_name']).where('approval_requestid', '=', id).executeTakeFirstOrThrow();
    expect(sig.signer_name).toBe('Signer Now');
    const rows = await t.db.selectFrom('signoff_requests').select(['signoff_requestid', 'signer_name']).where('signoff_requestid', 'in', [answered, open]).orderBy('signoff_requestid').execute();
    expect(rows).toEqual([{ signoff_requestid: answered, signer_name: trainer.username }, { signoff_requestid: open, signer_name: null }]);
    // And the records show them.
    const record = (await t.get(`/approvals/request/${id}`, { token: admin.token })).json();
    expect(record.stages[0].signatures[0]).toMatchObject({ signer_name: 'Signer Now', meaning: `approved: stage 1 (user ${signer.userid})` });
  }, 60_000);
});
