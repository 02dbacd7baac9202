// Writes of the approvals area, each a named change run inside one transaction (the
// caller's `trx`): processes (create, PATCH at a revision), attaching them to categories,
// opening a request for a release, signing, cancelling. Events go to the webhook outbox
// in the same transaction (`emitApprovalEvent`); mails to signers through the mail outbox.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { fromBool, toBool } from '../../db/helpers.js';
import { newToken } from '../../http/passwords.js';
import { queueMail } from '../../jobs/mail.js';
import { lockedAtRevision } from '../content/revisions.js';
import { lockForTransaction } from '../../db/locks.js';
import { approvalWebhooksEnabled, publishEvent, type WebhookEventKey } from '../webhooks/webhooks.outbox.js';
import { publishReleased } from '../guides/guides.releases.js';
import { invalidateGuide } from '../guides/guides.cache.js';
import { READER_STAMPS, refreshReaderViews } from '../shared/guide-reader.js';
import { audit, changesOf, type AuditActor } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';
import { activeStages, candidatesOf, findProcess, findRequest, processForGuide, stagePeople, type ProcessRow, type RequestRow, type RequestStageRow } from './approvals.queries.js';
import { requestHref, requestRecords, signatureMeaning } from './approvals.records.js';

type Db = Kysely<Database>;
/**
 * Who made a change, as the audit log names it (request.user, or an actor); the demo
 * seeder's `{ seed: userid }` writes the change as that account without an entry (the
 * seed writes none, docs/audit.md).
 */
type Actor = AuthUser | AuditActor | { seed: number };
const actorUserid = (actor: Actor): number | null => ('seed' in actor ? actor.seed : actor.userid);
/** Records `event` unless the demo seeder made the change. */
async function auditChange(trx: Db, event: Omit<Parameters<typeof audit>[1], 'actor'> & { actor: Actor }): Promise<void> {
  if ('seed' in event.actor) return;
  await audit(trx, { ...event, actor: event.actor });
}

/** What a process's revision holds, as its audit entry records it (stages named, not copied). */
function processFields(input: ProcessInput): Record<string, unknown> {
  return { name: input.name, allow_repeated_signatures: input.allow_repeated_signatures, is_default: input.is_default, webhooks_enabled: input.webhooks_enabled, stages: input.stages };
}

export interface StageSpec { userid: number | null; teamid: number | null; num_required: number }
export interface ProcessInput {
  name?: string;
  stages?: StageSpec[];
  allow_repeated_signatures?: boolean;
  is_default?: boolean;
  webhooks_enabled?: boolean | null;
}

/** A request that is no longer pending (finished requests are never changed). */
export class RequestClosed extends Error {}
/** The current stage moved on between the checks and the lock. */
export class StageMoved extends Error {}

// ---------------------------------------------------------------- processes

async function snapshotProcess(trx: Db, approval_processid: number, userid: number | null, now: number): Promise<number> {
  const p = await trx.selectFrom('approval_processes').selectAll().where('approval_processid', '=', approval_processid).executeTakeFirstOrThrow();
  const stages = (await activeStages(trx, [approval_processid])).get(approval_processid) ?? [];
  const snapshot = {
    name: p.name, allow_repeated_signatures: toBool(p.allow_repeated_signatures), webhooks_enabled: p.webhooks_enabled == null ? null : toBool(p.webhooks_enabled),
    stages: stages.map((s) => ({ approval_process_stageid: s.approval_process_stageid, userid: s.userid, teamid: s.teamid, num_required: s.num_required })),
  };
  const { revisionid } = await trx.insertInto('approval_process_revisions').values({ approval_processid, userid, date: now, snapshot: JSON.stringify(snapshot) })
    .returning('revisionid').executeTakeFirstOrThrow();
  await trx.updateTable('approval_processes').set({ revisionid }).where('approval_processid', '=', approval_processid).execute();
  return revisionid;
}

async function insertStages(trx: Db, approval_processid: number, stages: StageSpec[]) {
  await trx.insertInto('approval_process_stages').values(stages.map((s, i) => ({
    approval_processid, orderby: i, userid: s.userid, teamid: s.teamid, num_required: s.userid != null ? 1 : s.num_required,
  }))).execute();
}

