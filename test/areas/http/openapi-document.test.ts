import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RECORDS } from '../../../src/http/openapi.records.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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
    // Each record written once keeps the document small (it was 1.08 MB compact, every record
    // inline, about 9 KB an operation; 283,849 bytes for 129 operations before the examples
    // came, which error answers and parameters written once in components more than pay
    // for). The bound grows with the API: under 2.3 KB an operation on average.
    const operationCount = Object.values<any>(doc.paths).reduce((n, item) => n + METHODS.filter((m) => item[m]).length, 0);
    expect(JSON.stringify(doc).length).toBeLessThan(2_300 * operationCount);
    expect(doc.paths['/guides/{guideid}'].get.responses['404']).toEqual({ $ref: '#/components/responses/Error' });
    expect(doc.components.responses.Error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
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
    expect(doc.info.description).toMatch(/Served here: .*Guides.*Wikis.*Comments.*Translation glossary.*Work log.*Webhooks \(extension\).*Approvals.*Periodic review[^.]*\./);
    const page = await t.app.inject({ url: '/api/2.0/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Content Platform REST API 2.0</title>');
  });

  it('gives every operation an example response (and request, where a body is read) in components.examples, each valid against its schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // The examples' schemas refer to the named records: validate within the document. Each
    // distinct schema is compiled once (most are a record's $ref): compiling the records
    // anew for every example took most of a loaded machine's 30 s.
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    const validate = (schema: unknown, value: unknown) => {
      const key = JSON.stringify(schema);
      let check = compiled.get(key);
      if (!check) compiled.set(key, (check = ajv.compile({ ...(schema as object), components: { schemas: doc.components.schemas } })));
      return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };
    const exampleOf = (media: any, where: string) => {
      const refs = Object.values<any>(media.examples ?? {});
      expect(refs.length, where).toBe(1);
      const ref: string = refs[0].$ref;
      expect(ref, where).toMatch(/^#\/components\/examples\//);
      const example = doc.components.examples[ref.split('/').pop()!];
      expect(example, where).toBeDefined();
      return example.value;
    };
    let responses = 0;
    let requests = 0;
    const failures: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const m of METHODS) {
        const op = item[m];
        if (!op) continue;
        for (const [status, response] of Object.entries<any>(op.responses)) {
          const media = response.content?.['application/json'];
          if (!status.startsWith('2') || !media) continue;
          responses++;
          const errors = validate(media.schema, exampleOf(media, `${m} ${path} ${status}`));
          if (errors.length) failures.push(`${m} ${path} ${status}: ${errors.slice(0, 3).join('; ')}`);
        }
        const body = op.requestBody?.content?.['application/json'];
        if (body) {
          requests++;
          const errors = validate(body.schema, exampleOf(body, `${m} ${path} body`));
          if (errors.length) failures.push(`${m} ${path} body: ${errors.slice(0, 3).join('; ')}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(responses).toBeGreaterThan(100);
    expect(requests).toBeGreaterThan(20);
    // Records come from the demo site, and a guide is written once, in components.examples.
    expect(doc.components.examples.Guide.value).toMatchObject({ guideid: expect.any(Number), steps: expect.any(Array) });
    expect(doc.paths['/guides/{guideid}'].get.responses['200'].content['application/json'].examples.demo).toEqual({ $ref: '#/components/examples/Guide' });
    expect(JSON.stringify(doc.paths)).not.toContain('"introduction_rendered"');
    // A wrong example fails the check: it can tell.
    expect(validate({ $ref: '#/components/schemas/Guide' }, { guideid: 'x' })).not.toEqual([]);
  });
});
