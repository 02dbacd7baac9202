// The events the guides and work-log areas publish, end to end over HTTP: the change, the
// outbox row in its transaction, the worker, a receiver on 127.0.0.1 verifying both
// signatures, and `data` equal to what the matching GET answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { Receiver, type Received } from './receiver.js';

let admin: TestUser;
let author: TestUser;
const receiver = new Receiver();
const SECRET = 'events-test-secret';

const t = appForFile({ config: { outgoingAllow: ['127.0.0.1'] } }, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
});
beforeAll(async () => {
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

/** Runs the worker and answers the deliveries it made, each checked with both libraries. */
async function delivered(): Promise<Array<{ body: any; headers: Received['headers'] }>> {
  const before = receiver.received.length;
  await t.app.jobs.runDue();
  const out = [];
  for (const r of receiver.received.slice(before)) {
    new Webhook(SECRET, { format: 'raw' }).verify(r.body, r.headers as Record<string, string>);
    const { payload } = await jwtVerify(String(r.headers['x-webhook-secret']), new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(payload.body_sha256).toBe(createHash('sha256').update(r.body).digest('hex'));
    expect(payload.jti).toBe(r.headers['webhook-id']);
    // The event's key, in the signed body and as a header (issue 62, item 6).
    expect(JSON.parse(r.body).event).toMatch(/^[A-Za-z]+\.[A-Za-z]+$/);
    expect(r.headers['webhook-event']).toBe(JSON.parse(r.body).event);
    out.push({ body: JSON.parse(r.body), headers: r.headers });
  }
  return out;
}

describe('Guides.Published and WorkLog.StatusChanged', () => {
  it('a subscription for both is created', async () => {
    const res = await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: 'Quality', url: `${receiver.url}/events`, eventKeys: ['Guides.Published', 'WorkLog.StatusChanged'], secretKey: SECRET } });
    expect(res.statusCode).toBe(201);
  });

  it('releasing a guide sends Guides.Published with the release record as the releases GET answers it', async () => {
    const g = await makePublishedGuide(t, author, 1);
    expect(await delivered()).toEqual([]); // editing a guide publishes nothing
    const rel = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', notes: 'First' } });
    expect(rel.statusCode).toBe(201);
    const [event, ...more] = await delivered();
    expect(more).toEqual([]);
    const listed = (await t.get(`/guides/${g.guideid}/releases`, { token: author.token })).json().releases.find((r: { releaseid: number }) => r.releaseid === rel.json().releaseid);
    expect(event.body).toMatchObject({ title: 'Guide Published', siteDomain: 'test.local' });
    expect(event.body.data).toEqual(listed);
    expect(event.body.data).toEqual(rel.json());
  });

  it('a release that fails publishes nothing; duplicates and a release marked released again do', async () => {
    const g = await makePublishedGuide(t, author);
    const other = await makePublishedGuide(t, author);
    expect((await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', revisionid: 999999 } })).statusCode).toBe(422);
    expect(await delivered()).toEqual([]);
    const rel = (await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'minor' } })).json();
    expect((await delivered()).map((e) => e.body.data.releaseid)).toEqual([rel.releaseid]);
    const dup = await t.post('/guides/duplicateReleases', { token: author.token, body: { releaseid: rel.releaseid, targets: [{ guideid: other.guideid }] } });
    expect(dup.statusCode).toBe(201);
    expect((await delivered()).map((e) => e.body.data)).toEqual(dup.json().releases);
    // Removing publishes nothing; released again publishes once; an edit that keeps it released publishes nothing.
    expect((await t.del(`/guides/releases/${rel.releaseid}`, { token: author.token })).statusCode).toBe(200);
    expect(await delivered()).toEqual([]);
    const again = await t.patch(`/guides/releases/${rel.releaseid}`, { token: author.token, body: { status: 'released' } });
    expect(again.statusCode).toBe(200);
    expect((await delivered()).map((e) => e.body.data)).toEqual([again.json()]);
    await t.patch(`/guides/releases/${rel.releaseid}`, { token: author.token, body: { notes: 'edited', status: 'released' } });
    expect(await delivered()).toEqual([]);
  });

  it('starting and moving a work log entry sends WorkLog.StatusChanged with the entry as GET /work_log/{id} answers it', async () => {
    const worker = await makeUser(t);
    const g = await makePublishedGuide(t, author, 1);
    const started = await t.post('/work_log', { token: worker.token, body: { guideid: g.guideid, workorderid: 'WO-7' } });
    expect(started.statusCode).toBe(201);
    const entryid = started.json().entryid;
    const [first] = await delivered();
    expect(first.body).toMatchObject({ title: 'Work Log Status Changed', data: { entryid, status: 'started' } });
    expect(first.body.data).toEqual((await t.get(`/work_log/${entryid}`, { token: worker.token })).json());

    t.clock.advance(30);
    const paused = await t.post(`/work_log/${entryid}/pause`, { token: worker.token });
    expect(paused.statusCode).toBe(200);
    const events = await delivered();
    expect(events).toHaveLength(1);
    expect(events[0].body.data).toEqual(paused.json());
    expect(events[0].body.data).toEqual((await t.get(`/work_log/${entryid}`, { token: worker.token })).json());
    expect(events[0].body.data.status).toBe('paused');

    // A transition that does not fit changes nothing and sends nothing.
    expect((await t.post(`/work_log/${entryid}/pause`, { token: worker.token })).statusCode).toBe(422);
    expect(await delivered()).toEqual([]);
  });

  it('a disabled subscription gets nothing', async () => {
    const [s] = (await t.get('/webhooks/subscriptions', { token: admin.token })).json();
    await t.patch(`/webhooks/subscriptions/${s.id}`, { token: admin.token, body: { enabled: false } });
    const g = await makePublishedGuide(t, author);
    await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } });
    expect(await delivered()).toEqual([]);
    expect(await t.db.selectFrom('webhook_deliveries').select('deliveryid').where('status', '=', 'pending').execute()).toEqual([]);
  });
});