/** Makes `approval_processid` (or none) the default for guides created from now on. */
async function setDefault(trx: Db, approval_processid: number | null, now: number) {
  const max = await trx.selectFrom('guide_ids').select((eb) => eb.fn.max('guideid').as('m')).executeTakeFirst();
  await trx.insertInto('approval_defaults').values({ from_guideid: Number(max?.m ?? 0) + 1, approval_processid, date: now }).execute();
}

export async function createProcess(trx: Db, clock: Clock, actor: Actor, input: Required<Pick<ProcessInput, 'name' | 'stages'>> & ProcessInput): Promise<number> {
  const now = clock.now();
  const { approval_processid } = await trx.insertInto('approval_processes').values({
    name: input.name, name_lower: input.name.toLowerCase(), allow_repeated_signatures: fromBool(input.allow_repeated_signatures),
    webhooks_enabled: input.webhooks_enabled == null ? null : fromBool(input.webhooks_enabled), revisionid: 0, created_date: now, modified_date: now,
  }).returning('approval_processid').executeTakeFirstOrThrow();
  await insertStages(trx, approval_processid, input.stages);
  if (input.is_default) await setDefault(trx, approval_processid, now);
  const revisionid = await snapshotProcess(trx, approval_processid, actorUserid(actor), now);
  await auditChange(trx, { action: 'approval_process.created', actor, time: now, resource_type: 'approval_process', resource_id: approval_processid, revisionid_after: revisionid, changes: changesOf(null, processFields(input)) });
  return approval_processid;
}

/**
 * Changes a process at `revisionid` (StaleRevision otherwise). New stages retire the old
 * ones: requests already open keep the copies they started with.
 */
export async function patchProcess(trx: Db, clock: Clock, actor: Actor, row: ProcessRow, revisionid: number, input: ProcessInput, isDefaultNow: boolean): Promise<void> {
  const now = clock.now();
  const set: Record<string, unknown> = { modified_date: now };
  if (input.name !== undefined) Object.assign(set, { name: input.name, name_lower: input.name.toLowerCase() });
  if (input.allow_repeated_signatures !== undefined) set.allow_repeated_signatures = fromBool(input.allow_repeated_signatures);
  if (input.webhooks_enabled !== undefined) set.webhooks_enabled = input.webhooks_enabled == null ? null : fromBool(input.webhooks_enabled);
  lockedAtRevision(await trx.updateTable('approval_processes').set(set).where('approval_processid', '=', row.approval_processid).where('revisionid', '=', revisionid).executeTakeFirst());
  if (input.stages) {
    await trx.updateTable('approval_process_stages').set({ active: 0 }).where('approval_processid', '=', row.approval_processid).where('active', '=', 1).execute();
    await insertStages(trx, row.approval_processid, input.stages);
  }
  if (input.is_default === true && !isDefaultNow) await setDefault(trx, row.approval_processid, now);
  if (input.is_default === false && isDefaultNow) await setDefault(trx, null, now);
  const after = await snapshotProcess(trx, row.approval_processid, actorUserid(actor), now);
  const before = { name: row.name, allow_repeated_signatures: toBool(row.allow_repeated_signatures), is_default: isDefaultNow, webhooks_enabled: row.webhooks_enabled == null ? null : toBool(row.webhooks_enabled) };
  const changes = changesOf(before, processFields(input));
  await auditChange(trx, { action: 'approval_process.edited', actor, time: now, resource_type: 'approval_process', resource_id: row.approval_processid, revisionid_before: revisionid, revisionid_after: after, changes });
}

// ---------------------------------------------------------------- categories

/** CATEGORY wikis as (wikiid, parentid, title), with the processes attached to them. */
async function categoryTree(trx: Db) {
  const cats = await trx.selectFrom('wikis').select(['wikiid', 'parentid', 'title']).where('namespace', '=', 'CATEGORY').execute();
  const attached = new Map((await trx.selectFrom('approval_category_processes').select(['wikiid', 'approval_processid']).execute()).map((r) => [r.wikiid, r.approval_processid]));
  return { cats, attached };
}

