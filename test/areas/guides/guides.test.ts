import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makeCategory, makeGuide, makeImage, makeItem, makePublishedGuide } from '../../helpers/factories/guides.js';
import { minimalPdf, upload } from '../../helpers/factories/media.js';
import { FULL_GUIDE_FIELDS, keys, LIGHT_GUIDE_FIELDS, PREREQUISITE_FIELDS, sorted } from './records.js';

let admin: TestUser;
let author: TestUser;
let other: TestUser;
let user: TestUser;
let category: string;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  other = await makeAuthor(t);
  user = await makeUser(t);
  category = await makeCategory(t, 'iPhone 6');
});

const revisionsOf = async (guideid: number) =>
  (await t.db.selectFrom('guide_revisions').select(['revisionid', 'action']).where('guideid', '=', guideid).orderBy('revisionid').execute());

/** A PDF in the author's media library. */
async function makeDocument(t: TestApp, user: TestUser) {
  const res = await upload(t, user, minimalPdf(), 'manual.pdf');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('POST /guides', () => {
  it('creates a guide: 201 with exactly the full record fields, stored with its first revision', async () => {
    const part = await makeItem(t, 'iPhone 6 Battery');
    const tool = await makeItem(t, 'Spudger');
    const prereq = await makePublishedGuide(t, author);
    const [manual, sheet] = [(await makeDocument(t, author)), (await makeDocument(t, author))];
    const res = await t.post('/guides', {
      token: author.token,
      body: {
        type: 'replacement', category, subject: 'Battery', introduction: "Replace a '''worn''' battery.", conclusion: '[guide|' + prereq.guideid + ']',
        summary: 'Swap the battery.', difficulty: 'moderate', time_required_min: 900, time_required_max: 1800, prerequisites: [prereq.guideid],
        parts: [{ title: part, quantity: 1, notes: 'Genuine' }], tools: [tool], documents: [manual.id, sheet.id], tags: ['battery', ' power  supply '],
      },
    });
    expect(res.statusCode).toBe(201);
    const g = res.json();
    expect(Object.keys(g)).toEqual(FULL_GUIDE_FIELDS);
    expect(g).toMatchObject({
      title: 'iPhone 6 Battery Replacement', type: 'replacement', category, subject: 'Battery', locale: 'en', public: false, dataType: 'guide',
      introduction_raw: "Replace a '''worn''' battery.", introduction_rendered: '<p>Replace a <strong>worn</strong> battery.</p>',
      difficulty: 'Moderate', time_required: '15 minutes - 30 minutes', time_required_min: 900, time_required_max: 1800,
      documents: [{ documentid: manual.id, url: manual.document.url }, { documentid: sheet.id, url: sheet.document.url }],
      parts: [{ type: 'part', title: part, quantity: 1, notes: 'Genuine', url: `http://test.local/Item/${encodeURIComponent(part)}` }],
      tools: [{ type: 'tool', title: tool, quantity: 1, notes: '' }],
      tags: ['battery', 'power supply'], steps: [], flags: [], userid: author.userid, username: author.username,
      prereq_modified_date: prereq.modified_date, featured_document_embed_url: manual.document.url,
    });
    expect(g.conclusion_rendered).toBe(`<p><a href="${prereq.url}" class="guide-link" data-guideid="${prereq.guideid}">${prereq.title}</a></p>`);
    expect(g.url).toBe(`http://test.local/Guide/iPhone-6-Battery-Replacement/${g.guideid}`);
    expect(g.prerequisites).toHaveLength(1);
    expect(Object.keys(g.prerequisites[0])).toEqual(PREREQUISITE_FIELDS);
    expect(g.prerequisites[0]).toMatchObject({ guideid: prereq.guideid, title: prereq.title, public: true, dataType: 'guide' });
    const row = await t.db.selectFrom('guides').selectAll().where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ langid: 'en', userid: author.userid, revisionid: g.revisionid, public: 0, deleted: 0 });
    expect(await revisionsOf(g.guideid)).toEqual([{ revisionid: g.revisionid, action: 'create' }]);
  });

  it('accepts every configured guide type, including how-to, troubleshooting and project', async () => {
    for (const type of t.config.guideTypes) {
      const res = await t.post('/guides', { token: author.token, body: { type, category, title: `A ${type}` } });
      expect(res.statusCode, type).toBe(201);
      expect(res.json().type).toBe(type);
    }
    expect(t.config.guideTypes).toEqual(expect.arrayContaining(['replacement', 'installation', 'repair', 'disassembly', 'teardown', 'technique', 'maintenance', 'how-to', 'troubleshooting', 'project']));
  });

  it('401 without a token, 403 for a user who is not an Author', async () => {
    expect((await t.post('/guides', { body: { type: 'repair', category } })).statusCode).toBe(401);
    expect((await t.post('/guides', { token: user.token, body: { type: 'repair', category } })).statusCode).toBe(403);
  });

  it('422 names each bad field', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ type: 'cooking', category }, 'type', 'invalid_value'],
      [{ type: 'repair' }, 'category', 'missing_field'],
      [{ category }, 'type', 'missing_field'],
      [{ type: 'repair', category: 'No Such Category' }, 'category', 'invalid_value'],
      [{ type: 'repair', category, difficulty: 'impossible' }, 'difficulty', 'invalid_value'],
      [{ type: 'repair', category, prerequisites: [999999] }, 'prerequisites[0]', 'invalid_value'],
      [{ type: 'repair', category, parts: ['No such part'] }, 'parts[0]', 'invalid_value'],
      [{ type: 'repair', category, documents: [999999] }, 'documents[0]', 'invalid_value'],
      [{ type: 'repair', category, tools: [{ title: 'x', quantity: 0 }] }, 'tools[0]', 'invalid_value'],
      [{ type: 'repair', category, time_required_min: 100, time_required_max: 50 }, 'time_required_max', 'out_of_range'],
      [{ type: 'repair', category, imageid: 999999 }, 'imageid', 'invalid_value'],
      [{ type: 'repair', category, title: '   ' }, 'title', 'invalid_value'],
      [{ type: 'repair', category, introduction_raw: 'x' }, 'introduction_raw', 'invalid_value'],
      [{ type: 'repair', category, public: 'yes' }, 'public', 'invalid_value'],
      [{ type: 'repair', category, tags: [''] }, 'tags[0]', 'out_of_range'],
      [{ type: 'repair', category, langid: 'xx' }, 'langid', 'invalid_value'],
    ];
    for (const [body, field, code] of cases) {
      const res = await t.post('/guides', { token: author.token, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors.map((e: { field: string }) => e.field), JSON.stringify(body)).toContain(field);
      expect(res.json().errors.find((e: { field: string }) => e.field === field).code, JSON.stringify(body)).toBe(code);
    }
  });

  it('creates a translation sharing the guideid; a second one in that language is 422', async () => {
    const g = await makeGuide(t, author, { title: 'Screen' });
    const res = await t.post('/guides', { token: author.token, body: { guideid: g.guideid, langid: 'de', type: 'replacement', category, title: 'Bildschirm' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ guideid: g.guideid, locale: 'de', title: 'Bildschirm' });
    expect(res.json().url).toBe(`http://test.local/Guide/Bildschirm/${g.guideid}?lang=de`);
    const again = await t.post('/guides', { token: author.token, body: { guideid: g.guideid, langid: 'de', type: 'replacement', category } });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0]).toMatchObject({ field: 'langid', code: 'duplicate' });
    const none = await t.post('/guides', { token: author.token, body: { guideid: 999999, langid: 'de', type: 'replacement', category } });
    expect(none.json().errors[0]).toMatchObject({ field: 'guideid' });
    expect((await t.get(`/guides/${g.guideid}`, { token: author.token })).json().locale).toBe('en');
    expect((await t.get(`/guides/${g.guideid}?langid=de`, { token: author.token })).json().title).toBe('Bildschirm');
  });
});

