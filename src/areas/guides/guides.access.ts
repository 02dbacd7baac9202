// Who may read, edit and manage a guide: the guide area's policy, asked by its routes.
// The rule itself (`guideAccess`, `guideRowReadable`, `readsEveryGuide`...) lives in
// areas/shared/guide-access.ts, below every area, because media, comments and tags ask it
// too while the guides area uses them; it is re-exported here, so the guides area and
// the areas above it import a guide's access from this file.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, notFound, unauthorized } from '../../http/errors.js';
import type { AuthUser } from '../../http/auth.js';
import { findGuideHead, findGuideRow, type GuideHead, type GuideRow } from './guides.queries.js';
import { guideAccess, type GuideAccess } from '../shared/guide-access.js';

export {
  readsEveryGuide, guideRowReadable, readableLanguages, preferredRow, isCollaborator, guideAccess, canReadGuide,
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
  return { row, access: await checkedAccess(request, app, row, need), user: request.user };
}

/**
 * The guide's head (guides.queries.ts `GuideHead`: not its texts) in a language, checked
 * like `guideFor`: what a read needs to decide whether its cached record serves.
 */
export async function guideHeadFor(app: FastifyInstance, request: FastifyRequest, guideid: number, langid: string | undefined, need: keyof GuideAccess): Promise<{ head: GuideHead; access: GuideAccess }> {
  const head = await findGuideHead(app.db, app.config, guideid, langid);
  if (!head) throw notFound('Guide');
  return { head, access: await checkedAccess(request, app, head, need) };
}

/** The caller's access to the guide in `row`, when it grants `need`: else 401 anonymous, 403 not allowed. */
async function checkedAccess(request: FastifyRequest, app: FastifyInstance, row: Parameters<typeof guideAccess>[2], need: keyof GuideAccess): Promise<GuideAccess> {
  const access = await guideAccess(app.db, request.user, row);
  if (!access[need]) {
    if (!request.user) throw unauthorized();
    throw forbidden(NEED_TEXT[need]);
  }
  return access;
}
