// `audit(trx, event)`: how a change function records what it changed (docs/audit.md). One
// call per controlled record changed, inside the change's transaction; the entry is queued
// there and appended, hash-chained, as the transaction's last step (db/audit-append.ts):
// a rolled-back change leaves none, an acknowledged one always has its entry.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AuthUser } from '../http/auth.js';
import { queueAuditEntry } from '../db/audit-append.js';
import { isAuditAction, type AuditAction, type AuditResourceType } from './actions.js';

/** Who acted, and through which request. */
export interface AuditActor {
  userid: number | null;
  impersonator_userid: number | null;
  request_id: string | null;
  client_ip: string | null;
}

/** The system (a job, a tool): no account, no request. */
export const SYSTEM_ACTOR: AuditActor = { userid: null, impersonator_userid: null, request_id: null, client_ip: null };

/** The caller of `request` (request.user, possibly none), with the request's id and address. */
export function requestActor(request: FastifyRequest, userid: number | null = request.user?.userid ?? null): AuditActor {
  const same = request.user && request.user.userid === userid;
  return { userid, impersonator_userid: same ? request.user!.impersonatedBy : null, request_id: request.id, client_ip: request.ip ?? null };
}

/** The actor of a logged-in user as change functions receive it (request.user: auth.ts sets its `request`). */
function userActor(user: AuthUser): AuditActor {
  return { userid: user.userid, impersonator_userid: user.impersonatedBy, request_id: user.request?.id ?? null, client_ip: user.request?.ip ?? null };
}

/** A field's old and new values as recorded: see `changesOf`. */
export type RecordedValue = string | number | boolean | null | { sha256: string; length: number };
export type AuditChanges = Record<string, { old?: RecordedValue; new?: RecordedValue }>;

/** Longest text recorded as it is; longer text is recorded as {sha256, length}. */
const MAX_RECORDED_TEXT = 256;

function recorded(value: unknown): RecordedValue | undefined {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    return value.length <= MAX_RECORDED_TEXT ? value : { sha256: createHash('sha256').update(value, 'utf8').digest('hex'), length: value.length };
  }
  return undefined; // lists and objects: named, not recorded
}

/**
 * The fields of `after` whose value differs from `before`'s (all of them when there was
 * no `before`), with old and new values as recorded (`recorded`); `hidden` fields (secrets)
 * are named without values. Null when nothing changed.
 */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown>, hidden: readonly string[] = []): AuditChanges | null {
  const out: AuditChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before ? before[field] : undefined;
    if (before && JSON.stringify(old ?? null) === JSON.stringify(value ?? null)) continue;
    if (hidden.includes(field)) {
      out[field] = {};
      continue;
    }
    const change: { old?: RecordedValue; new?: RecordedValue } = {};
    const o = before ? recorded(old ?? null) : undefined;
    const n = recorded(value);
    if (o !== undefined) change.old = o;
    if (n !== undefined) change.new = n;
    out[field] = change;
  }
  return Object.keys(out).length ? out : null;
}

/** The actor an event names, as the entry records it. */
export function auditActor(actor: AuthUser | AuditActor | null): AuditActor {
  return actor === null ? SYSTEM_ACTOR : 'tokenHash' in actor ? userActor(actor) : actor;
}

export interface AuditEvent {
  action: AuditAction;
  /** Who acted: the change's user (request.user), an actor (`requestActor`, SYSTEM_ACTOR), or null for the system. */
  actor: AuthUser | AuditActor | null;
  resource_type: AuditResourceType;
  resource_id: number | string;
  /** The app's clock at the change (seconds). */
  time: number;
  langid?: string | null;
  revisionid_before?: number | null;
  revisionid_after?: number | null;
  meaning?: string | null;
  reason?: string | null;
  changes?: AuditChanges | null;
}

/** Records `event` in the change's transaction `trx` (appended at its commit). */
export async function audit(trx: Kysely<any>, event: AuditEvent): Promise<void> {
  if (!isAuditAction(event.action)) throw new Error(`unknown audit action ${String(event.action)}`);
  const actor = auditActor(event.actor);
  await queueAuditEntry(trx, {
    time: event.time,
    userid: actor.userid,
    impersonator_userid: actor.impersonator_userid,
    action: event.action,
    resource_type: event.resource_type,
    resource_id: String(event.resource_id),
    langid: event.langid ?? null,
    revisionid_before: event.revisionid_before ?? null,
    revisionid_after: event.revisionid_after ?? null,
    meaning: event.meaning ?? null,
    reason: event.reason ?? null,
    changes: event.changes ? JSON.stringify(event.changes) : null,
    request_id: actor.request_id,
    client_ip: actor.client_ip,
  });
}
