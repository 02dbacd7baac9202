// External training modules for tests: a module whose current version is a SCORM package
// built in code, imported over HTTP like a client does it.
import { expect } from 'vitest';
import type { TestApp } from '../app.js';
import type { TestUser } from '../factories.js';
import { scormPackage } from '../../../src/areas/training-modules/modules.packages.js';

export async function importPackage(t: TestApp, who: TestUser, zip: Buffer, moduleid?: number): Promise<{ importid: number; external_training_moduleid: number }> {
  const created = await t.post('/external_training_modules/imports', { token: who.token, body: moduleid ? { external_training_moduleid: moduleid } : {} });
  expect(created.statusCode, created.body).toBe(201);
  const { importid, external_training_moduleid } = created.json();
  const started = await t.post(`/external_training_modules/imports/${importid}/start/byUpload`, { token: who.token, headers: { 'content-type': 'application/octet-stream' }, payload: zip });
  expect(started.statusCode, started.body).toBe(200);
  await t.app.jobs.runDue();
  return { importid, external_training_moduleid };
}

/** A module with a current version (a one-page package of that SCORM version). */
export async function makeModule(t: TestApp, admin: TestUser, version: '1.2' | '2004' = '1.2', opts: { autoComplete?: boolean } = {}) {
  const { importid, external_training_moduleid } = await importPackage(t, admin, scormPackage(version, `Module ${version}`, opts));
  const res = await t.put(`/external_training_modules/${external_training_moduleid}/current`, { token: admin.token, body: { importid } });
  expect(res.statusCode, res.body).toBe(200);
  return { importid, external_training_moduleid };
}

/** A course (inserted as the courses contract defines its rows) with one stage on the module, assigned to `learner`. */
export async function courseWithModule(t: TestApp, author: TestUser, moduleid: number, learner?: TestUser) {
  const now = t.clock.now();
  const title = `Course ${moduleid}-${now}-${Math.random().toString(36).slice(2, 8)}`;
  const { wikiid } = await t.db.insertInto('courses').values({ langid: 'en', title, title_lower: title.toLowerCase(), publish_date: null, userid: author.userid, created_date: now, modified_date: now } as never).returning('wikiid').executeTakeFirstOrThrow();
  const { course_stageid } = await t.db.insertInto('course_stages').values({
    wikiid, position: 0, doctype: 'external_training_module', docid: moduleid, strictness: null, frequency_quantity: null, frequency_unit: null,
    stage_assessmentid: null, assessmenttype: null, teamid_signer: null, quiz_passing_score: null, attempts_limit: null, skills_points_possible: null,
  } as never).returning('course_stageid').executeTakeFirstOrThrow();
  if (learner) await t.db.insertInto('course_assignments').values({ wikiid, assignee_userid: learner.userid, assignee_teamid: null, userid_assigner: author.userid, due_within: null, created_date: now } as never).execute();
  return { wikiid, course_stageid, title };
}
