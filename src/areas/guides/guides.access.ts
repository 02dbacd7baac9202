// Who may read, edit and manage a guide: the guide area's policy, asked by its routes.
// The rule itself (`guideAccess`, `guideRowReadable`, `readsEveryGuide`...) lives in
// areas/shared/guide-access.ts, below every area, because media, comments and tags ask it
// too while the guides area uses them; it is re-exported here, so the guides area and
// the areas above it import a guide's access from this file.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, notFound, unauthorized } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { findGuideRow, type GuideRow } from './guides.queries.js';
import { guideAccess, type GuideAccess } from '../shared/guide-access.js';

export {
  readsEveryGuide, guideRowReadable, readableLanguages, preferredRow, isCollaborator, guideAccess,
  readableGuideIds, readableColumn, visiblePrerequisites, type GuideAccess,
} from '../shared/guide-access.js';

export interface GuideContext {
  row: GuideRow;
  access: GuideAccess;
  user: AuthUser | null;
}

const NEED_TEXT = {
  read: 'This guide is private.',
  edit: 'Only the guide\'s owner, its collaborators, Authors and Admins may change it.',
  manage: 'Only the guide\'s owner, Authors and Admins may do this.',
} as const;

/** The guide in a language, checked for `need`: 404 unknown or deleted, 401 anonymous, 403 not allowed. */
export async function guideFor(app: FastifyInstance, request: FastifyRequest, guideid: number, langid: string | undefined, need: keyof GuideAccess, opts: { includeDeleted?: boolean } = {}): Promise<GuideContext> {
  const row = await findGuideRow(app.db, app.config, guideid, langid, opts);
  if (!row) throw notFound('Guide');
  const access = await guideAccess(app.db, request.user, row);
  if (!access[need]) {
    if (!request.user) throw unauthorized();
    throw forbidden(NEED_TEXT[need]);
  }
  return { row, access, user: request.user };
}