/** Titles of the categories in the subtree of `wikiid` to which no process applied (nearest attached category up their tree). */
function uncoveredSubtree(tree: Awaited<ReturnType<typeof categoryTree>>, wikiid: number): string[] {
  const byId = new Map(tree.cats.map((c) => [c.wikiid, c]));
  const children = new Map<number, number[]>();
  for (const c of tree.cats) if (c.parentid != null) children.set(c.parentid, [...(children.get(c.parentid) ?? []), c.wikiid]);
  const covered = (id: number): boolean => {
    const seen = new Set<number>();
    for (let cur: number | null | undefined = id; cur != null && !seen.has(cur); cur = byId.get(cur)?.parentid) {
      seen.add(cur);
      if (tree.attached.has(cur)) return true;
    }
    return false;
  };
  const out: string[] = [];
  const stack = [wikiid];
  const seen = new Set<number>();
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const c = byId.get(id);
    if (c && !covered(id)) out.push(c.title);
    stack.push(...(children.get(id) ?? []));
  }
  return out;
}

/**
 * Attaches a process to a CATEGORY wiki (replacing the one it had). Guides that come under
 * a process by it keep showing readers the revision they saw (their current one) until
 * their next approved release.
 */
export async function attachProcess(trx: Db, clock: Clock, actor: Actor, wikiid: number, approval_processid: number): Promise<void> {
  // Two attaches to one category at once would both delete nothing and both insert (a
  // unique violation on PostgreSQL): they take turns.
  await lockForTransaction(trx, `approval-category:${wikiid}`);
  const now = clock.now();
  const titles = uncoveredSubtree(await categoryTree(trx), wikiid);
  for (let i = 0; i < titles.length; i += 500) {
    await trx.updateTable('guides').set((eb) => ({ reader_revisionid: eb.ref('revisionid') }))
      .where('category', 'in', titles.slice(i, i + 500))
      .where((eb) => eb(eb.selectFrom('approval_defaults as d').select('d.approval_processid').whereRef('d.from_guideid', '<=', 'guides.guideid')
        .orderBy('d.from_guideid', 'desc').orderBy('d.defaultid', 'desc').limit(1), 'is', null))
      .execute();
  }
  await trx.deleteFrom('approval_category_processes').where('wikiid', '=', wikiid).execute();
  await trx.insertInto('approval_category_processes').values({ wikiid, approval_processid, userid: actorUserid(actor), date: now }).execute();
  await refreshReaderViews(trx, processForGuide, { categories: titles });
  await auditChange(trx, { action: 'approval_process.attached', actor, time: now, resource_type: 'approval_process', resource_id: approval_processid, changes: { category_wikiid: { new: wikiid } } });
}

/** Detaches a category's process: its guides fall to the process up the tree or the default, else readers see their current revision. */
export async function detachProcess(trx: Db, clock: Clock, actor: Actor, wikiid: number): Promise<boolean> {
  await lockForTransaction(trx, `approval-category:${wikiid}`);
  const tree = await categoryTree(trx);
  // The categories whose guides this process covered: those no other process covers once it is gone.
  const titles = uncoveredSubtree({ ...tree, attached: new Map([...tree.attached].filter(([id]) => id !== wikiid)) }, wikiid);
  const attached = await trx.selectFrom('approval_category_processes').select('approval_processid').where('wikiid', '=', wikiid).executeTakeFirst();
  if (!attached) return false;
  await trx.deleteFrom('approval_category_processes').where('wikiid', '=', wikiid).execute();
  await refreshReaderViews(trx, processForGuide, { categories: titles });
  await auditChange(trx, { action: 'approval_process.detached', actor, time: clock.now(), resource_type: 'approval_process', resource_id: attached.approval_processid, changes: { category_wikiid: { old: wikiid } } });
  return true;
}

// ---------------------------------------------------------------- events and mail

const EVENT_TITLES: Record<string, string> = {
  'Approvals.RequestSubmitted': 'Approval Request Submitted',
  'Approvals.StageCompleted': 'Approval Stage Completed',
  'Approvals.RequestApproved': 'Approval Request Approved',
  'Approvals.RequestRejected': 'Approval Request Rejected',
};

/**
 * Writes an Approvals.* event into the webhook outbox inside the change's transaction,
 * where the process's webhooks_enabled allows it (null: WEBHOOKS_APPROVALS_DEFAULT). Its data is
 * what GET /approvals/request/{id} answers, as of the change.
 */
