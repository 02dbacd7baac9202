// Who may do what with external training modules. Managing (imports, previews, current and
// draft versions, the draft list) needs the manage-external-training-module permission,
// which Admins have and grant through PATCH /users/{userid} {"permissions": [...]}.
// Playing a module needs an active course assignment reaching the learner whose course
// has a stage pointing at the module (the courses area's `assignedStages`).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { MANAGE_PERMISSION } from './modules.schemas.js';
import { userPermissions } from './modules.queries.js';

export async function managesModules(db: Kysely<Database>, user: AuthUser | null): Promise<boolean> {
  if (!user) return false;
  if (isAdmin(user)) return true;
  return (await userPermissions(db, user.userid)).includes(MANAGE_PERMISSION);
}
