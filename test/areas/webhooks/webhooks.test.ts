// Webhooks over HTTP: the endpoints (shapes, permissions, validation) and delivery to a
// receiver on 127.0.0.1 verified with the real libraries, retries on the app's clock,
// disabling dead receivers, and the outbox surviving a worker that never delivered.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { publishEvent, WEBHOOK_DELIVERY_JOB } from '../../../src/areas/webhooks/webhooks.outbox.js';
import { deliveryJobType, RETRY_SCHEDULE } from '../../../src/areas/webhooks/webhooks.delivery.js';
import { WebhookEventGroup, WebhookLogs, WebhookRedelivery, WebhookSubscription } from '../../../src/areas/webhooks/webhooks.schemas.js';
import { JobWorker } from '../../../src/jobs/queue.js';
import { Receiver, schemaProblems } from './receiver.js';

let admin: TestUser;
let user: TestUser;
const receiver = new Receiver();
const SECRET = 'a-signing-key-of-32-characters!!';

const t = appForFile({ config: { outgoingAllow: ['127.0.0.1'], webhookMaxFailures: 4, siteName: 'Test Site' } }, async () => {
  admin = await makeAdmin(t);
  user = await makeUser(t);
});
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

async function subscribe(body: Record<string, unknown> = {}) {
  const res = await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: 'Receiver', url: `${receiver.url}/hook`, eventKeys: ['Guides.Published'], secretKey: SECRET, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function publish(key: 'Guides.Published' | 'WorkLog.StatusChanged' = 'Guides.Published', data: unknown = { releaseid: 1 }) {
  await t.db.transaction().execute((trx) => publishEvent(trx, t.clock, { key, title: 'Guide Published', description: 'A guide was released.', data }));
}

const runDue = () => t.app.jobs.runDue();
const sub = async (id: number) => (await t.get(`/webhooks/subscriptions/${id}`, { token: admin.token })).json();
const logs = async (id: number) => (await t.get(`/webhooks/subscriptions/${id}/logs?limit=200`, { token: admin.token })).json();
const pendingJobs = () => t.db.selectFrom('jobs').select(['jobid', 'run_at', 'payload']).where('type', '=', WEBHOOK_DELIVERY_JOB).where('status', '=', 'pending').execute();
/** Each test starts alone: earlier tests' subscriptions are turned off and their pending deliveries dropped. */
async function settleJobs() {
  await t.db.updateTable('jobs').set({ status: 'done' }).where('type', '=', WEBHOOK_DELIVERY_JOB).where('status', '=', 'pending').execute();
  await t.db.updateTable('webhook_subscriptions').set({ enabled: 0 }).execute();
  receiver.script = [];
}

describe('permissions', () => {
  it('every webhooks endpoint answers 401 to anonymous callers and 403 to non-Admins', async () => {
    const s = await subscribe();
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/webhooks/events'], ['GET', '/webhooks/subscriptions'], ['POST', '/webhooks/subscriptions', { title: 'x', url: receiver.url, eventKeys: [], secretKey: SECRET }],
      ['GET', `/webhooks/subscriptions/${s.id}`], ['PATCH', `/webhooks/subscriptions/${s.id}`, { title: 'y' }], ['DELETE', `/webhooks/subscriptions/${s.id}`],
      ['GET', `/webhooks/subscriptions/${s.id}/logs`], ['POST', `/webhooks/subscriptions/${s.id}/logs/1/redeliver`],
    ];
    for (const [method, path, body] of calls) {
      const anon = await t.request(method as 'GET', path, { body });
      expect(anon.statusCode, `${method} ${path}`).toBe(401);
      expect(anon.json().code).toBe('unauthorized');
      const plain = await t.request(method as 'GET', path, { body, token: user.token });
      expect(plain.statusCode, `${method} ${path}`).toBe(403);
    }
    expect((await sub(s.id)).title).toBe('Receiver');
  });
});