export async function emitApprovalEvent(trx: Db, config: Config, clock: Clock, approval_requestid: number, key: WebhookEventKey, description: string): Promise<void> {
  const request = await findRequest(trx, approval_requestid);
  if (!request) return;
  const process = await findProcess(trx, request.approval_processid);
  const enabled = approvalWebhooksEnabled(config, process?.webhooks_enabled);
  if (!enabled) return;
  const [data] = await requestRecords(trx, config, [request]);
  await publishEvent(trx, clock, { key, title: EVENT_TITLES[key] ?? key, description, data });
}

/**
 * The stage that became current: each of its possible signers (without repeated
 * signatures, not those who signed an earlier stage) gets a single-use signing token
 * (stored hashed) in an e-mail through the mail outbox.
 */
async function notifyStage(trx: Db, config: Config, clock: Clock, request: RequestRow, stage: RequestStageRow): Promise<void> {
  const now = clock.now();
  const people = await stagePeople(trx, [stage]);
  const signedBefore = toBool(request.allow_repeated_signatures) ? new Set<number>()
    : new Set((await trx.selectFrom('approval_signatures').select('userid').where('approval_requestid', '=', request.approval_requestid).execute()).map((r) => r.userid));
  const signers = candidatesOf(stage, people).filter((u) => !signedBefore.has(u));
  if (signers.length === 0) return;
  const users = await trx.selectFrom('users').select(['userid', 'email', 'username']).where('userid', 'in', signers).execute();
  const guide = await trx.selectFrom('guides').select('title').where('guideid', '=', request.guideid).where('langid', '=', request.langid).executeTakeFirst();
  const href = requestHref(config, request.approval_requestid);
  for (const u of users) {
    const { token, hash } = newToken();
    await trx.insertInto('approval_sign_tokens').values({
      token_hash: hash, approval_requestid: request.approval_requestid, approval_request_stageid: stage.approval_request_stageid, userid: u.userid,
      created_date: now, expires_date: now + config.approvalTokenTtl, used_date: null,
    }).execute();
    await queueMail(trx, clock, {
      to: u.email,
      subject: `Approval needed: ${guide?.title ?? `guide ${request.guideid}`}`,
      text: [
        `Hello ${u.username},`,
        '',
        `A release of "${guide?.title ?? request.guideid}" (revision ${request.revisionid}) waits for your signature: ${href}`,
        '',
        `Sign with your password: POST ${config.publicUrl}/api/2.0/approvals/request/sign/${request.approval_requestid} {"status": "approve" or "reject", "notes": "...", "password": "..."}`,
        `or, without a password, with this single-use token (valid until ${new Date((now + config.approvalTokenTtl) * 1000).toISOString()}): POST ${config.publicUrl}/api/2.0/approvals/request/sign/${request.approval_requestid}/token {"status": ..., "token": "${token}"}`,
        '',
      ].join('\n'),
    });
  }
}

// ---------------------------------------------------------------- requests

/** Opens the request for a pending release: copies the process's current stages; the first becomes current and its signers are mailed. */
export async function openRequest(trx: Db, config: Config, clock: Clock, release: { releaseid: number; guideid: number; langid: string; revisionid: number }, approval_processid: number, userid: number, actor: Actor | null = null): Promise<number> {
  const now = clock.now();
  const process = await findProcess(trx, approval_processid);
  if (!process) throw new Error(`no approval process ${approval_processid}`);
  const stages = (await activeStages(trx, [approval_processid])).get(approval_processid) ?? [];
  const { approval_requestid } = await trx.insertInto('approval_requests').values({
    approval_processid, releaseid: release.releaseid, guideid: release.guideid, langid: release.langid, revisionid: release.revisionid,
    process_revisionid: process.revisionid, allow_repeated_signatures: process.allow_repeated_signatures, userid, status: 'pending',
    current_stage: stages[0]?.orderby ?? 0, init_date: now, end_date: null,
  }).returning('approval_requestid').executeTakeFirstOrThrow();
  await trx.insertInto('approval_request_stages').values(stages.map((s, i) => ({
    approval_requestid, approval_process_stageid: s.approval_process_stageid, orderby: s.orderby, userid: s.userid, teamid: s.teamid,
    num_required: s.num_required, status: i === 0 ? 'pending' : 'waiting', end_date: null,
  }))).execute();
  await trx.updateTable('guide_releases').set({ approval_requestid }).where('releaseid', '=', release.releaseid).execute();
  const request = (await findRequest(trx, approval_requestid))!;
  const first = await trx.selectFrom('approval_request_stages').selectAll().where('approval_requestid', '=', approval_requestid).orderBy('orderby').limit(1).executeTakeFirst();
  if (first) await notifyStage(trx, config, clock, request, first);
  await auditChange(trx, {
    action: 'approval.requested', actor: actor ?? userAuditActor(userid), time: now, resource_type: 'approval_request', resource_id: approval_requestid, langid: release.langid,
    revisionid_after: release.revisionid, changes: { guideid: { new: release.guideid }, releaseid: { new: release.releaseid }, approval_processid: { new: approval_processid } },
  });
  await emitApprovalEvent(trx, config, clock, approval_requestid, 'Approvals.RequestSubmitted', `A release of guide ${release.guideid} (${release.langid}, revision ${release.revisionid}) was submitted for approval.`);
  return approval_requestid;
}

