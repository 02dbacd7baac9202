// Who may do what with approvals: the area's one policy module (see src/http/policy.ts).
//   change processes, attach them to categories, cancel a request: Admins;
//   read processes: any logged-in user (signers and editors need their stages);
//   read a request: Admins and Authors (who edit every guide), the guide's owner, the
//     one who released it, and the signers of any of its stages;
//   sign a request's current stage: its user, or an enabled member of its team, who has
//     not signed that stage, nor (without repeated signatures) an earlier one.
import { expressionBuilder, sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { readsEveryGuide } from '../guides/guides.access.js';
import type { RequestRow, RequestStageRow } from './approvals.queries.js';

type Db = Kysely<Database>;

export const canManageProcesses = (user: AuthUser | null): boolean => isAdmin(user);
export const canCancelRequest = (user: AuthUser | null): boolean => isAdmin(user);

/** Whether `user` is one of a stage's signers (its user, or a member of its team). */
export async function isStageSigner(db: Db, user: AuthUser, stage: Pick<RequestStageRow, 'userid' | 'teamid'>): Promise<boolean> {
  if (stage.userid != null) return stage.userid === user.userid;
  if (stage.teamid == null) return false;
  return !!(await db.selectFrom('team_members').select('userid').where('teamid', '=', stage.teamid).where('userid', '=', user.userid).executeTakeFirst());
}

/** Requests (aliased `r`) the user may read, as SQL. */
export function requestReadable(user: AuthUser, alias = 'r'): Expression<SqlBool> {
  if (readsEveryGuide(user)) return sql<SqlBool>`1 = 1`;
  const eb = expressionBuilder<Database, never>();
  const id = sql.ref<number>(`${alias}.approval_requestid`);
  return eb.or([
    eb(sql.ref<number>(`${alias}.userid`), '=', user.userid),
    eb.exists(eb.selectFrom('guides as og').select('og.guideid').where('og.guideid', '=', sql.ref<number>(`${alias}.guideid`)).where('og.userid', '=', user.userid)),
    eb.exists(eb.selectFrom('approval_request_stages as rs').select('rs.approval_request_stageid').where('rs.approval_requestid', '=', id)
      .where((w) => w.or([
        w('rs.userid', '=', user.userid),
        w('rs.teamid', 'in', w.selectFrom('team_members').select('teamid').where('userid', '=', user.userid)),
      ]))),
  ]);
}

export async function canReadRequest(db: Db, user: AuthUser | null, request: RequestRow): Promise<boolean> {
  if (!user) return false;
  const row = await db.selectFrom('approval_requests as r').select('r.approval_requestid').where('r.approval_requestid', '=', request.approval_requestid)
    .where(requestReadable(user)).executeTakeFirst();
  return !!row;
}

/** Pending requests (aliased `r`) whose current stage `user` may sign and has not signed, as SQL. */
export function waitingOn(user: AuthUser, alias = 'r'): Expression<SqlBool> {
  const eb = expressionBuilder<Database, never>();
  const id = sql.ref<number>(`${alias}.approval_requestid`);
  return eb.and([
    eb(sql.ref<string>(`${alias}.status`), '=', 'pending'),
    eb.exists(eb.selectFrom('approval_request_stages as ws').select('ws.approval_request_stageid').where('ws.approval_requestid', '=', id)
      .where('ws.status', '=', 'pending')
      .where((w) => w.or([
        w('ws.userid', '=', user.userid),
        w('ws.teamid', 'in', w.selectFrom('team_members').select('teamid').where('userid', '=', user.userid)),
      ]))
      .where((w) => w.not(w.exists(w.selectFrom('approval_signatures as s').select('s.approval_request_stage_signatureid')
        .where('s.approval_request_stageid', '=', sql.ref<number>('ws.approval_request_stageid')).where('s.userid', '=', user.userid))))),
  ]);
}

export type SignRefusal = 'not_signer' | 'already_signed' | 'repeated_signature' | null;

/**
 * Whether `user` may sign `stage` (the current stage of `request`): null when they may,
 * else why not. Never throws; the route answers 403 or 422.
 */
export async function canSign(db: Db, user: AuthUser, request: RequestRow, stage: RequestStageRow): Promise<SignRefusal> {
  if (!(await isStageSigner(db, user, stage))) return 'not_signer';
  const signed = await db.selectFrom('approval_signatures').select(['approval_request_stageid']).where('approval_requestid', '=', request.approval_requestid)
    .where('userid', '=', user.userid).execute();
  if (signed.some((s) => s.approval_request_stageid === stage.approval_request_stageid)) return 'already_signed';
  if (!request.allow_repeated_signatures && signed.length > 0) return 'repeated_signature';
  return null;
}
