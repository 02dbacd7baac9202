// A method a path lacks answers 405 with the path's `Allow`, also where a parameter of another
// path's route would swallow the request (issue 62, item 5).
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, type TestUser } from '../../helpers/factories.js';
import { samplePath } from '../../../src/http/routing.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
let admin: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
});

describe('405 for a method the path lacks', () => {
  it('the approval paths of the issue answer 405 with Allow, not the parameterised route\'s 422', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/approvals/process/1', 'GET, PATCH, HEAD, OPTIONS'],
      ['PUT', '/approvals/request/1', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/approvals/processes', 'GET, HEAD, OPTIONS'],
    ] as const) {
      const res = await t.request(method, path, { token: admin.token, body: {} });
      expect({ path, status: res.statusCode, code: res.json().code }).toEqual({ path, status: 405, code: 'method_not_allowed' });
      expect(res.headers.allow).toBe(allow);
    }
  });

  it('every path of the routing table answers 405 with its own methods for each method it lacks', async () => {
    const byShape = new Map<string, { url: string; methods: Set<string> }>();
    for (const r of t.app.routeTable) {
      const shape = r.url.replace(/:[^/]+/g, ':');
      const entry = byShape.get(shape) ?? { url: r.url, methods: new Set<string>() };
      entry.methods.add(r.method);
      byShape.set(shape, entry);
    }
    const wrong: string[] = [];
    for (const { url, methods } of byShape.values()) {
      const allow = METHODS.filter((m) => methods.has(m));
      const expected = [...allow, ...(allow.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
      for (const method of METHODS) {
        if (methods.has(method)) continue;
        const res = await t.app.inject({ method, url: samplePath(url) });
        if (res.statusCode !== 405 || res.headers.allow !== expected) wrong.push(`${method} ${url}: ${res.statusCode} ${res.headers.allow ?? ''}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a value that is no id still reaches the route whose parameter it fills', async () => {
    // `/wikis/{wikiid}/releases` has no GET, but `GET /wikis/CATEGORY/releases` is the wiki "releases".
    const res = await t.get('/wikis/CATEGORY/releases');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).not.toBe('method_not_allowed');
    // And a path no route knows stays 404.
    expect((await t.request('PUT', '/no/such/path')).statusCode).toBe(404);
  });
});