describe('subscriptions', () => {
  it('create, read, list, change and delete; the secret is never answered and is stored sealed', async () => {
    const created = await subscribe({ description: 'Quality system', eventKeys: ['WorkLog.StatusChanged', 'Guides.Published'] });
    expect(schemaProblems(WebhookSubscription, created)).toEqual([]);
    expect(created).toMatchObject({ title: 'Receiver', description: 'Quality system', url: `${receiver.url}/hook`, enabled: true, eventKeys: ['Guides.Published', 'WorkLog.StatusChanged'], invocationCount: 0, createdAt: t.clock.now(), updatedAt: t.clock.now(), disabledReason: null });
    expect(JSON.stringify(created)).not.toContain(SECRET);
    const stored = await t.db.selectFrom('webhook_subscriptions').select('secret_sealed').where('subscriptionid', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.secret_sealed).not.toContain(SECRET);
    expect(stored.secret_sealed).not.toContain(Buffer.from(SECRET).toString('base64url'));

    const one = await t.get(`/webhooks/subscriptions/${created.id}`, { token: admin.token });
    expect(one.statusCode).toBe(200);
    expect(schemaProblems(WebhookSubscription, one.json())).toEqual([]);
    expect(one.json()).toEqual(created);

    const list = await t.get('/webhooks/subscriptions?limit=200', { token: admin.token });
    expect(list.statusCode).toBe(200);
    expect(schemaProblems(Type.Array(WebhookSubscription), list.json())).toEqual([]);
    expect(list.json().map((s: { id: number }) => s.id)).toContain(created.id);
    expect(JSON.stringify(list.json())).not.toContain(SECRET);

    t.clock.advance(60);
    const patched = await t.patch(`/webhooks/subscriptions/${created.id}`, { token: admin.token, body: { title: 'Renamed', eventKeys: ['Approvals.RequestApproved'], enabled: false, secretKey: 'another-key-123' } });
    expect(patched.statusCode).toBe(200);
    expect(schemaProblems(WebhookSubscription, patched.json())).toEqual([]);
    expect(patched.json()).toMatchObject({ title: 'Renamed', eventKeys: ['Approvals.RequestApproved'], enabled: false, updatedAt: t.clock.now(), createdAt: created.createdAt, description: 'Quality system' });
    expect(JSON.stringify(patched.json())).not.toContain('another-key-123');

    const gone = await t.del(`/webhooks/subscriptions/${created.id}`, { token: admin.token });
    expect(gone.statusCode).toBe(204);
    expect((await t.get(`/webhooks/subscriptions/${created.id}`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.del(`/webhooks/subscriptions/${created.id}`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.patch(`/webhooks/subscriptions/${created.id}`, { token: admin.token, body: { title: 'x' } })).statusCode).toBe(404);
    expect(await t.db.selectFrom('webhook_subscription_events').select('event_key').where('subscriptionid', '=', created.id).execute()).toEqual([]);
  });

  it('refuses bad input with a 422 naming the field, and stores nothing', async () => {
    const count = async () => Number((await t.db.selectFrom('webhook_subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const base = { title: 'x', url: `${receiver.url}/hook`, eventKeys: ['Guides.Published'], secretKey: SECRET };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ secretKey: 'short' }, 'secretKey'],
      [{ secretKey: undefined }, 'secretKey'],
      [{ secretKey: 'tab\tin the key' }, 'secretKey'],
      [{ eventKeys: ['Guides.Nope'] }, 'eventKeys'],
      [{ eventKeys: ['Guides.Published', 'Guides.Published'] }, 'eventKeys'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'url'],
      [{ url: 'http://10.0.0.1/hook' }, 'url'],
      [{ url: 'http://[::1]/hook' }, 'url'],
      [{ title: '   ' }, 'title'],
      [{ enabled: 'yes' }, 'enabled'],
    ];
    for (const [change, field] of cases) {
      const res = await t.post('/webhooks/subscriptions', { token: admin.token, body: { ...base, ...change } });
      expect(res.statusCode, JSON.stringify(change)).toBe(422);
      expect(res.json().errors[0].field.replace(/\[\d+\]$/, ''), JSON.stringify(change)).toBe(field);
    }
    expect(await count()).toBe(before);
    const s = await subscribe();
    const bad = await t.patch(`/webhooks/subscriptions/${s.id}`, { token: admin.token, body: { url: 'http://169.254.169.254/', title: 'changed' } });
    expect(bad.statusCode).toBe(422);
    expect((await sub(s.id)).title).toBe('Receiver');
    expect((await t.get('/webhooks/subscriptions/0', { token: admin.token })).statusCode).toBe(422);
    expect((await t.get('/webhooks/subscriptions?limit=0', { token: admin.token })).statusCode).toBe(422);
  });
});

describe('GET /webhooks/events', () => {
  it('answers the catalog in its shape, with every event key', async () => {
    const res = await t.get('/webhooks/events', { token: admin.token });
    expect(res.statusCode).toBe(200);
    expect(schemaProblems(Type.Array(WebhookEventGroup), res.json())).toEqual([]);
    const keys = res.json().flatMap((g: { events: Array<{ key: string }> }) => g.events.map((e) => e.key));
    expect(keys.sort()).toEqual(['Approvals.RequestApproved', 'Approvals.RequestRejected', 'Approvals.RequestSubmitted', 'Approvals.StageCompleted', 'Courses.StageCompleted', 'Guides.Published', 'WorkLog.StatusChanged']);
    expect(res.json()[0].events[0]).toMatchObject({ id: 1, key: 'Approvals.RequestSubmitted', displayName: 'Approval Request Submitted' });
  });
});

describe('delivery', () => {
  it('POSTs the body with both signatures, which the real libraries verify', async () => {
    await settleJobs();
    const s = await subscribe({ eventKeys: ['WorkLog.StatusChanged'] });
    const before = receiver.received.length;
    await publish('WorkLog.StatusChanged', { entryid: 5, status: 'paused' });
    expect(receiver.received.length).toBe(before); // written, not sent: the worker sends
    expect(await runDue()).toBeGreaterThanOrEqual(1);
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const { headers, body, method, url } = got[0];
    expect(method).toBe('POST');
    expect(url).toBe('/hook');
    expect(headers['content-type']).toBe('application/json');
    // The documented fields, and the event's key (issue 62, item 6): signed with the body, and a header to route by.
    expect(JSON.parse(body)).toEqual({ title: 'Guide Published', description: 'A guide was released.', siteName: 'Test Site', siteDomain: 'test.local', data: { entryid: 5, status: 'paused' }, event: 'WorkLog.StatusChanged' });
    expect(headers['webhook-event']).toBe('WorkLog.StatusChanged');

    // Standard Webhooks, keyed with the secret's bytes.
    const verified = new Webhook(SECRET, { format: 'raw' }).verify(body, headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
    expect(() => new Webhook('some-other-secret', { format: 'raw' }).verify(body, headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(SECRET, { format: 'raw' }).verify(body.replace('paused', 'started'), headers as Record<string, string>)).toThrow();
    // Signature time is the wall clock's, not the app's (the test clock is years away).
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);

    // The JWT: HS256 keyed with the secret; jti is the delivery id (= webhook-id); body_sha256 pins the body.
    const { payload, protectedHeader } = await jwtVerify(String(headers['x-webhook-secret']), new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload.jti).toBe(headers['webhook-id']);
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(payload.body_sha256).toBe(createHash('sha256').update(body).digest('hex'));
    await expect(jwtVerify(String(headers['x-webhook-secret']), new TextEncoder().encode('wrong-secret'), { algorithms: ['HS256'] })).rejects.toThrow();

    const log = await t.get(`/webhooks/subscriptions/${s.id}/logs`, { token: admin.token });
    expect(log.statusCode).toBe(200);
    expect(schemaProblems(WebhookLogs, log.json())).toEqual([]);
    expect(log.json()).toMatchObject({ count: 1, rows: [{ statusCode: 200, requestBody: body, errorMessage: null, triggerType: 'event', eventKey: 'WorkLog.StatusChanged', deliveryId: Number(headers['webhook-id']), createdAt: t.clock.now() }] });
    expect((await sub(s.id)).invocationCount).toBe(1);
    // Delivered once: running the worker again sends nothing.
    await runDue();
    expect(receiver.received.length).toBe(before + 1);
  });

  it('retries a failing receiver on the growing schedule until it succeeds, honouring Retry-After, same id and body each time', async () => {
    await settleJobs();
    const s = await subscribe();
    const before = receiver.received.length;
    receiver.script = [{ status: 500 }, { status: 503, headers: { 'retry-after': '7200' } }, { status: 200 }];
    await publish();
    await runDue();
    expect(receiver.received.length).toBe(before + 1);
    let [next] = await pendingJobs();
    expect(next.run_at).toBe(t.clock.now() + RETRY_SCHEDULE[0]);
    // Not due yet: nothing is sent.
    expect(await runDue()).toBe(0);
    t.clock.advance(RETRY_SCHEDULE[0]);
    await runDue();
    expect(receiver.received.length).toBe(before + 2);
    [next] = await pendingJobs();
    // The schedule says 60 s; the receiver asked for 7200.
    expect(next.run_at).toBe(t.clock.now() + 7200);
    t.clock.advance(3600);
    expect(await runDue()).toBe(0);
    t.clock.advance(3600);
    await runDue();
    const sent = receiver.received.slice(before);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    for (const r of sent) new Webhook(SECRET, { format: 'raw' }).verify(r.body, r.headers as Record<string, string>);
    expect(await pendingJobs()).toHaveLength(0);
    const log = await logs(s.id);
    expect(log.count).toBe(3);
    expect(log.rows.map((r: { statusCode: number; triggerType: string }) => [r.statusCode, r.triggerType])).toEqual([[200, 'retry'], [503, 'retry'], [500, 'event']]);
    expect(log.rows[2].errorMessage).toMatch(/HTTP 500/);
    expect(await sub(s.id)).toMatchObject({ enabled: true, invocationCount: 3 });
  });

  it('a 410 disables the subscription at once; nothing more is written for it', async () => {
    await settleJobs();
    const s = await subscribe();
    receiver.script = [{ status: 410 }];
    await publish();
    await runDue();
    const after = await sub(s.id);
    expect(after.enabled).toBe(false);
    expect(after.disabledReason).toMatch(/410/);
    expect(await pendingJobs()).toHaveLength(0);
    await publish();
    expect(await t.db.selectFrom('webhook_deliveries').select('deliveryid').where('subscriptionid', '=', s.id).execute()).toHaveLength(1);
    // An Admin turns it on again: the reason is cleared.
    const on = await t.patch(`/webhooks/subscriptions/${s.id}`, { token: admin.token, body: { enabled: true } });
    expect(on.json()).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('too many consecutive failures disable it (WEBHOOK_MAX_FAILURES: 4 here)', async () => {
    await settleJobs();
    const s = await subscribe({ url: `${receiver.url}/dead` });
    receiver.script = Array.from({ length: 10 }, () => ({ status: 500 }));
    await publish();
    for (let i = 0; i < 6; i++) {
      await runDue();
      t.clock.advance(RETRY_SCHEDULE[i]);
    }
    const after = await sub(s.id);
    expect(after.enabled).toBe(false);
    expect(after.disabledReason).toMatch(/4 deliveries failed/);
    expect((await logs(s.id)).count).toBe(4);
    expect(await pendingJobs()).toHaveLength(0);
    const [d] = await t.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('subscriptionid', '=', s.id).execute();
    expect(d).toEqual({ status: 'failed', attempts: 4 });
    receiver.script = [];
  });

  it('an address the guard refuses is logged as an error, and nothing is sent', async () => {
    await settleJobs();
    const s = await subscribe();
    // Written behind the API's back (the API refuses it): the guard still stops it at delivery.
    await t.db.updateTable('webhook_subscriptions').set({ url: `http://localhost:1/hook` }).where('subscriptionid', '=', s.id).execute();
    await t.db.updateTable('webhook_subscriptions').set({ url: 'http://127.0.0.2:9/hook' }).where('subscriptionid', '=', s.id).execute();
    const before = receiver.received.length;
    await publish();
    await runDue();
    expect(receiver.received.length).toBe(before);
    const [row] = (await logs(s.id)).rows;
    expect(row).toMatchObject({ statusCode: null, triggerType: 'event' });
    expect(row.errorMessage).toMatch(/refused_address/);
  });

  it('a crash between the change and the delivery loses nothing: a new worker delivers the committed event', async () => {
    await settleJobs();
    const s = await subscribe();
    const before = receiver.received.length;
    await publish(); // committed; this process "dies" before its worker runs
    const fresh = new JobWorker(t.db, t.clock, t.app.log, { pollMs: 0 });
    fresh.register(WEBHOOK_DELIVERY_JOB, deliveryJobType(t.config));
    // A worker that claims the job and dies holding it...
    const claimed = await fresh.claim([WEBHOOK_DELIVERY_JOB]);
    expect(claimed).toBeDefined();
    expect(receiver.received.length).toBe(before);
    // ...leaves it to the next one once its lease runs out.
    const again = new JobWorker(t.db, t.clock, t.app.log, { pollMs: 0 });
    again.register(WEBHOOK_DELIVERY_JOB, deliveryJobType(t.config));
    expect(await again.runDue()).toBe(0);
    t.clock.advance(t.config.jobLeaseSeconds + 1);
    expect(await again.runDue()).toBe(1);
    expect(receiver.received.length).toBe(before + 1);
    expect((await logs(s.id)).rows[0]).toMatchObject({ statusCode: 200 });
  });
});

describe('POST /webhooks/subscriptions/{id}/logs/{logid}/redeliver', () => {
  it('sends a logged delivery again with the same id and body; logs it as manual', async () => {
    await settleJobs();
    const s = await subscribe();
    await publish();
    await runDue();
    const [first] = (await logs(s.id)).rows;
    const before = receiver.received.length;
    const res = await t.post(`/webhooks/subscriptions/${s.id}/logs/${first.id}/redeliver`, { token: admin.token });
    expect(res.statusCode).toBe(202);
    expect(schemaProblems(WebhookRedelivery, res.json())).toEqual([]);
    expect(res.json()).toEqual({ deliveryId: first.deliveryId, runAt: t.clock.now() });
    await runDue();
    const again = receiver.received.slice(before);
    expect(again).toHaveLength(1);
    expect(again[0].headers['webhook-id']).toBe(String(first.deliveryId));
    expect(again[0].body).toBe(first.requestBody);
    new Webhook(SECRET, { format: 'raw' }).verify(again[0].body, again[0].headers as Record<string, string>);
    expect((await logs(s.id)).rows[0]).toMatchObject({ triggerType: 'manual', statusCode: 200, deliveryId: first.deliveryId });
  });

  it('404 for a log row of another subscription or none; 422 while disabled', async () => {
    await settleJobs();
    const a = await subscribe();
    const b = await subscribe();
    await publish();
    await runDue();
    const [rowA] = (await logs(a.id)).rows;
    expect((await t.post(`/webhooks/subscriptions/${b.id}/logs/${rowA.id}/redeliver`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.post(`/webhooks/subscriptions/${a.id}/logs/999999/redeliver`, { token: admin.token })).statusCode).toBe(404);
    await t.patch(`/webhooks/subscriptions/${a.id}`, { token: admin.token, body: { enabled: false } });
    const refused = await t.post(`/webhooks/subscriptions/${a.id}/logs/${rowA.id}/redeliver`, { token: admin.token });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBeDefined();
    expect(await pendingJobs()).toHaveLength(0);
  });
});
