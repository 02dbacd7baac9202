import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import { issueToken } from '../../../src/areas/users/users.service.js';
import { expectSchema } from '../../helpers/schema.js';
import { ApprovalRequest } from '../../../src/areas/approvals/approvals.schemas.js';

describe('approvals demo', () => {
  const t = appForFile();

  it('a two-stage process on a category, and a release waiting on the demo Moderator', async () => {
    const out = await seedDemoOnce(t.db, t.config, t.clock, () => {});
    expect(out.seeded).toBe(true);
    const tokenOf = async (unique_username: string) => {
      const u = await t.db.selectFrom('users').select('userid').where('unique_username', '=', unique_username).executeTakeFirstOrThrow();
      return { userid: u.userid, token: (await issueToken(t.db, t.config, t.clock, u.userid)).token };
    };
    const moderator = await tokenOf('moderator');
    const admin = await tokenOf('admin');
    const processes = (await t.get('/approvals/processes', { token: admin.token })).json();
    expect(processes).toHaveLength(1);
    expect(processes[0]).toMatchObject({ name: 'Safety release', is_satisfiable: true, num_requests: 1 });
    expect(processes[0].stages).toHaveLength(2);
    expect(processes[0].stages[0].user.userid).toBe(moderator.userid);
    expect(processes[0].stages[1]).toMatchObject({ num_required: 2, team: { name: 'Quality assurance' } });
    const attached = await t.db.selectFrom('approval_category_processes as a').innerJoin('wikis as w', 'w.wikiid', 'a.wikiid').select('w.title').execute();
    expect(attached.map((a) => a.title)).toEqual(['Plant Safety']);
    const waiting = (await t.get('/approvals/requests?waiting_on_me=true', { token: moderator.token })).json();
    expect(waiting).toHaveLength(1);
    expectSchema(ApprovalRequest, waiting[0]);
    expect(waiting[0]).toMatchObject({ status: 'pending', guide: { title: 'Lockout/Tagout Before Maintenance' }, release: { status: 'pending' } });
    expect(waiting[0].stages.map((s: { status: string }) => s.status)).toEqual(['pending', 'waiting']);
    // readers still see the guide as it was when it came under the process
    const guide = (await t.get(`/guides/${waiting[0].guide.guideid}`)).json();
    expect(guide.revisionid).toBe(waiting[0].release.revisionid);
  });
});
