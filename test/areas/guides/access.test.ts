// Every route of the area, tried without a token and by someone not allowed: the routes
// come from the OpenAPI document, so a route added later is covered too.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide } from '../../helpers/factories/guides.js';

let author: TestUser;
let stranger: TestUser;
let routes: Array<{ method: string; path: string; access: string }>;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
  stranger = await makeUser(t);
  const doc = (await t.app.inject({ method: 'GET', url: '/api/2.0/openapi.json' })).json();
  routes = [];
  for (const [path, item] of Object.entries<Record<string, { 'x-access'?: string }>>(doc.paths)) {
    const p = path.replace(/^\/api\/2\.0/, '');
    if (!/^\/(guides|tags)(\/|$)|^\/user\/(guides|completions|favorites|flags)|^\/users\/\{userid\}\/(guides|completions|favorites)/.test(p)) continue;
    for (const [method, op] of Object.entries(item)) {
      if (['get', 'put', 'post', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), path: p, access: op['x-access'] ?? 'missing' });
    }
  }
});

const fill = (path: string, ids: Record<string, number | string>) => path.replace(/\{(\w+)\}/g, (_, name) => String(ids[name] ?? 1));

describe('access', () => {
  it('the area serves every guide route of the specification and declares who may call each', () => {
    expect(routes.length).toBeGreaterThanOrEqual(44);
    for (const r of routes) expect(['none', 'user', 'author', 'moderator', 'admin'], `${r.method} ${r.path}`).toContain(r.access);
  });

  it('401 without a token (or with a bad one) on every route that needs a user', async () => {
    const guarded = routes.filter((r) => r.access !== 'none');
    expect(guarded.length).toBeGreaterThanOrEqual(28);
    for (const r of guarded) {
      const url = fill(r.path, { langid: 'en' }) + '?revisionid=1';
      expect((await t.request(r.method as 'GET', url)).statusCode, `${r.method} ${r.path}`).toBe(401);
      expect((await t.request(r.method as 'GET', url, { token: 'not-a-token' })).statusCode, `${r.method} ${r.path}`).toBe(401);
    }
  });

  it('403 for a user who is not an Author on the routes that need one', async () => {
    const authorOnly = routes.filter((r) => r.access === 'author');
    expect(authorOnly.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /guides']);
    for (const r of authorOnly) expect((await t.request(r.method as 'GET', r.path, { token: stranger.token, body: {} })).statusCode).toBe(403);
  });

  it('403 for a logged-in user on someone else\'s private guide, route by route', async () => {
    let g = await makeGuide(t, author);
    g = await addStep(t, author, g);
    const step = g.steps[0];
    const release = (await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } })).json();
    const team = await makeTeam(t, author);
    const rev = `?revisionid=${g.revisionid}`;
    const cases: Array<[string, string, unknown?]> = [
      ['GET', `/guides/${g.guideid}`],
      ['PATCH', `/guides/${g.guideid}${rev}`, { summary: 'x' }],
      ['DELETE', `/guides/${g.guideid}${rev}`],
      ['POST', `/guides/${g.guideid}/en/restore`],
      ['PUT', `/guides/${g.guideid}/public${rev}`],
      ['DELETE', `/guides/${g.guideid}/public${rev}`],
      ['GET', `/guides/${g.guideid}/tags`],
      ['PUT', `/guides/${g.guideid}/tag${rev}`, { tag: 'x' }],
      ['DELETE', `/guides/${g.guideid}/tag${rev}`, { tag: 'x' }],
      ['GET', `/guides/${g.guideid}/approvalProcesses`],
      ['POST', `/guides/${g.guideid}/steps${rev}`, { lines: [{ text: 'x' }] }],
      ['PATCH', `/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`, { title: 'x' }],
      ['DELETE', `/guides/${g.guideid}/steps/${step.stepid}?revisionid=${step.revisionid}`],
      ['PUT', `/guides/${g.guideid}/steporder${rev}`, { stepids: [step.stepid] }],
      ['PUT', `/guides/${g.guideid}/completed`],
      ['DELETE', `/guides/${g.guideid}/completed`],
      ['PUT', `/user/favorites/guides/${g.guideid}`],
      ['DELETE', `/user/favorites/guides/${g.guideid}`],
      ['GET', `/guides/${g.guideid}/users`],
      ['PUT', `/guides/${g.guideid}/users/${stranger.userid}`],
      ['DELETE', `/guides/${g.guideid}/users/${stranger.userid}`],
      ['GET', `/guides/${g.guideid}/teams`],
      ['PUT', `/guides/${g.guideid}/teams/${team.teamid}`],
      ['DELETE', `/guides/${g.guideid}/teams/${team.teamid}`],
      ['PUT', `/guides/${g.guideid}/flags/DANGER${rev}`],
      ['DELETE', `/guides/${g.guideid}/flags/DANGER${rev}`],
      ['PUT', `/guides/${g.guideid}/flags/GUIDE_STARRED${rev}`],
      ['GET', `/guides/${g.guideid}/releases`],
      ['POST', '/guides/releases', { guideid: g.guideid, type: 'minor' }],
      ['PATCH', `/guides/releases/${release.releaseid}`, { notes: 'x' }],
      ['DELETE', `/guides/releases/${release.releaseid}`],
      ['POST', '/guides/duplicateReleases', { releaseid: release.releaseid, targets: [{ guideid: g.guideid }] }],
    ];
    for (const [method, url, body] of cases) {
      const res = await t.request(method as 'GET', url, { token: stranger.token, body });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    // nothing changed
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).json()).toEqual(g);
  });
});
