import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { toXml } from '../../../src/http/output.js';

type Node = Record<string, any>;
/** Reads XML back by the documented mapping (docs/clients.md, output formats); scalars come back as text. */
function fromXml(xml: string): unknown {
  const doc = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, trimValues: false }).parse(xml) as Node[];
  const nameOf = (n: Node) => Object.keys(n).find((k) => k !== ':@')!;
  const decode = (n: Node): unknown => {
    const name = nameOf(n);
    const attrs = n[':@'] ?? {};
    const kids: Node[] = n[name];
    if (attrs.nil === 'true') return null;
    if (attrs.type === 'array') return kids.map(decode);
    if (attrs.type === 'object') return {};
    const elements = kids.filter((k) => nameOf(k) !== '#text');
    if (elements.length === 0) return kids.map((k) => k['#text']).join('');
    const out: Record<string, unknown> = Object.create(null);
    for (const k of elements) out[k[':@']?.key ?? nameOf(k)] = decode(k);
    return { ...out };
  };
  return decode(doc.find((n) => nameOf(n) === 'response')!);
}

let admin: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
});

describe('response formats', () => {
  it('JSON responses carry Content-Type application/json exactly, and a request id', async () => {
    const res = await t.get('/users');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('?pretty indents the JSON', async () => {
    const res = await t.get('/users?pretty');
    expect(res.body).toContain('\n  {');
    expect(JSON.parse(res.body)).toEqual(JSON.parse((await t.get('/users')).body));
  });

  it('?format=xml and Accept: application/xml answer XML on GET', async () => {
    const a = await t.get(`/users/${admin.userid}?format=xml`);
    expect(a.statusCode).toBe(200);
    expect(a.headers['content-type']).toBe('application/xml');
    expect(a.body).toMatch(/^<\?xml/);
    expect(a.body).toContain(`<userid>${admin.userid}</userid>`);
    const b = await t.get('/users', { headers: { accept: 'application/xml' } });
    expect(b.headers['content-type']).toBe('application/xml');
    expect(b.body).toContain('<item>');
  });

  it('XML keeps every name and tells null, "", [] and {} apart', () => {
    const value = {
      'Barcode Scanner': 'yes', '140x105': 'https://x/a.140x105', __proto__x: 1, 'a<b"&': 'q', xmlns: 'reserved', item: 'a key named item',
      nothing: null, empty: '', none: [], blank: {}, list: [null, '', [], {}, ['x'], { k: 'v' }], text: 'a & b < c > d "e"', n: 3.5, flag: true,
    };
    const proto = JSON.parse('{"__proto__": {"constructor": null, "toString": "", "prototype": []}}');
    for (const v of [value, proto, [], null, '', 'x']) {
      const xml = toXml(v);
      expect(XMLValidator.validate(xml)).toBe(true);
      const scalars = JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'number' || typeof x === 'boolean' ? String(x) : x)));
      expect(fromXml(xml)).toEqual(scalars);
    }
    expect(toXml(value)).toContain('<item key="Barcode Scanner">yes</item>');
    expect(toXml(value)).toContain('<nothing nil="true"/><empty></empty><none type="array"/><blank type="object"/>');
    expect(Object.keys(fromXml(toXml(proto)) as object)).toEqual(['__proto__']);
  });

  it('an image record in XML keeps its size names', async () => {
    const { makeImage } = await import('../../helpers/factories/media.js');
    const img = await makeImage(t, admin);
    const xml = await t.get(`/media/images/${img.id}?format=xml`, { token: admin.token });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<item key="140x105">');
    expect(fromXml(xml.body)).toEqual(JSON.parse(JSON.stringify((await t.get(`/media/images/${img.id}`, { token: admin.token })).json(), (_k, x) => (typeof x === 'number' || typeof x === 'boolean' ? String(x) : x))));
  });

  it('errors have one shape, with no stack trace', async () => {
    const res = await t.get('/users/999999');
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body).toEqual({ error: true, message: 'User not found.', msg: 'User not found.', code: 'not_found', request_id: res.headers['x-request-id'] });
  });
});

