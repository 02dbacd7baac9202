// The approvals area's answers to the guides area (areas/area.ts GuideApprovals): which
// process a release must pass, opening its request, and which revision readers see.
import type { GuideApprovals } from '../area.js';
import { processForGuide } from './approvals.queries.js';
import { openRequest } from './approvals.service.js';

export const guideApprovals: GuideApprovals = {
  processFor: processForGuide,
  openRequest,
  async readerRevision(db, guide) {
    // `approvals` 0: the guide's head already told that the site has no process.
    if (guide.approvals === 0 || (await processForGuide(db, guide)) === null) return undefined;
    if (guide.reader_revisionid != null) return guide.reader_revisionid;
    // Came under a process without a pinned revision (a new guide under the default, or
    // moved into a category under one): its newest approved release, else nothing yet.
    const released = await db.selectFrom('guide_releases').select('revisionid').where('guideid', '=', guide.guideid).where('langid', '=', guide.langid)
      .where('status', '=', 'released').orderBy('releaseid', 'desc').limit(1).executeTakeFirst();
    return released?.revisionid ?? null;
  },
};
