// What the API document promises integrators (issue 65): a valid OpenAPI 3.1 document whose
// every operation has a stable operationId from src/http/openapi.operations.ts, declares its
// security, leaves out no description, and marks optional what the server fills in.
// (`npm run -s openapi:check` adds `redocly lint` and the typed client's types.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { OPERATION_IDS } from '../../../src/http/openapi.operations.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.get('/openapi.json')).json();
});
afterAll(() => t.close());

/** Every operation: its "METHOD /path" key and the operation. */
const operations = () => Object.entries<any>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${path}`, op: item[m] })));

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
/** A first guess at a name for a route that has none; the line's author renames it for what it does. */
function suggestedId(key: string): string {
  const [method, path] = key.split(' ');
  const words = path.split('/').filter((s) => s && !s.startsWith('{')).flatMap((s) => s.split(/[^A-Za-z0-9]+/)).filter(Boolean).map(pascal);
  const verb = { GET: path.endsWith('}') ? 'get' : 'list', POST: 'create', PUT: 'put', PATCH: 'update', DELETE: 'delete' }[method] ?? method.toLowerCase();
  return verb + words.join('');
}

describe('the API document for integrators', () => {
  it('is valid OpenAPI 3.1 (swagger-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('gives every operation its operationId from src/http/openapi.operations.ts, unique, and the list names no route that is gone', () => {
    const keys = operations().map((o) => o.key);
    const missing = keys.filter((k) => !Object.hasOwn(OPERATION_IDS, k));
    expect(missing, `Routes without an operationId: add to OPERATION_IDS in src/http/openapi.operations.ts these lines (the names are guesses: name each for what it does, like getGuide, listGuides, signApprovalRequest):\n${missing.map((k) => `  '${k}': '${suggestedId(k)}',`).join('\n')}\n`).toEqual([]);
    const gone = Object.keys(OPERATION_IDS).filter((k) => !keys.includes(k));
    expect(gone, `OPERATION_IDS in src/http/openapi.operations.ts names routes the document does not have: remove (or correct) these lines:\n${gone.map((k) => `  '${k}': '${OPERATION_IDS[k]}',`).join('\n')}\n`).toEqual([]);
    for (const { key, op } of operations()) expect(op.operationId, key).toBe(OPERATION_IDS[key]);
    const ids = Object.values(OPERATION_IDS);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'operationIds used twice').toEqual([]);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(doc.paths['/guides/{guideid}'].get.operationId).toBe('getGuide');
    expect(doc.paths['/guides'].get.operationId).toBe('listGuides');
  });

  it('declares security on every operation: a token required, or optional on public ones', () => {
    for (const { key, op } of operations()) {
      expect(op.security, key).toEqual(op['x-access'] === 'none' ? [{}, { apiToken: [] }] : [{ apiToken: [] }]);
    }
  });

  it('describes every response, and marks optional every parameter with a default', () => {
    const deref = (x: any, kind: string) => (x?.$ref ? doc.components[kind][x.$ref.split('/').pop()] : x);
    const vague: string[] = [];
    const demanded: string[] = [];
    for (const { key, op } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const description = deref(r, 'responses').description;
        if (!description || description === 'Default Response') vague.push(`${key} ${status}`);
      }
      for (const p of (op.parameters ?? []).map((x: any) => deref(x, 'parameters'))) {
        if (p.required && p.schema?.default !== undefined) demanded.push(`${key} ${p.name}`);
      }
    }
    expect(vague).toEqual([]);
    expect(demanded).toEqual([]);
    const offset = deref(doc.paths['/guides'].get.parameters.find((p: any) => deref(p, 'parameters').name === 'offset'), 'parameters');
    expect(offset).toMatchObject({ required: false, schema: { default: 0 } });
  });

  it('writes paths that differ only by a parameter name once, and keeps revisionid optional where clients leave it out', () => {
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(shapes.filter((s, i) => shapes.indexOf(s) !== i)).toEqual([]);
    const documents = doc.paths['/periodic_review/documents/{id}'];
    expect(documents.get.parameters.find((p: any) => p.name === 'id').description).toMatch(/user/);
    expect(documents.delete.parameters.find((p: any) => p.name === 'id').description).toMatch(/review document/);
    const step = doc.paths['/guides/{guideid}/steps'].post;
    expect(step.parameters.find((p: any) => p.name === 'revisionid')).toMatchObject({ in: 'query', required: false });
  });

  it('carries the project\'s name and license, and so does the reference page\'s top bar', async () => {
    expect(doc.info).toMatchObject({ title: 'Content Platform REST API', license: { name: 'MIT' } });
    const init = await t.app.inject({ url: '/api/2.0/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body)?.[1];
    expect(Buffer.from(logo ?? '', 'base64').toString()).toContain('Content Platform REST API 2.0');
    expect(Buffer.from(logo ?? '', 'base64').toString().toLowerCase()).not.toContain('fastify');
  });
});
