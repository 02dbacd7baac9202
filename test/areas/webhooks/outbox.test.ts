// publishEvent: the event is written in the caller's transaction, for each enabled
// subscription that wants its key, and only if that transaction commits.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { publishEvent, WEBHOOK_DELIVERY_JOB, WEBHOOK_EVENT_KEYS } from '../../../src/areas/webhooks/webhooks.outbox.js';

const t = appForFile();

async function subscription(keys: string[], enabled = true) {
  const now = t.clock.now();
  const { subscriptionid } = await t.db.insertInto('webhook_subscriptions')
    .values({ title: 'S', description: '', url: 'http://127.0.0.1:9/', enabled: enabled ? 1 : 0, secret_sealed: 'x', invocation_count: 0, consecutive_failures: 0, disabled_reason: null, created_date: now, modified_date: now })
    .returning('subscriptionid').executeTakeFirstOrThrow();
  if (keys.length) await t.db.insertInto('webhook_subscription_events').values(keys.map((event_key) => ({ event_key, subscriptionid }))).execute();
  return subscriptionid;
}

const deliveriesOf = (subscriptionid: number) => t.db.selectFrom('webhook_deliveries').selectAll().where('subscriptionid', '=', subscriptionid).execute();
const deliveryJobs = async () => (await t.db.selectFrom('jobs').select(['payload', 'status']).where('type', '=', WEBHOOK_DELIVERY_JOB).execute()).map((j) => JSON.parse(j.payload));

describe('publishEvent', () => {
  it('the catalog has the seven event keys', () => {
    expect([...WEBHOOK_EVENT_KEYS].sort()).toEqual(['Approvals.RequestApproved', 'Approvals.RequestRejected', 'Approvals.RequestSubmitted', 'Approvals.StageCompleted', 'Courses.StageCompleted', 'Guides.Published', 'WorkLog.StatusChanged']);
  });

  it('writes one delivery and one job per enabled subscription wanting the key, with the change', async () => {
    const wants = await subscription(['Guides.Published', 'WorkLog.StatusChanged']);
    const other = await subscription(['WorkLog.StatusChanged']);
    const off = await subscription(['Guides.Published'], false);
    await t.db.transaction().execute(async (trx) => {
      await publishEvent(trx, t.clock, { key: 'Guides.Published', title: 'Guide Published', description: 'd', data: { releaseid: 7 } });
    });
    const [d] = await deliveriesOf(wants);
    expect(d).toMatchObject({ event_key: 'Guides.Published', status: 'pending', created_date: t.clock.now() });
    expect(JSON.parse(d.event)).toEqual({ title: 'Guide Published', description: 'd', data: { releaseid: 7 } });
    expect(await deliveriesOf(other)).toHaveLength(0);
    expect(await deliveriesOf(off)).toHaveLength(0);
    expect((await deliveryJobs()).filter((j) => j.deliveryid === d.deliveryid)).toEqual([{ deliveryid: d.deliveryid, trigger: 'event' }]);
  });

  it('writes nothing when the transaction rolls back', async () => {
    const sub = await subscription(['Approvals.RequestSubmitted']);
    const jobsBefore = (await deliveryJobs()).length;
    await expect(t.db.transaction().execute(async (trx) => {
      await publishEvent(trx, t.clock, { key: 'Approvals.RequestSubmitted', title: 'Approval Request Submitted', description: '', data: {} });
      expect(await trx.selectFrom('webhook_deliveries').select('deliveryid').where('subscriptionid', '=', sub).execute()).toHaveLength(1);
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    expect(await deliveriesOf(sub)).toHaveLength(0);
    expect((await deliveryJobs()).length).toBe(jobsBefore);
  });

  it('refuses a key outside the catalog', async () => {
    await expect(publishEvent(t.db, t.clock, { key: 'Nope.Nothing' as never, title: '', description: '', data: null })).rejects.toThrow(/unknown webhook event key/);
  });
});