describe('GET /guides/{guideid}', () => {
  it('reads a public guide without a token, as JSON, ?pretty and ?format=xml', async () => {
    const g = await makePublishedGuide(t, author, 2, { introduction: 'Hi & bye' });
    const res = await t.get(`/guides/${g.guideid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual(g);
    const pretty = await t.get(`/guides/${g.guideid}?pretty`);
    expect(pretty.body).toContain('\n  "conclusion_raw"');
    expect(JSON.parse(pretty.body)).toEqual(g);
    const xml = await t.get(`/guides/${g.guideid}?format=xml`);
    expect(xml.headers['content-type']).toBe('application/xml');
    expect(xml.body).toContain(`<guideid>${g.guideid}</guideid>`);
    expect(xml.body).toContain('<steps type="array"><item>');
    expect(xml.body).toContain('Hi &amp;amp; bye');
  });

  it('a private guide: 401 anonymous, 403 for others, 200 for its owner, Authors, collaborators, contributors and Admins', async () => {
    const g = await makeGuide(t, author);
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(401);
    expect((await t.get(`/guides/${g.guideid}`, { token: user.token })).statusCode).toBe(403);
    for (const who of [author, other, admin]) expect((await t.get(`/guides/${g.guideid}`, { token: who.token })).statusCode).toBe(200);
    const collaborator = await makeUser(t);
    expect((await t.put(`/guides/${g.guideid}/users/${collaborator.userid}`, { token: author.token })).statusCode).toBe(200);
    expect((await t.get(`/guides/${g.guideid}`, { token: collaborator.token })).statusCode).toBe(200);
  });

  it('404 for an unknown or deleted guide, 422 for a bad id or language', async () => {
    expect((await t.get('/guides/999999')).statusCode).toBe(404);
    expect((await t.get('/guides/abc')).statusCode).toBe(422);
    expect((await t.get('/guides/1?langid=xx')).statusCode).toBe(422);
    const g = await makePublishedGuide(t, author);
    expect((await t.get(`/guides/${g.guideid}?langid=de`)).statusCode).toBe(404);
    await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token });
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(404);
  });

  it('reads any kept revision with ?revisionid=', async () => {
    const g0 = await makePublishedGuide(t, author, 1, { title: 'Old title' });
    const patched = (await t.patch(`/guides/${g0.guideid}?revisionid=${g0.revisionid}`, { token: author.token, body: { title: 'New title' } })).json();
    const g2 = await addStep(t, author, patched, { title: 'Second', lines: [line('more')] });
    const old = await t.get(`/guides/${g0.guideid}?revisionid=${g0.revisionid}`);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ title: 'Old title', revisionid: g0.revisionid });
    expect(old.json().steps.map((s: { title: string }) => s.title)).toEqual(['Step 1']);
    expect(old.json().steps).toEqual(g0.steps);
    expect((await t.get(`/guides/${g0.guideid}?revisionid=${g2.revisionid}`)).json()).toEqual(g2);
    const other = await makePublishedGuide(t, author);
    expect((await t.get(`/guides/${g0.guideid}?revisionid=${other.revisionid}`)).statusCode).toBe(404);
  });
});

describe('GET /guides', () => {
  let ids: number[];
  let privateId: number;
  beforeAll(async () => {
    ids = [];
    for (const type of ['repair', 'teardown', 'repair']) ids.push((await makePublishedGuide(t, author, 0, { type })).guideid);
    privateId = (await makeGuide(t, author)).guideid;
  });

  it('lists public guides as light records ordered by guideid, honouring limit=200&order=DESC', async () => {
    const asc = (await t.get('/guides?limit=200')).json();
    expect(asc.every((g: { public: boolean }) => g.public)).toBe(true);
    expect(asc.map((g: { guideid: number }) => g.guideid)).toEqual([...asc.map((g: { guideid: number }) => g.guideid)].sort((a, b) => a - b));
    expect(asc.some((g: { guideid: number }) => g.guideid === privateId)).toBe(false);
    for (const g of asc) expect(keys(g)).toEqual(sorted(LIGHT_GUIDE_FIELDS));
    const desc = await t.get('/guides?limit=200&order=DESC');
    expect(desc.statusCode).toBe(200);
    expect(desc.json().map((g: { guideid: number }) => g.guideid)).toEqual(asc.map((g: { guideid: number }) => g.guideid).reverse());
    const page = (await t.get('/guides?limit=2&offset=1')).json();
    expect(page.map((g: { guideid: number }) => g.guideid)).toEqual(asc.slice(1, 3).map((g: { guideid: number }) => g.guideid));
    // A page is the same records, in the same order, as that slice of the whole list (the
    // page's keys are found first, then its rows are read: guides.queries.ts lightRowsOfPage).
    const descPage = (await t.get('/guides?limit=2&offset=1&order=DESC')).json();
    expect(descPage).toEqual(desc.json().slice(1, 3));
    expect((await t.get('/guides?limit=3&offset=2')).json()).toEqual(asc.slice(2, 5));
  });

  it('filters by guideids, type and modifiedSince', async () => {
    const byIds = (await t.get(`/guides?guideids=${ids[2]},${ids[0]},${privateId}`)).json();
    expect(byIds.map((g: { guideid: number }) => g.guideid)).toEqual([ids[0], ids[2]]);
    const teardowns = (await t.get(`/guides?filter=teardown&limit=200`)).json();
    expect(teardowns.map((g: { guideid: number }) => g.guideid)).toContain(ids[1]);
    expect(teardowns.every((g: { type: string }) => g.type === 'teardown')).toBe(true);
    t.clock.advance(100);
    const later = await makePublishedGuide(t, author);
    const recent = (await t.get(`/guides?modifiedSince=${t.clock.now()}&limit=200`)).json();
    expect(recent.map((g: { guideid: number }) => g.guideid)).toEqual([later.guideid]);
  });

  it('includePrivate: Admins only', async () => {
    expect((await t.get('/guides?includePrivate=true')).statusCode).toBe(401);
    expect((await t.get('/guides?includePrivate=true', { token: author.token })).statusCode).toBe(403);
    const all = await t.get('/guides?includePrivate=true&limit=200', { token: admin.token });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((g: { guideid: number }) => g.guideid)).toContain(privateId);
  });

  it('422 for bad parameters', async () => {
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'order=UP', 'filter=cooking', 'guideids=1,a', 'modifiedSince=-5', 'includePrivate=maybe']) {
      expect((await t.get(`/guides?${q}`)).statusCode, q).toBe(422);
    }
  });
});

describe('GET /guides/featured', () => {
  it('lists public guides flagged GUIDE_STARRED', async () => {
    const moderator = await makeUser(t, { privileges: ['Moderator'] });
    const starred = await makePublishedGuide(t, author);
    await makePublishedGuide(t, author);
    expect((await t.put(`/guides/${starred.guideid}/flags/GUIDE_STARRED?revisionid=${starred.revisionid}`, { token: moderator.token })).statusCode).toBe(200);
    const res = await t.get('/guides/featured?limit=200');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((g: { guideid: number }) => g.guideid)).toEqual([starred.guideid]);
    expect(res.json()[0].flags).toEqual(['GUIDE_STARRED']);
    expect((await t.get('/guides/featured?limit=500')).statusCode).toBe(422);
  });
});

describe('PATCH /guides/{guideid}', () => {
  it('changes only the fields sent, keeps a new revision and answers the full guide', async () => {
    const g = await makeGuide(t, author, { subject: 'Screen', summary: 'Keep me' });
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'Better title', introduction: '== Before ==\n* one' } });
    expect(res.statusCode).toBe(200);
    const after = res.json();
    expect(after).toMatchObject({ title: 'Better title', subject: 'Screen', summary: 'Keep me', introduction_rendered: '<h2>Before</h2><ul><li>one</li></ul>' });
    expect(after.revisionid).toBeGreaterThan(g.revisionid);
    expect((await revisionsOf(g.guideid)).map((r) => r.action)).toEqual(['create', 'edit']);
    expect(after.url).toContain('/Guide/Better-title/');
  });

  it('the new revision keeps the steps in their order with the first image, the tags and the prerequisites as they are', async () => {
    const [p1, p2] = [await makePublishedGuide(t, author), await makePublishedGuide(t, author)];
    let g = await makePublishedGuide(t, author, 3);
    const image = await makeImage(t, author.userid);
    const [s1, s2, s3] = g.steps.map((s: { stepid: number }) => s.stepid);
    // Shown order s3, s1, s2 (not the ids' order); only s1 has an image.
    g = (await t.put(`/guides/${g.guideid}/steporder?revisionid=${g.revisionid}`, { token: author.token, body: { stepids: [s3, s1, s2] } })).json();
    const s1Now = g.steps.find((s: { stepid: number }) => s.stepid === s1);
    g = (await t.patch(`/guides/${g.guideid}/steps/${s1}?revisionid=${s1Now.revisionid}`, { token: author.token, body: { media: { type: 'image', data: [image] } } })).json();
    g = (await t.get(`/guides/${g.guideid}`)).json();
    for (const tag of ['zeta', 'alpha', 'mid']) g = (await t.put(`/guides/${g.guideid}/tag?revisionid=${g.revisionid}`, { token: author.token, body: { tag } })).json();
    g = (await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { prerequisites: [p2.guideid, p1.guideid] } })).json();

    // An edit that does not send the prerequisites reads them, the steps and the tags back.
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Kept as it was' } });
    expect(res.statusCode).toBe(200);
    const kept = await t.db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', res.json().revisionid).executeTakeFirstOrThrow();
    const snapshot = JSON.parse(kept.snapshot);
    expect(snapshot.steps).toEqual(g.steps.map((s: { stepid: number; revisionid: number }) => ({ stepid: s.stepid, revisionid: s.revisionid })));
    expect(snapshot.steps.map((s: { stepid: number }) => s.stepid)).toEqual([s3, s1, s2]);
    expect(snapshot.tags).toEqual(['alpha', 'mid', 'zeta']);
    expect(snapshot.prerequisites).toEqual([p2.guideid, p1.guideid]);
    const row = await t.db.selectFrom('guides').select('step_imageid').where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    expect(row.step_imageid).toBe(image);
    // The kept revision reads as the guide did.
    const old = (await t.get(`/guides/${g.guideid}?revisionid=${res.json().revisionid}`)).json();
    expect(old.steps.map((s: { stepid: number }) => s.stepid)).toEqual([s3, s1, s2]);
    expect(old.prerequisites.map((p: { guideid: number }) => p.guideid)).toEqual([p2.guideid, p1.guideid]);
  });

  it('409 with the current guide when the revisionid is stale; 422 without one', async () => {
    const g = await makeGuide(t, author);
    const first = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'first' } });
    const stale = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'second' } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual(first.json());
    expect(stale.json().error).toBeUndefined();
    const missing = await t.patch(`/guides/${g.guideid}`, { token: author.token, body: { summary: 'x' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
  });

  it('401, 403, 404 and 422', async () => {
    const g = await makeGuide(t, author);
    const path = `/guides/${g.guideid}?revisionid=${g.revisionid}`;
    expect((await t.patch(path, { body: { summary: 'x' } })).statusCode).toBe(401);
    expect((await t.patch(path, { token: user.token, body: { summary: 'x' } })).statusCode).toBe(403);
    expect((await t.patch(`/guides/999999?revisionid=1`, { token: author.token, body: { summary: 'x' } })).statusCode).toBe(404);
    expect((await t.patch(path, { token: author.token, body: {} })).statusCode).toBe(422);
    expect((await t.patch(path, { token: author.token, body: { category: 'Nowhere' } })).json().errors[0].field).toBe('category');
    expect((await t.patch(path, { token: author.token, body: { prerequisites: [g.guideid] } })).json().errors[0].field).toBe('prerequisites[0]');
  });

  it('collaborators edit; a team collaborator\'s members too', async () => {
    const g = await makeGuide(t, author);
    const member = await makeUser(t);
    const lead = await makeUser(t);
    const team = await t.db.insertInto('teams').values({ name: 'T', name_lower: 't', description: '', owner: lead.userid, location: '', latitude: null, longitude: null, reputation: 0, imageid: null, join_code: 'j', created_date: 0 }).returning('teamid').executeTakeFirstOrThrow();
    await t.db.insertInto('team_members').values({ teamid: team.teamid, userid: member.userid, is_lead: 0, join_date: 0 }).execute();
    expect((await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: member.token, body: { summary: 'x' } })).statusCode).toBe(403);
    expect((await t.put(`/guides/${g.guideid}/teams/${team.teamid}`, { token: author.token })).statusCode).toBe(200);
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: member.token, body: { summary: 'by a team member' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().summary).toBe('by a team member');
  });
});

describe('two clients racing on one revisionid', () => {
  it('exactly one PATCH wins; the other gets 409 with the winner\'s guide', async () => {
    for (let round = 0; round < 3; round++) {
      const g = await makeGuide(t, author);
      const [a, b] = await Promise.all([
        t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'client A' } }),
        t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: other.token, body: { summary: 'client B' } }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
      const [win, lose] = a.statusCode === 200 ? [a, b] : [b, a];
      expect(lose.json()).toEqual(win.json());
      expect((await revisionsOf(g.guideid)).map((r) => r.action)).toEqual(['create', 'edit']);
      const stored = await t.get(`/guides/${g.guideid}`, { token: author.token });
      expect(stored.json().summary).toBe(win.json().summary);
    }
  });

  it('exactly one of a step add and a guide edit on one revisionid wins', async () => {
    const g = await makeGuide(t, author);
    const [a, b] = await Promise.all([
      t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: author.token, body: { lines: [line('x')] } }),
      t.put(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`, { token: other.token }),
    ]);
    const codes = [a.statusCode, b.statusCode];
    expect(codes.filter((c) => c === 409)).toHaveLength(1);
    expect(codes.filter((c) => c === 200 || c === 201)).toHaveLength(1);
    const current = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    expect((a.statusCode === 409 ? a : b).json().revisionid).toBe(current.revisionid);
  });
});

