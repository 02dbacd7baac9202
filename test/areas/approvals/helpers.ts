// Shared pieces of the approvals tests: processes over HTTP, a category (with a parent),
// the signing tokens mailed through the job queue, and the outbox's events.
import type { TestApp } from '../../helpers/app.js';
import { unique } from '../../helpers/factories.js';

export type Stage = { userid?: number; teamid?: number; num_required?: number };

export async function makeProcess(t: TestApp, adminToken: string, stages: Stage[], extra: Record<string, unknown> = {}) {
  const res = await t.post('/approvals/process', { token: adminToken, body: { name: unique('Process '), stages, ...extra } });
  if (res.statusCode !== 201) throw new Error(`makeProcess: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A CATEGORY wiki under `parentid` (or at the top); answers its id and title. */
export async function makeCategoryAt(t: TestApp, parentid: number | null = null) {
  const title = unique('Category ');
  const row = await t.db.insertInto('wikis').values({ namespace: 'CATEGORY', title, parentid }).returning('wikiid').executeTakeFirstOrThrow();
  return { wikiid: row.wikiid, title };
}

/** The signing tokens mailed for a request, by recipient e-mail (the newest per address). */
export async function mailedTokens(t: TestApp, approval_requestid: number): Promise<Map<string, string>> {
  const jobs = await t.db.selectFrom('jobs').select(['payload']).where('type', '=', 'mail.send').orderBy('jobid').execute();
  const out = new Map<string, string>();
  for (const j of jobs) {
    const m = JSON.parse(j.payload) as { to: string; text: string };
    if (!m.text.includes(`/approvals/request/sign/${approval_requestid}/token`)) continue;
    const token = /"token": "([\w-]+)"/.exec(m.text)?.[1];
    if (token) out.set(m.to, token);
  }
  return out;
}

/** A webhook subscription (rows written directly: the webhooks area's routes are not this area's) to every approval event. */
export async function subscribeToApprovals(t: TestApp) {
  const now = t.clock.now();
  const { subscriptionid } = await t.db.insertInto('webhook_subscriptions').values({
    title: 'test', description: '', url: 'http://127.0.0.1:9/hook', enabled: 1, secret_sealed: 'x', invocation_count: 0, consecutive_failures: 0, disabled_reason: null, created_date: now, modified_date: now,
  }).returning('subscriptionid').executeTakeFirstOrThrow();
  for (const event_key of ['Approvals.RequestSubmitted', 'Approvals.StageCompleted', 'Approvals.RequestApproved', 'Approvals.RequestRejected']) {
    await t.db.insertInto('webhook_subscription_events').values({ subscriptionid, event_key }).execute();
  }
  return subscriptionid;
}

/** The approval events in the outbox for a request: [key, data.status] in order. */
export async function eventsOf(t: TestApp, approval_requestid: number) {
  const rows = await t.db.selectFrom('webhook_deliveries').select(['event_key', 'event']).orderBy('deliveryid').execute();
  return rows.map((r) => ({ key: r.event_key, event: JSON.parse(r.event) as { title: string; data: { approval_requestid: number; status: string } } }))
    .filter((e) => e.event.data.approval_requestid === approval_requestid);
}