/** Locks a pending request at its current stage (the row lock that orders concurrent signers). */
async function lockPending(trx: Db, request: RequestRow): Promise<void> {
  const r = await trx.updateTable('approval_requests').set((eb) => ({ sign_count: eb('sign_count', '+', 1) }))
    .where('approval_requestid', '=', request.approval_requestid).where('status', '=', 'pending').where('current_stage', '=', request.current_stage).executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) {
    const now = await findRequest(trx, request.approval_requestid);
    throw now?.status === 'pending' ? new StageMoved() : new RequestClosed();
  }
}

/** Ends a request's open stages and its unused signing tokens. */
async function closeRequest(trx: Db, approval_requestid: number, status: string, stageStatus: string, now: number) {
  await trx.updateTable('approval_requests').set({ status, end_date: now }).where('approval_requestid', '=', approval_requestid).execute();
  await trx.updateTable('approval_request_stages').set({ status: stageStatus, end_date: now }).where('approval_requestid', '=', approval_requestid)
    .where('status', 'in', ['pending', 'waiting']).execute();
  await trx.updateTable('approval_sign_tokens').set({ used_date: now }).where('approval_requestid', '=', approval_requestid).where('used_date', 'is', null).execute();
}

/**
 * Records a signature of the current stage by `userid` (the checks of canSign passed
 * before; the unique index on (stage, user) holds under races). A rejection ends the
 * request and its release `rejected`; the approval that completes the last stage makes
 * the release `released` and what readers see.
 */