describe('DELETE /guides/{guideid} and restore', () => {
  it('deletes (204), hides it everywhere, and restores it per language', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const del = await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(404);
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()).toEqual([]);
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token })).statusCode).toBe(404);
    const restored = await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token });
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ guideid: g.guideid, title: g.title, public: true });
    expect(restored.json().steps).toEqual(g.steps);
    expect((await revisionsOf(g.guideid)).map((r) => r.action)).toEqual(['create', 'step_add', 'delete', 'restore']);
    const again = await t.post(`/guides/${g.guideid}/en/restore`, { token: author.token });
    expect(again.json().revisionid).toBe(restored.json().revisionid);
  });

  it('409 stale, 422 without revisionid, 401, 403 for collaborators and users, 404', async () => {
    const g = await makeGuide(t, author);
    const collaborator = await makeUser(t);
    await t.put(`/guides/${g.guideid}/users/${collaborator.userid}`, { token: author.token });
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid + 1000}`, { token: author.token })).statusCode).toBe(409);
    expect((await t.del(`/guides/${g.guideid}`, { token: author.token })).statusCode).toBe(422);
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`)).statusCode).toBe(401);
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token })).statusCode).toBe(403);
    expect((await t.del(`/guides/999999?revisionid=1`, { token: author.token })).statusCode).toBe(404);
    expect((await t.post(`/guides/${g.guideid}/en/restore`)).statusCode).toBe(401);
    expect((await t.post(`/guides/${g.guideid}/en/restore`, { token: collaborator.token })).statusCode).toBe(403);
    expect((await t.post('/guides/999999/en/restore', { token: author.token })).statusCode).toBe(404);
    expect((await t.post(`/guides/${g.guideid}/de/restore`, { token: author.token })).statusCode).toBe(404);
    expect((await t.post(`/guides/${g.guideid}/xx/restore`, { token: author.token })).statusCode).toBe(422);
  });
});

