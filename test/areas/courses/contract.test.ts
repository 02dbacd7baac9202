// The cross-area contract of courses (src/areas/shared/course-*.ts): stages a user is
// assigned (directly or through a team), the `via` rule of completeStagesOnDocument, the
// stored assignee row kept current, and identical completions counted once.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide } from '../../helpers/factories/guides.js';
import { assignedStages, stageStatusOf } from '../../../src/areas/shared/course-status.js';
import { completeStagesOnDocument } from '../../../src/areas/shared/course-completion.js';

let author: TestUser;
let member: TestUser;
let t0: number;
const t = appForFile({}, async () => {
  [author, member] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

async function course(stages: Array<Record<string, unknown>>) {
  const now = t.clock.now();
  const { wikiid } = await t.db.insertInto('courses').values({ langid: 'en', title: 'C', title_lower: 'c', publish_date: null, userid: author.userid, created_date: now, modified_date: now }).returning('wikiid').executeTakeFirstOrThrow();
  const ids: number[] = [];
  for (const [i, s] of stages.entries()) {
    const row = await t.db.insertInto('course_stages').values({ wikiid, position: i, doctype: 'guide', docid: 0, strictness: null, frequency_quantity: null, frequency_unit: null, stage_assessmentid: null, assessmenttype: null, teamid_signer: null, quiz_passing_score: null, attempts_limit: null, skills_points_possible: null, ...s } as any).returning('course_stageid').executeTakeFirstOrThrow();
    ids.push(row.course_stageid);
  }
  return { wikiid, ids };
}

describe('course contract', () => {
  it('a team assignment reaches a member; via rules; one completion however often called', async () => {
    t0 = t.clock.now();
    const g1 = await makeGuide(t, author);
    const g2 = await makeGuide(t, author);
    const { wikiid, ids } = await course([{ docid: g1.guideid }, { docid: g2.guideid, assessmenttype: 'quiz', stage_assessmentid: 5 }]);
    const team = await makeTeam(t, author, [{ user: member }]);
    await t.db.insertInto('course_assignments').values({ wikiid, assignee_userid: null, assignee_teamid: team.teamid, userid_assigner: author.userid, due_within: null, created_date: t0 }).execute();
    expect((await assignedStages(t.db, member.userid, { doctype: 'guide', docid: g1.guideid })).map((s) => s.course_stageid)).toEqual([ids[0]]);
    const done = await t.db.transaction().execute((trx) => completeStagesOnDocument(trx, t.clock, { userid: member.userid, actor: undefined, doctype: 'guide', docid: g1.guideid, doc_revisionid: g1.revisionid, via: 'work_log', source: { work_log_entryid: 7 } }));
    expect(done).toBe(1);
    expect(await t.db.transaction().execute((trx) => completeStagesOnDocument(trx, t.clock, { userid: member.userid, actor: undefined, doctype: 'guide', docid: g1.guideid, doc_revisionid: g1.revisionid, via: 'explicit' }))).toBe(0);
    const st = await stageStatusOf(t.db, member.userid, ids[0]);
    expect(st).toMatchObject({ status: 'completed', completion: { work_log_entryid: 7, doc_revisionid: g1.revisionid, via: 'work_log' } });
    // The quiz stage refuses an explicit completion and takes a quiz.
    expect(await t.db.transaction().execute((trx) => completeStagesOnDocument(trx, t.clock, { userid: member.userid, actor: undefined, doctype: 'guide', docid: g2.guideid, doc_revisionid: null, via: 'explicit' }))).toBe(0);
    let row = await t.db.selectFrom('course_assignees').selectAll().where('wikiid', '=', wikiid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ userid: member.userid, status: 1, completed_stages: 1, total_stages: 2, active: 1 });
    expect(await t.db.transaction().execute((trx) => completeStagesOnDocument(trx, t.clock, { userid: member.userid, actor: undefined, doctype: 'guide', docid: g2.guideid, doc_revisionid: null, via: 'quiz', source: { quiz_sessionid: 3 } }))).toBe(1);
    row = await t.db.selectFrom('course_assignees').selectAll().where('wikiid', '=', wikiid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 2, completed_stages: 2, course_completion_date: t.clock.now() });
  });
});
