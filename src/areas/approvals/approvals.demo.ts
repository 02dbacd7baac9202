// Demo content: a two-stage process ("Safety release": the Moderator, then two members of
// Quality assurance) attached to the Plant Safety category, and a release of the
// lockout/tagout guide waiting on the Moderator's signature. (The demo seeder runs every
// area inside one transaction: `db` is that transaction.)
import type { DemoContext } from '../area.js';
import { createRelease } from '../guides/guides.releases.js';
import { attachProcess, createProcess, openRequest } from './approvals.service.js';

export async function seedApprovalsDemo(ctx: DemoContext) {
  const { db, config, clock, users, teams, ids } = ctx;
  if (!users.moderator || !users.admin || !teams.quality) return;
  const processid = await createProcess(db, clock, { seed: users.admin }, {
    name: 'Safety release', allow_repeated_signatures: false,
    stages: [{ userid: users.moderator, teamid: null, num_required: 1 }, { userid: null, teamid: teams.quality, num_required: 2 }],
  });
  ids.approvalProcess = processid;
  const category = await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', 'Plant Safety').executeTakeFirst();
  if (!category) return;
  await attachProcess(db, clock, { seed: users.admin }, category.wikiid, processid);
  const guide = ids.guideLoto
    ? await db.selectFrom('guides').select(['guideid', 'langid', 'revisionid']).where('guideid', '=', ids.guideLoto).where('langid', '=', config.languages[0]).executeTakeFirst()
    : undefined;
  if (!guide) return;
  const releaser = users.author ?? users.admin;
  const release = await createRelease(db, clock.now(), { ...guide, userid: releaser, type: 'major', notes: 'Yearly review of the lockout steps.', status: 'pending' });
  ids.approvalRequest = await openRequest(db, config, clock, release, processid, releaser, { seed: releaser });
  ctx.log('approvals: "Safety release" (the Moderator, then two of Quality assurance) on Plant Safety; the lockout/tagout release waits on the Moderator');
}
