// The typed client (clients/typescript) against a real server on a port: the test app on
// this run's database, called over HTTP with the client's own fetch. It logs in, makes a
// guide with a step (without a revisionid, as real clients post it), meets a stale edit
// (409 with the current guide), pages a list, and reads the error shape.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAdmin, type TestUser } from '../helpers/factories.js';
import { makeCategory } from '../helpers/factories/guides.js';
import { BASE_PATH } from '../../src/app.js';
import { ApiError, createClient, isStale, pages, StaleEditError, unwrap, type ContentPlatformClient, type Schema } from '../../clients/typescript/src/index.js';

let t: TestApp;
let admin: TestUser;
let baseUrl: string;
let api: ContentPlatformClient;

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}${BASE_PATH}`;
  admin = await makeAdmin(t);
  api = createClient({ baseUrl });
});
afterAll(() => t?.close());

describe('the typed client', () => {
  it('logs in, sends the token on every call, and logs out', async () => {
    const user = await api.login({ email: admin.email, password: admin.password });
    expect(user.userid).toBe(admin.userid);
    expect(api.token).toBe(user.authToken);
    const self = await unwrap(api.GET('/user'));
    expect(self.userid).toBe(admin.userid);

    const other = createClient({ baseUrl, token: user.authToken });
    await other.logout();
    expect(other.token).toBeNull();
    const refused = await unwrap(api.GET('/user')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(401);
    expect((refused as ApiError).code).toBe('invalid_token');
    await api.login({ email: admin.email, password: admin.password });
  });

  it('makes a guide with a step, and a stale edit answers the current guide', async () => {
    const category = await makeCategory(t);
    const guide = await unwrap(api.POST('/guides', { body: { type: 'repair', category, title: 'Replace the drive belt' } }));
    expect(guide.guideid).toBeGreaterThan(0);
    // revisionid is optional on POST /guides/{guideid}/steps
    const withStep = await unwrap(api.POST('/guides/{guideid}/steps', {
      params: { path: { guideid: guide.guideid } },
      body: { lines: [{ text: 'Remove the back panel.' }] },
    }));
    expect(withStep.steps.map((s) => s.lines[0]?.text_raw)).toEqual(['Remove the back panel.']);

    const edited = await unwrap(api.PATCH('/guides/{guideid}', {
      params: { path: { guideid: guide.guideid }, query: { revisionid: withStep.revisionid } },
      body: { title: 'Replace a drive belt' },
    }));
    // The same edit again at the old revision is stale: the error holds the guide as it is now.
    const stale = await unwrap(api.PATCH('/guides/{guideid}', {
      params: { path: { guideid: guide.guideid }, query: { revisionid: withStep.revisionid } },
      body: { title: 'Replace the belt' },
    })).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(StaleEditError);
    expect(isStale<Schema<'Guide'>>(stale) && stale.current.revisionid).toBe(edited.revisionid);
    expect(isStale<Schema<'Guide'>>(stale) && stale.current.title).toBe('Replace a drive belt');
  });

  it('pages a list by offset and limit, and reads the error shape of a 404 and a 422', async () => {
    const category = await makeCategory(t);
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push((await unwrap(api.POST('/guides', { body: { type: 'repair', category, title: `Paged guide ${i}` } }))).guideid);
    const seen: number[] = [];
    for await (const g of pages(({ offset, limit }) => unwrap(api.GET('/guides', { params: { query: { offset, limit, includePrivate: true } } })), 2)) seen.push(g.guideid);
    expect(seen).toEqual(expect.arrayContaining(made));
    expect(new Set(seen).size).toBe(seen.length);

    const missing = await unwrap(api.GET('/guides/{guideid}', { params: { path: { guideid: 999_999 } } })).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).status).toBe(404);
    expect((missing as ApiError).body).toMatchObject({ error: true, code: expect.any(String), request_id: expect.any(String) });

    const refused = await unwrap(api.POST('/guides', { body: { type: 'repair', category: '' } })).catch((e: unknown) => e);
    expect((refused as ApiError).status).toBe(422);
    expect((refused as ApiError).errors.map((e) => e.field)).toContain('category');
  });
});
