// No input gives a 5xx: ids beyond what the databases hold, text with NUL characters,
// and random bodies and query strings on the area's routes (422, 404 or 409 instead).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makeCategory, makeItem, makePublishedGuide } from '../../helpers/factories/guides.js';

let author: TestUser;
let g: any;
let category: string;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
  category = await makeCategory(t);
  await makeItem(t, 'Part');
  g = await makePublishedGuide(t, author, 2);
});

describe('robustness', () => {
  it('422 for ids and numbers beyond what the databases hold', async () => {
    const cases: Array<[string, string, unknown?]> = [
      ['GET', '/guides/99999999999999'],
      ['GET', '/guides?offset=100000000000000000000'],
      ['GET', '/guides?guideids=9999999999'],
      ['GET', '/guides?modifiedSince=100000000000000000000'],
      ['GET', `/guides/${g.guideid}?revisionid=99999999999`],
      ['PATCH', `/guides/${g.guideid}?revisionid=99999999999`, { summary: 'x' }],
      ['POST', '/guides', { type: 'repair', category, prerequisites: [99999999999] }],
      ['GET', '/tags?offset=100000000000000000000'],
      ['GET', '/users/99999999999/guides'],
      ['PUT', `/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`, { stepids: [99999999999] }],
    ];
    for (const [method, url, body] of cases) {
      const res = await t.request(method as 'GET', url, { token: author.token, body });
      expect(res.statusCode, `${method} ${url}`).toBe(422);
    }
  });

  it('422 naming the field for text with a NUL character', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/guides', { type: 'repair', category, title: 'a\u0000b' }, 'title'],
      ['POST', '/guides', { type: 'repair', category: `${category}\u0000` }, 'category'],
      ['PUT', `/guides/${g.guideid}/tag?revisionid=${g.revisionid}`, { tag: 'a\u0000' }, 'tag'],
      ['POST', `/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { lines: [{ text: 'ok' }, { text: 'a\u0000' }] }, 'lines[1].text'],
      ['GET', `/guides/${g.guideid}/flags/A%00B?revisionid=${g.revisionid}`, undefined, 'flagid'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await t.request((method === 'GET' ? 'PUT' : method) as 'PUT', url, { token: author.token, body });
      expect(res.statusCode, `${method} ${url}`).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });

  it('random bodies and query strings never give a 5xx (property)', async () => {
    const routes: Array<[string, string]> = [
      ['POST', '/guides'], ['PATCH', `/guides/${g.guideid}`], ['POST', `/guides/${g.guideid}/steps`], ['PATCH', `/guides/${g.guideid}/steps/${g.steps[0].stepid}`],
      ['PUT', `/guides/${g.guideid}/steporder`], ['POST', '/guides/steps/lines/preview'], ['PUT', `/guides/${g.guideid}/tag`], ['DELETE', `/guides/${g.guideid}/tag`],
      ['POST', '/guides/releases'], ['POST', '/guides/duplicateReleases'], ['GET', '/guides'], ['GET', `/guides/${g.guideid}`], ['GET', '/guides/releases'],
      ['GET', '/tags'], ['GET', '/user/guides'], ['PUT', `/guides/${g.guideid}/public`], ['PUT', `/guides/${g.guideid}/flags/DANGER`],
    ];
    const fields = ['type', 'category', 'title', 'lines', 'text', 'bullet', 'level', 'media', 'data', 'stepids', 'tag', 'guideid', 'revisionid', 'prerequisites', 'parts',
      'tools', 'documents', 'imageid', 'orderby', 'notes', 'version', 'targets', 'releaseid', 'langid', 'difficulty', 'time_required_min', 'time_required_max', 'public', 'introduction'];
    const value = fc.oneof(
      fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(category), fc.constant('Part'), fc.constant('repair'), fc.constant(g.guideid),
      fc.constant(2147483648), fc.array(fc.oneof(fc.integer(), fc.string(), fc.record({ text: fc.string(), level: fc.integer(), title: fc.string() }))),
      fc.record({ type: fc.constantFrom('image', 'object', 'video'), data: fc.oneof(fc.integer(), fc.array(fc.integer())) }),
    );
    const query = fc.dictionary(fc.constantFrom('revisionid', 'langid', 'offset', 'limit', 'order', 'guideids', 'filter', 'modifiedSince', 'includePrivate', 'guideid', 'status'),
      fc.oneof(fc.string(), fc.integer().map(String), fc.constant(String(g.revisionid))), { maxKeys: 4 });
    await fc.assert(fc.asyncProperty(fc.constantFrom(...routes), fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 6 }), query, async ([method, path], body, q) => {
      const qs = new URLSearchParams(q as Record<string, string>).toString();
      const res = await t.request(method as 'GET', path + (qs ? `?${qs}` : ''), { token: author.token, body: method === 'GET' ? undefined : body });
      expect(res.statusCode, `${method} ${path}?${qs} ${JSON.stringify(body)}: ${res.body}`).toBeLessThan(500);
    }), { numRuns: 400, seed: 11 });
  });
});