describe('status codes', () => {
  it('404 for an unknown route', async () => {
    const res = await t.get('/no/such/route');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it('405 with Allow for a known path with another method', async () => {
    const res = await t.request('PUT', '/users');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.headers.allow).toContain('POST');
    expect(res.json().code).toBe('method_not_allowed');
  });

  it('400 for invalid JSON', async () => {
    const res = await t.post('/user/token', { payload: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_json');
  });

  it('422 names the field for out-of-range limit, negative offset and unknown enum values', async () => {
    for (const [query, field, code] of [
      ['limit=0', 'limit', 'out_of_range'],
      ['limit=201', 'limit', 'out_of_range'],
      ['offset=-1', 'offset', 'out_of_range'],
      ['order=SIDEWAYS', 'order', 'invalid_value'],
      ['limit=abc', 'limit', 'invalid_value'],
    ]) {
      const res = await t.get(`/users?${query}`);
      expect(res.statusCode, query).toBe(422);
      const body = res.json();
      expect(body.errors[0]).toMatchObject({ field, code });
    }
  });

  it('422 missing_field and wrong types in bodies, with nested paths', async () => {
    const res = await t.post('/users/unique_usernames', { body: {} });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'unique_usernames', code: 'missing_field' });
    const wrong = await t.post('/users/unique_usernames', { body: { unique_usernames: ['ok', 5] } });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0]).toMatchObject({ field: 'unique_usernames[1]', code: 'invalid_value', index: 1 });
  });

  it('?limit, ?offset and ?page of 1e309 (and -1e309, Infinity) are a 422 naming the parameter, on every route that takes them', async () => {
    const doc = (await t.get('/openapi.json')).json();
    const cases: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (path.includes('{') || !item.get) continue;
      // Parameters several operations share are written once in components.parameters.
      const params = (item.get.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p));
      for (const p of params) if (p.in === 'query' && ['limit', 'offset', 'page'].includes(p.name)) cases.push(`${path}?${p.name}=`);
    }
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) {
      const name = c.slice(c.indexOf('?') + 1, -1);
      for (const v of ['1e309', '-1e309', 'Infinity']) {
        const res = await t.get(c + v, { token: admin.token });
        expect(res.statusCode, c + v).toBe(422);
        expect(res.json().errors[0].field, c + v).toBe(name);
      }
    }
  });

  it('ids sent as strings of digits are read as integers, in nested objects and arrays; any other string stays a 422', async () => {
    const { makeImage } = await import('../../helpers/factories/media.js');
    const img = await makeImage(t, admin);
    const edit = (body: unknown) => t.post('/user/media/images/edits', { token: admin.token, body });
    const ok = await edit({ imageid: String(img.id), crop: { x: '0', y: '0', width: '20', height: '10' } });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().image).toMatchObject({ srcid: img.id, width: 20, height: 10 });
    for (const bad of ['12a', '1.5', '-3', '', ' 7', '0x10', '1e3', '99999999999999999']) {
      const res = await edit({ imageid: bad, crop: { x: 0, y: 0, width: 1, height: 1 } });
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors[0].field, bad).toBe('imageid');
    }
    // The range of the field still applies to a string of digits.
    const far = await edit({ imageid: String(img.id), crop: { x: '0', y: '0', width: '0', height: '1' } });
    expect(far.statusCode).toBe(422);
    expect(far.json().errors[0]).toMatchObject({ field: 'crop.width', code: 'out_of_range' });
    // A string field keeps its digits as text; an array of ids takes strings too.
    const author = await makeUser(t, { privileges: ['Author', 'User'] });
    const { makeGuide, addStep, line } = await import('../../helpers/factories/guides.js');
    let g = await makeGuide(t, author, { title: '12345' });
    expect(g.title).toBe('12345');
    for (const n of [1, 2]) g = await addStep(t, author, g, { title: `S${n}`, lines: [line('x')] });
    const ids = g.steps.map((st: { stepid: number }) => String(st.stepid)).reverse();
    const order = await t.put(`/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`, { token: author.token, body: { stepids: ids } });
    expect(order.statusCode, order.body).toBe(200);
    expect(order.json().steps.map((st: { title: string }) => st.title)).toEqual(['S2', 'S1']);
  });

  it('no body at all names the missing fields', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/2.0/user/token' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'password', code: 'missing_field' });
  });

  it('a JSON body is parsed with text/plain or with no Content-Type', async () => {
    const user = await makeUser(t);
    const plain = await t.post('/user/token', { payload: JSON.stringify({ email: user.email, password: user.password }), headers: { 'content-type': 'text/plain' } });
    expect(plain.statusCode).toBe(201);
    const none = await t.app.inject({ method: 'POST', url: '/api/2.0/user/token', payload: JSON.stringify({ email: user.email, password: user.password }) });
    expect(none.statusCode).toBe(201);
  });
});