export async function signRequest(trx: Db, config: Config, clock: Clock, request: RequestRow, stage: RequestStageRow, actor: Actor, sign: { status: 'approve' | 'reject'; notes: string; method: 'password' | 'token' }): Promise<void> {
  const now = clock.now();
  const userid = actorUserid(actor)!;
  await lockPending(trx, request);
  // The printed name the signature shows: the signer's display name as they sign.
  const signer = await trx.selectFrom('users').select('username').where('userid', '=', userid).executeTakeFirst();
  await trx.insertInto('approval_signatures').values({
    approval_requestid: request.approval_requestid, approval_request_stageid: stage.approval_request_stageid, userid, status: sign.status,
    notes: sign.notes, revisionid: request.revisionid, method: sign.method, sign_date: now, signer_name: signer?.username ?? '',
  }).execute();
  await auditChange(trx, {
    action: 'approval.signed', actor, time: now, resource_type: 'approval_request', resource_id: request.approval_requestid, langid: request.langid,
    revisionid_after: request.revisionid, meaning: signatureMeaning(sign.status, stage), reason: sign.notes || null,
    changes: { guideid: { new: request.guideid }, stage: { new: stage.orderby + 1 }, method: { new: sign.method } },
  });
  // This signer's other tokens for the request are spent too.
  await trx.updateTable('approval_sign_tokens').set({ used_date: now }).where('approval_requestid', '=', request.approval_requestid)
    .where('userid', '=', userid).where('used_date', 'is', null).execute();
  if (sign.status === 'reject') {
    await trx.updateTable('approval_request_stages').set({ status: 'rejected', end_date: now }).where('approval_request_stageid', '=', stage.approval_request_stageid).execute();
    await closeRequest(trx, request.approval_requestid, 'rejected', 'cancelled', now);
    await trx.updateTable('guide_releases').set({ status: 'rejected' }).where('releaseid', '=', request.releaseid).execute();
    await emitApprovalEvent(trx, config, clock, request.approval_requestid, 'Approvals.RequestRejected', `The release of guide ${request.guideid} (${request.langid}) was rejected.`);
    return;
  }
  const approvals = await trx.selectFrom('approval_signatures').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('approval_request_stageid', '=', stage.approval_request_stageid).where('status', '=', 'approve').executeTakeFirstOrThrow();
  const needed = stage.userid != null ? 1 : stage.num_required;
  if (Number(approvals.n) < needed) return;
  await trx.updateTable('approval_request_stages').set({ status: 'complete', end_date: now }).where('approval_request_stageid', '=', stage.approval_request_stageid).execute();
  await trx.updateTable('approval_sign_tokens').set({ used_date: now }).where('approval_request_stageid', '=', stage.approval_request_stageid).where('used_date', 'is', null).execute();
  const next = await trx.selectFrom('approval_request_stages').selectAll().where('approval_requestid', '=', request.approval_requestid)
    .where('orderby', '>', stage.orderby).orderBy('orderby').limit(1).executeTakeFirst();
  if (next) {
    await trx.updateTable('approval_request_stages').set({ status: 'pending' }).where('approval_request_stageid', '=', next.approval_request_stageid).execute();
    await trx.updateTable('approval_requests').set({ current_stage: next.orderby }).where('approval_requestid', '=', request.approval_requestid).execute();
    await emitApprovalEvent(trx, config, clock, request.approval_requestid, 'Approvals.StageCompleted', `Stage ${stage.orderby + 1} of the approval of guide ${request.guideid} (${request.langid}) was completed.`);
    await notifyStage(trx, config, clock, (await findRequest(trx, request.approval_requestid))!, { ...next, status: 'pending' });
    return;
  }
  await emitApprovalEvent(trx, config, clock, request.approval_requestid, 'Approvals.StageCompleted', `Stage ${stage.orderby + 1} of the approval of guide ${request.guideid} (${request.langid}) was completed.`);
  await closeRequest(trx, request.approval_requestid, 'approved', 'cancelled', now);
  await trx.updateTable('guide_releases').set({ status: 'released', release_date: now }).where('releaseid', '=', request.releaseid).execute();
  // Released like any direct release: the Guides.Published event (and whatever else every
  // path to `released` does) in this same transaction.
  const released = await trx.selectFrom('guide_releases').selectAll().where('releaseid', '=', request.releaseid).executeTakeFirstOrThrow();
  await publishReleased(trx, config, now, released);
  await auditChange(trx, {
    action: 'approval.released', actor, time: now, resource_type: 'guide', resource_id: request.guideid, langid: request.langid, revisionid_after: request.revisionid,
    changes: { releaseid: { new: request.releaseid }, status: { old: 'pending', new: 'released' }, approval_requestid: { new: request.approval_requestid } },
  });
  // Readers see the approved revision from now on (the read cache keys reader views by it).
  await trx.updateTable('guides').set((eb) => ({ reader_revisionid: request.revisionid, reader_view: 1, ...READER_STAMPS(eb) })).where('guideid', '=', request.guideid).where('langid', '=', request.langid).execute();
  await invalidateGuide(trx, request.guideid);
  await emitApprovalEvent(trx, config, clock, request.approval_requestid, 'Approvals.RequestApproved', `The release of guide ${request.guideid} (${request.langid}) was approved and is live.`);
}

/** An Admin cancels a pending request (for example one no longer satisfiable): the request and its release end `cancelled`. */
export async function cancelRequest(trx: Db, clock: Clock, actor: Actor, request: RequestRow): Promise<void> {
  const now = clock.now();
  await lockPending(trx, request);
  await closeRequest(trx, request.approval_requestid, 'cancelled', 'cancelled', now);
  await trx.updateTable('guide_releases').set({ status: 'cancelled' }).where('releaseid', '=', request.releaseid).execute();
  await auditChange(trx, {
    action: 'approval.cancelled', actor, time: now, resource_type: 'approval_request', resource_id: request.approval_requestid, langid: request.langid,
    revisionid_after: request.revisionid, changes: { status: { old: 'pending', new: 'cancelled' }, releaseid: { new: request.releaseid } },
  });
}

/** An account acting outside a request (the release's author when no actor is given). */
function userAuditActor(userid: number): AuditActor {
  return { userid, impersonator_userid: null, request_id: null, client_ip: null };
}
