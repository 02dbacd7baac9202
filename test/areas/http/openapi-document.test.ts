import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { RECORDS } from '../../../src/http/openapi.records.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.get('/openapi.json')).json();
});
afterAll(() => t.close());

/** Every object under `node` whose title names a record, with where it is. */
function inlineRecords(node: unknown, at = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => inlineRecords(n, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const here = typeof (node as any).title === 'string' && (node as any).title in RECORDS ? [`${at} (${(node as any).title})`] : [];
  return [...here, ...Object.entries(node).flatMap(([k, v]) => inlineRecords(v, `${at}/${k}`))];
}

describe('the OpenAPI document', () => {
  it('names at least 30 records in components.schemas, and no path repeats one inline', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThanOrEqual(30);
    for (const name of ['Guide', 'GuideLight', 'Step', 'Line', 'Image', 'Video', 'Comment', 'User', 'Team', 'Wiki', 'WikiLight', 'Release', 'WorkLogEntry', 'GlossaryEntry', 'Error']) {
      expect(names, name).toContain(name);
    }
    expect(inlineRecords(doc.paths)).toEqual([]);
    // Records reference the records they hold.
    expect(JSON.stringify(doc.components.schemas.Guide)).toContain('"$ref":"#/components/schemas/Step"');
    expect(doc.paths['/guides/{guideid}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Guide' });
    // Each record written once keeps the document small (it was 1.08 MB compact, every record inline).
    expect(JSON.stringify(doc).length).toBeLessThan(400_000);
  });

  it('documents 400 (invalid JSON) on every operation that reads a JSON body, and answers it', async () => {
    let bodies = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const m of METHODS) {
        if (!item[m]?.requestBody?.content?.['application/json']) continue;
        bodies++;
        expect(item[m].responses['400'], `${m} ${path}`).toBeDefined();
      }
    }
    expect(bodies).toBeGreaterThan(20);
    const res = await t.app.inject({ method: 'POST', url: '/api/2.0/user/token', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_json' });
  });

  it('declares X-App-Id on register and login, and describes the token lifetime', () => {
    for (const op of [doc.paths['/user/token'].post, doc.paths['/users'].post]) {
      expect(op.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'x-app-id', required: false }));
    }
    const withToken = doc.components.schemas.UserWithToken;
    expect(withToken.properties.token_expires.description).toMatch(/TOKEN_TTL/);
    expect(doc.info.description).toMatch(/token lasts TOKEN_TTL seconds, 30 days by default/);
  });

  it('says in its description what is served, and the reference page carries the API name', async () => {
    expect(doc.info.title).toBe('Content Platform REST API');
    expect(doc.info.description).toMatch(/Served here: .*Guides.*Wikis.*Comments.*Translation glossary.*Work log.*Periodic review\./);
    const page = await t.app.inject({ url: '/api/2.0/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Content Platform REST API 2.0</title>');
  });
});
