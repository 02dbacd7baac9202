// The approvals area's answers to the guides area (areas/area.ts GuideApprovals): which
// process a release must pass, opening its request, and which revision readers see.
import type { GuideApprovals } from '../area.js';
import { processForGuide } from './approvals.queries.js';
import { openRequest } from './approvals.service.js';

export const guideApprovals: GuideApprovals = {
  processFor: processForGuide,
  openRequest,
  // What readers see is kept on the guide's row (areas/shared/guide-reader.ts).
  readerRevision: async (_db, guide) => (guide.reader_view ? guide.reader_revisionid : undefined),
};
