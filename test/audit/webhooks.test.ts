// The audit log of webhook subscriptions: created, edited, the signing key changed (never
// its value, nor the URL's), deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, type TestUser } from '../helpers/factories.js';
import { auditEntries } from './helpers.js';

let t: TestApp;
let admin: TestUser;
beforeAll(async () => {
  t = await buildTestApp({ config: { outgoingAllow: ['127.0.0.1'] } });
  admin = await makeAdmin(t);
});
afterAll(() => t.close());

describe('audit log of webhook subscriptions', () => {
  it('records each change and never the secret or the URL', async () => {
    const created = await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: 'Receiver', url: 'http://127.0.0.1:9/hook?token=receiver-token', eventKeys: ['Guides.Published'], secretKey: 'first-secret-key' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const patched = await t.patch(`/webhooks/subscriptions/${id}`, { token: admin.token, body: { title: 'Renamed', secretKey: 'second-secret-key' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await t.del(`/webhooks/subscriptions/${id}`, { token: admin.token })).statusCode).toBe(204);

    const entries = await auditEntries(t, { resource_type: 'webhook', resource_id: id });
    expect(entries.map((e) => e.action)).toEqual(['webhook.created', 'webhook.secret_changed', 'webhook.edited', 'webhook.deleted']);
    for (const e of entries) expect(e.userid).toBe(admin.userid);
    expect(JSON.parse(entries[0].changes!).url).toEqual({});
    expect(JSON.parse(entries[2].changes!)).toEqual({ title: { old: 'Receiver', new: 'Renamed' } });
    const text = JSON.stringify(entries);
    for (const secret of ['first-secret-key', 'second-secret-key', 'receiver-token']) expect(text).not.toContain(secret);
  });
});
