// Demo content: a two-stage process ("Safety release": the Moderator, then two members of
// Quality assurance) attached to the Plant Safety category, and a release of the
// lockout/tagout guide waiting on the Moderator's signature.
import type { DemoContext } from '../area.js';
import { createRelease } from '../guides/guides.releases.js';
import { attachProcess, createProcess, openRequest } from './approvals.service.js';

export async function seedApprovalsDemo(ctx: DemoContext) {
  const { db, config, clock, users, teams, ids } = ctx;
  if (!users.moderator || !users.admin || !teams.quality) return;
  const category = await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', 'Plant Safety').executeTakeFirst();
  const lang = config.languages[0];
  await db.transaction().execute(async (trx) => {
    const processid = await createProcess(trx, clock, users.admin, {
      name: 'Safety release', allow_repeated_signatures: false,
      stages: [{ userid: users.moderator, teamid: null, num_required: 1 }, { userid: null, teamid: teams.quality, num_required: 2 }],
    });
    ids.approvalProcess = processid;
    if (!category) return;
    await attachProcess(trx, clock, users.admin, category.wikiid, processid);
    const guide = ids.guideLoto ? await trx.selectFrom('guides').select(['guideid', 'langid', 'revisionid']).where('guideid', '=', ids.guideLoto).where('langid', '=', lang).executeTakeFirst() : undefined;
    if (!guide) return;
    const release = await createRelease(trx, clock.now(), { guideid: guide.guideid, langid: guide.langid, revisionid: guide.revisionid, userid: users.author ?? users.admin, type: 'major', notes: 'Yearly review of the lockout steps.', status: 'pending' });
    ids.approvalRequest = await openRequest(trx, config, clock, release, processid, users.author ?? users.admin);
  });
  ctx.log('approvals: "Safety release" (the Moderator, then two of Quality assurance) on Plant Safety; the lockout/tagout release waits on the Moderator');
}