describe('PUT and DELETE /guides/{guideid}/public', () => {
  it('publishes and unpublishes with the revisionid in the query', async () => {
    const g = await makeGuide(t, author);
    const pub = await t.put(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`, { token: author.token });
    expect(pub.statusCode).toBe(200);
    expect(pub.json()).toMatchObject({ public: true, published_date: t.clock.now() });
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200);
    const unpub = await t.del(`/guides/${g.guideid}/public?revisionid=${pub.json().revisionid}`, { token: author.token });
    expect(unpub.statusCode).toBe(200);
    expect(unpub.json().public).toBe(false);
    expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(401);
  });

  it('a revisionid in the body instead of the query is 422 missing_field on revisionid', async () => {
    const g = await makeGuide(t, author);
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await t.request(method, `/guides/${g.guideid}/public`, { token: author.token, body: { revisionid: g.revisionid } });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'revisionid', code: 'missing_field' })]);
    }
  });

  it('409 stale with the current guide, 401, 403, 404', async () => {
    const g = await makeGuide(t, author);
    const stale = await t.put(`/guides/${g.guideid}/public?revisionid=${g.revisionid + 1000}`, { token: author.token });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual(g);
    expect((await t.put(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`)).statusCode).toBe(401);
    expect((await t.put(`/guides/${g.guideid}/public?revisionid=${g.revisionid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del(`/guides/999999/public?revisionid=1`, { token: author.token })).statusCode).toBe(404);
  });
});

describe('tags', () => {
  it('PUT and DELETE /guides/{id}/tag answer the full guide; GET lists them; each edit is a revision', async () => {
    const g = await makePublishedGuide(t, author);
    const put = await t.put(`/guides/${g.guideid}/tag?revisionid=${g.revisionid}`, { token: author.token, body: { tag: 'Zeta' } });
    expect(put.statusCode).toBe(200);
    expect(Object.keys(put.json())).toEqual(FULL_GUIDE_FIELDS);
    expect(put.json().tags).toEqual(['Zeta']);
    const put2 = await t.put(`/guides/${g.guideid}/tag?revisionid=${put.json().revisionid}`, { token: author.token, body: { tag: 'alpha' } });
    expect(put2.json().tags).toEqual(['Zeta', 'alpha'].sort());
    expect((await t.get(`/guides/${g.guideid}/tags`)).json()).toEqual(put2.json().tags);
    const del = await t.del(`/guides/${g.guideid}/tag?revisionid=${put2.json().revisionid}`, { token: author.token, body: { tag: 'Zeta' } });
    expect(del.statusCode).toBe(200);
    expect(del.json().tags).toEqual(['alpha']);
    expect((await revisionsOf(g.guideid)).map((r) => r.action)).toEqual(['create', 'tag', 'tag', 'untag']);
    const gone = await t.del(`/guides/${g.guideid}/tag?revisionid=${del.json().revisionid}`, { token: author.token, body: { tag: 'never' } });
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toMatchObject({ revisionid: del.json().revisionid, tags: ['alpha'] });
  });

  it('401, 403, 404, 409 and 422', async () => {
    const g = await makePublishedGuide(t, author);
    const path = `/guides/${g.guideid}/tag?revisionid=${g.revisionid}`;
    expect((await t.put(path, { body: { tag: 'x' } })).statusCode).toBe(401);
    expect((await t.put(path, { token: user.token, body: { tag: 'x' } })).statusCode).toBe(403);
    expect((await t.put('/guides/999999/tag?revisionid=1', { token: author.token, body: { tag: 'x' } })).statusCode).toBe(404);
    expect((await t.put(`/guides/${g.guideid}/tag?revisionid=1`, { token: author.token, body: { tag: 'x' } })).statusCode).toBe(409);
    expect((await t.put(path, { token: author.token, body: { tag: '   ' } })).statusCode).toBe(422);
    expect((await t.put(path, { token: author.token, body: {} })).json().errors[0]).toMatchObject({ field: 'tag', code: 'missing_field' });
    expect((await t.put(`/guides/${g.guideid}/tag`, { token: author.token, body: { tag: 'x' } })).json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
    expect((await t.get('/guides/999999/tags')).statusCode).toBe(404);
    const priv = await makeGuide(t, author);
    expect((await t.get(`/guides/${priv.guideid}/tags`)).statusCode).toBe(401);
  });

  it('belong to the guide in every language: a tag written through one language, or with a new translation, shows at once in the others\' records (read before, so kept), their next edits and the revisions those keep', async () => {
    const g = await makePublishedGuide(t, author, 1, { tags: ['first-tag'] });
    const made = await t.post('/guides', { token: author.token, body: { guideid: g.guideid, langid: 'de', type: 'replacement', category, title: 'Bildschirm', public: true } });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().tags).toEqual(['first-tag']);
    const read = async (langid: string) => (await t.get(`/guides/${g.guideid}?langid=${langid}`, { token: author.token })).json();
    // The German record is kept, and an edit's revision made, before the English tag.
    const before = await t.patch(`/guides/${g.guideid}?langid=de&revisionid=${(await read('de')).revisionid}`, { token: author.token, body: { summary: 'Vorher' } });
    expect(before.json().tags).toEqual(['first-tag']);
    expect((await read('de')).tags).toEqual(['first-tag']);
    const en = await read('en');
    expect((await t.put(`/guides/${g.guideid}/tag?langid=en&revisionid=${en.revisionid}`, { token: author.token, body: { tag: 'second-tag' } })).statusCode).toBe(200);
    expect((await read('de')).tags).toEqual(['first-tag', 'second-tag']);
    const de = (await t.patch(`/guides/${g.guideid}?langid=de&revisionid=${(await read('de')).revisionid}`, { token: author.token, body: { summary: 'Nachher' } })).json();
    expect(de.tags).toEqual(['first-tag', 'second-tag']);
    const snapshot = JSON.parse((await t.db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', de.revisionid).executeTakeFirstOrThrow()).snapshot);
    expect(snapshot.tags).toEqual(['first-tag', 'second-tag']);
    // Removed through German: gone from the English record kept since.
    expect((await read('en')).tags).toEqual(['first-tag', 'second-tag']);
    expect((await t.del(`/guides/${g.guideid}/tag?langid=de&revisionid=${de.revisionid}`, { token: author.token, body: { tag: 'first-tag' } })).statusCode).toBe(200);
    expect((await read('en')).tags).toEqual(['second-tag']);
    // A translation made with tags adds them to the guide: the English record shows them.
    const other = await makePublishedGuide(t, author, 0, { tags: ['own-tag'] });
    expect((await t.get(`/guides/${other.guideid}?langid=en`)).json().tags).toEqual(['own-tag']);
    const translated = await t.post('/guides', { token: author.token, body: { guideid: other.guideid, langid: 'de', type: 'replacement', category, title: 'Übersetzt', tags: ['translation-tag'] } });
    expect(translated.statusCode, translated.body).toBe(201);
    expect((await t.get(`/guides/${other.guideid}?langid=en`)).json().tags).toEqual(['own-tag', 'translation-tag']);
  });

  it('GET /tags lists every tag once, ordered by tagid', async () => {
    const g = await makePublishedGuide(t, author, 0, { tags: ['tag-one', 'tag-two'] });
    await makePublishedGuide(t, author, 0, { tags: ['tag-two'] });
    const all = (await t.get('/tags?limit=200')).json();
    expect(all.filter((x: string) => x === 'tag-two')).toHaveLength(1);
    expect(all.indexOf('tag-one')).toBeLessThan(all.indexOf('tag-two'));
    const desc = (await t.get('/tags?limit=200&order=DESC')).json();
    expect(desc).toEqual([...all].reverse());
    expect((await t.get('/tags?limit=0')).statusCode).toBe(422);
    void g;
  });
});

describe('GET /guides/{guideid}/approvalProcesses', () => {
  it('answers an empty list for a readable guide, 404 for an unknown one', async () => {
    const g = await makePublishedGuide(t, author);
    const res = await t.get(`/guides/${g.guideid}/approvalProcesses`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    expect((await t.get('/guides/999999/approvalProcesses')).statusCode).toBe(404);
  });
});

describe('the guide page behind each url', () => {
  it('serves the title, introduction, steps with images and lines, all escaped, with a strict CSP', async () => {
    const image = await makeImage(t, author.userid);
    let g = await makeGuide(t, author, { public: true, title: 'Fix <script>alert(1)</script> it', introduction: "Read '''this''' <img src=x onerror=alert(1)>" });
    g = await addStep(t, author, g, { title: 'Open "the" case', media: { type: 'image', data: [image] }, lines: [line("Pry with a '''spudger'''"), line('Careful', { bullet: 'icon_caution', level: 1 }), line('Back up', { bullet: 'red' })] });
    const url = new URL(g.url);
    expect(url.origin).toBe('http://test.local');
    const res = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    const html = res.body;
    expect(html).toContain('<h1>Fix &lt;script&gt;alert(1)&lt;/script&gt; it</h1>');
    expect(html).toContain('Read <strong>this</strong> &lt;img src&#61;x onerror&#61;alert(1)&gt;');
    expect(html).toContain('Step 1 — Open &quot;the&quot; case');
    expect(html).toContain(g.steps[0].media.data[0].standard.replaceAll('&', '&amp;'));
    expect(html).toContain('Pry with a <strong>spudger</strong>');
    expect(html).toContain('<ul class="lines"><li class="icon bullet-icon_caution"');
    expect(html.toLowerCase()).not.toContain('<script');
    expect(html).not.toMatch(/<[^>]*\son[a-z]+=/i);
    expect((await t.app.inject({ method: 'GET', url: `/Guide/${g.guideid}` })).statusCode).toBe(200);
  });

  it('404 for a private, deleted or unknown guide', async () => {
    const g = await makeGuide(t, author);
    expect((await t.app.inject({ method: 'GET', url: new URL(g.url).pathname })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/Guide/Nothing/999999' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/Guide/Nothing/abc' })).statusCode).toBe(404);
  });

  it('serves the flag images that flag records link to', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/static/flags/DANGER.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect((await t.app.inject({ method: 'GET', url: '/static/flags/NOPE.svg' })).statusCode).toBe(404);
  });
});

describe('the guide image', () => {
  it('is the chosen image, else the first image of the first step', async () => {
    const [a, b] = [await makeImage(t, author.userid), await makeImage(t, author.userid)];
    let g = await makePublishedGuide(t, author);
    expect(g.image).toBeNull();
    g = await addStep(t, author, g, { media: { type: 'image', data: [a, b] } });
    expect(g.image.id).toBe(a);
    const light = (await t.get(`/guides?guideids=${g.guideid}`)).json()[0];
    expect(light.image.id).toBe(a);
    const chosen = (await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { imageid: b } })).json();
    expect(chosen.image.id).toBe(b);
  });

  it('follows the steps: the first image of the first step that has one, as steps move and lose their media', async () => {
    const [a, b, c] = [await makeImage(t, author.userid), await makeImage(t, author.userid), await makeImage(t, author.userid)];
    let g = await makePublishedGuide(t, author, 1);
    g = await addStep(t, author, g, { media: { type: 'image', data: [a, b] } });
    expect(g.image.id).toBe(a);
    g = await addStep(t, author, g, { media: { type: 'image', data: [c] } });
    expect(g.image.id).toBe(a);
    const third = g.steps[2];
    const moved = await t.patch(`/guides/${g.guideid}/steps/${third.stepid}?revisionid=${third.revisionid}`, { token: author.token, body: { orderby: 1 } });
    expect(moved.statusCode).toBe(200);
    g = (await t.get(`/guides/${g.guideid}`)).json();
    expect(g.image.id).toBe(c);
    const first = g.steps[0];
    expect((await t.patch(`/guides/${g.guideid}/steps/${first.stepid}?revisionid=${first.revisionid}`, { token: author.token, body: { media: null } })).statusCode).toBe(200);
    g = (await t.get(`/guides/${g.guideid}`)).json();
    expect(g.image.id).toBe(a);
    // A PATCH of the guide's fields keeps it.
    const edited = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { summary: 'Still the same image' } });
    expect(edited.json().image.id).toBe(a);
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()[0].image.id).toBe(a);
  });
});