describe('CORS', () => {
  it('answers a preflight', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/2.0/user/token', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
  });

  it('marks simple responses', async () => {
    const res = await t.get('/users', { headers: { origin: 'https://app.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  // The rules @fastify/cors applied with this server's options, kept when the hook became
  // our own (src/http/cors.ts); these pass on both.
  it('says Vary: Origin on every answer, and which headers a script may read to an allowed Origin only (a browser reads them on a CORS answer alone)', async () => {
    for (const origin of [undefined, 'https://app.example']) {
      const res = await t.get('/users/999999999', { headers: origin ? { origin } : {} });
      expect(res.statusCode).toBe(404);
      expect(res.headers.vary).toBe('Origin');
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-expose-headers']).toBe(origin && 'X-Request-Id, Retry-After, Allow, Deprecation, Location, ETag');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await t.get('/users')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a router error (a malformed URL) carries the CORS headers too, so a browser client can read it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/2.0/users/%E0%A4%A', headers: { origin: 'https://app.example' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBeTruthy();
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['access-control-expose-headers']).toBe('X-Request-Id, Retry-After, Allow, Deprecation, Location, ETag');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const without = await t.app.inject({ method: 'GET', url: '/api/2.0/users/%E0%A4%A' });
    expect(without.headers['access-control-allow-origin']).toBeUndefined();
    expect(without.headers['access-control-expose-headers']).toBeUndefined();
    expect(without.headers.vary).toBe('Origin');
  });

  it('answers a preflight on any path before authentication, and refuses one without Origin or method', async () => {
    const pre = await t.app.inject({ method: 'OPTIONS', url: '/api/2.0/no/such/path', headers: { origin: 'https://app.example', 'access-control-request-method': 'DELETE' } });
    expect(pre.statusCode).toBe(204);
    expect(pre.body).toBe('');
    expect(pre.headers['content-length']).toBe('0');
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(pre.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, X-App-Id, Accept, X-Requested-With');
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers['x-request-id']).toBeTruthy();
    for (const headers of [{ origin: 'https://app.example' }, { 'access-control-request-method': 'GET' }]) {
      const bad = await t.app.inject({ method: 'OPTIONS', url: '/api/2.0/users', headers });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toBe('Invalid Preflight Request');
    }
  });
});

describe('operations and documentation', () => {
  it('health, readiness and metrics', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
    await t.get('/users');
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('http_request_duration_seconds_bucket');
    expect(metrics.body).toContain('route="/api/2.0/users"');
    expect(metrics.body).toContain('db_query_duration_seconds');
  });

  it('metrics for operators: queries by operation and table, the job queue per lane, the webhook outbox, the caches, image-queue rejections', async () => {
    const now = t.clock.now();
    await t.db.insertInto('jobs').values([
      { type: 'mail.send', payload: '{}', status: 'pending', run_at: now - 120, attempts: 1, max_attempts: 5, locked_until: null, last_error: 'refused', created_date: now - 300, finished_date: null },
      { type: 'unknown-kind', payload: '{}', status: 'failed', run_at: now, attempts: 5, max_attempts: 5, locked_until: null, last_error: 'gone', created_date: now, finished_date: now },
    ]).execute();
    await t.get('/guides');
    const body = (await t.app.inject({ url: '/metrics' })).body;
    expect(body).toMatch(/db_query_duration_seconds_count\{operation="select",table="[a-z_]+"\} \d+/);
    expect(body).toMatch(/db_query_duration_seconds_count\{operation="insert",table="jobs"\} \d+/);
    expect(body).not.toMatch(/operation="(rollba|begin )"/);
    expect(body).toMatch(/^jobs\{lane="mail",state="waiting"\} [1-9]/m);
    expect(body).toMatch(/^jobs\{lane="mail",state="retrying"\} [1-9]/m);
    expect(body).toMatch(/^jobs\{lane="other",state="failed"\} [1-9]/m);
    expect(body).toMatch(/^jobs_oldest_waiting_seconds\{lane="mail"\} \d+/m);
    expect(body).toMatch(/^webhook_deliveries\{state="pending"\} \d+/m);
    expect(body).toContain("# TYPE webhook_delivery_latency_seconds histogram");
    expect(body).toMatch(/^cache_hits\{cache="guide_lists"\} \d+/m);
    expect(body).toMatch(/^cache_misses\{cache="guide_lists"\} [1-9]/m);
    expect(body).toMatch(/^cache_bytes\{cache="guide_lists"\} \d+/m);
    expect(body).toMatch(/^image_queue_rejections \d+/m);
  });

  it('metrics count every response by method, route and status, errors apart', async () => {
    const value = async (metric: string, route: string, status: string) => {
      const body = (await t.app.inject({ url: '/metrics' })).body;
      const line = body.split('\n').find((l) => l.startsWith(`${metric}{`) && l.includes(`route="${route}"`) && l.includes(`status="${status}"`) && l.includes('method="GET"'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const [okBefore, missingBefore, errorsBefore] = [await value('http_request_duration_seconds_count', '/api/2.0/users', '200'), await value('http_request_duration_seconds_count', '/api/2.0/users/:userid', '404'), await value('http_errors_total', '/api/2.0/users/:userid', '404')];
    await t.get('/users');
    await t.get('/users');
    await t.get('/users/999999999');
    expect(await value('http_request_duration_seconds_count', '/api/2.0/users', '200')).toBe(okBefore + 2);
    expect(await value('http_request_duration_seconds_count', '/api/2.0/users/:userid', '404')).toBe(missingBefore + 1);
    expect(await value('http_errors_total', '/api/2.0/users/:userid', '404')).toBe(errorsBefore + 1);
    expect(await value('http_errors_total', '/api/2.0/users', '200')).toBe(0);
  });

  it('serves the OpenAPI document with every API route declaring its access', async () => {
    const res = await t.get('/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/users/{userid}'].get).toBeDefined();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const op of Object.values(item)) expect(op.description ?? '', path).toMatch(/Access: /);
    }
  });

  it('/metrics is served to loopback callers only by default (not by X-Forwarded-For)', async () => {
    expect((await t.app.inject({ url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
    for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }, { authorization: 'Bearer anything' }]) {
      const res = await t.app.inject({ url: '/metrics', remoteAddress: '203.0.113.7', headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: true, code: 'forbidden' });
      expect(res.body).not.toContain('http_request_duration_seconds');
    }
  });

  it('/metrics with METRICS_TOKEN: only with that bearer token, from anywhere', async () => {
    const m = await buildTestApp({ config: { metricsToken: 'prometheus-secret' } });
    try {
      for (const [headers, remoteAddress, status] of [
        [{}, '127.0.0.1', 401], [{ authorization: 'Bearer wrong' }, '127.0.0.1', 401], [{ authorization: 'api prometheus-secret' }, '203.0.113.7', 401],
        [{ authorization: 'Bearer prometheus-secret' }, '203.0.113.7', 200], [{ authorization: 'Bearer prometheus-secret' }, '127.0.0.1', 200],
      ] as const) {
        const res = await m.app.inject({ url: '/metrics', remoteAddress, headers });
        expect(res.statusCode, JSON.stringify(headers)).toBe(status);
        if (status === 200) expect(res.body).toContain('process_resident_memory_bytes');
      }
    } finally {
      await m.close();
    }
  });

  it('GET /api/2.0 answers a small index: name, version, the reference and the OpenAPI document', async () => {
    for (const path of ['', '/']) {
      const res = await t.get(path);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        name: 'Content Platform REST API', version: '2.0',
        links: { reference: 'http://test.local/api/2.0/docs', openapi: 'http://test.local/api/2.0/openapi.json' },
      });
    }
    expect((await t.get('/openapi.json')).json().paths['/'].get.summary).toMatch(/index|reference/);
  });

  it('the reference page\'s static index.html, with or without a query string, leads to the page in one step', async () => {
    for (const url of ['/api/2.0/docs/static/index.html?x', '/api/2.0/docs/static/index.html', '/api/2.0/docs/static/index.html?a=1&b']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location).toBe('/api/2.0/docs/');
      const page = await t.app.inject({ url: res.headers.location as string });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('swagger');
    }
  });

  it('serves the API reference page and its assets locally', async () => {
    const page = await t.app.inject({ url: '/api/2.0/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger');
    expect(page.body).not.toMatch(/https?:\/\/(?!localhost)[a-z0-9.-]+\.(com|net|org|io)\//i);
  });
});
