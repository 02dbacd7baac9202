// Demo content: a small SCORM 1.2 package ("Safe lifting", one page with a button that
// reports passed), imported like an upload and made current, as the stage of a course
// assigned to Uma User; Arthur Author may manage modules.
import { tempDir } from '../../storage/blob-store.js';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DemoContext } from '../area.js';
import { assignCourse, createCourse } from '../courses/courses.service.js';
import { MANAGE_PERMISSION } from './modules.schemas.js';
import { findImport } from './modules.queries.js';
import { chooseImport, createImport, importJob, startImport } from './modules.service.js';
import { scormPackage } from './modules.packages.js';

export async function seedModulesDemo(ctx: DemoContext) {
  const { db, clock, config, users, ids } = ctx;
  if (!users.admin || !users.author || !users.user) return;
  await db.updateTable('users').set({ permissions: MANAGE_PERMISSION }).where('userid', '=', users.author).execute();
  const importid = await createImport(db, clock, users.author, null);
  const dir = tempDir(config, 'modules');
  await mkdir(dir, { recursive: true });
  const staged = join(dir, `demo-${randomBytes(6).toString('hex')}.zip`);
  await writeFile(staged, scormPackage('1.2', 'Safe lifting', { manifestVersion: '1' }));
  let job;
  try {
    job = await startImport(db, config, clock, importid, { kind: 'upload', staged });
  } finally {
    await rm(staged, { force: true });
  }
  // Unpacked now rather than by the worker, so that the demo is complete when seeding ends
  // (the queued job then finds the import complete and does nothing).
  await importJob(config, clock).run({ ...job, seed: true }, {
    db, clock, jobid: 0, attempt: 1, log: { warn: () => {}, info: () => {}, error: () => {} } as never, signal: new AbortController().signal, extendLease: async () => {},
  });
  const imp = await findImport(db, importid);
  if (imp?.status !== 'COMPLETE') {
    ctx.log(`training modules: the demo package did not import (${imp?.message ?? 'no import'})`);
    return;
  }
  await chooseImport(db, clock, { external_training_moduleid: imp.external_training_moduleid }, imp, 'current');
  ids.trainingModule = imp.external_training_moduleid;
  const wikiid = await createCourse(db, clock, config, users.author, {
    title: 'Safe lifting (e-learning)',
    contents: 'A short SCORM module on lifting loads safely. Open it from the course stage.',
  }, [{ doctype: 'external_training_module', docid: imp.external_training_moduleid }]);
  ids.courseModule = wikiid;
  await assignCourse(db, clock, users.author, { wikiid, assignee_userid: users.user, assignee_teamid: null, due_within: 14 * 86_400 });
  ctx.log('training modules: SCORM 1.2 "Safe lifting" (current), the stage of course "Safe lifting (e-learning)" assigned to Uma User; Arthur Author manages modules');
}
