// The reader rule (areas/shared/guide-reader.ts): under an approval process, what is not
// approved yet reaches no reader through any route. A guide has an approved revision A and
// a pending revision B whose every text carries a marker; every GET route of the OpenAPI
// document, and the guide's HTML page, called anonymously and as a plain User, must not
// show the marker; its editors see B in the guide's own record, its XML and its page.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, line, makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeCategoryAt, makeProcess } from './helpers.js';

const MARKER = 'Zqxdraftmarker';
const APPROVED = 'Approvedwordy';

let admin: TestUser;
let author: TestUser;
let reader: TestUser;
let signer: TestUser;
const ids: Record<string, number> = {};

const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  reader = await makeUser(t);
  signer = await makeUser(t);
  const process = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
  const cat = await makeCategoryAt(t);
  ids.category = cat.wikiid;
  // Revision A: the guide as it was when it came under the process (what readers see).
  let g = await makePublishedGuide(t, author, 0, { category: cat.title, title: `${APPROVED} guide`, summary: 'Approved summary', introduction: 'Approved introduction' });
  g = await addStep(t, author, g, { title: 'Approved step', lines: [line('Approved line')] });
  ids.guide = g.guideid;
  ids.step = g.steps[0].stepid;
  expect((await t.put(`/approvals/${cat.wikiid}/${process.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
  ids.revA = g.revisionid;
  // A guide that names it as a prerequisite, and a course with a stage on it.
  const other = await makePublishedGuide(t, author, 0, { title: 'Dependent guide', prerequisites: [g.guideid] });
  ids.other = other.guideid;
  const course = await t.post('/courses', { token: author.token, body: { title: 'Reader rule course', contents: 'x', stages: [{ doctype: 'guide', docid: g.guideid }] } });
  expect(course.statusCode).toBe(201);
  ids.course = course.json().wikiid;
  // The reader reads it (view history) and starts performing it (work log), before the draft.
  expect((await t.get(`/guides/${g.guideid}`, { token: reader.token })).statusCode).toBe(200);
  // Revision B: every text field carries the marker; a release waits for approval.
  let b = (await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, {
    token: author.token,
    body: { title: `${MARKER} title`, subject: `${MARKER} subject`, summary: `${MARKER} summary`, introduction: `${MARKER} introduction`, conclusion: `${MARKER} conclusion`, difficulty: 'Easy', time_required: `${MARKER} time` },
  }));
  expect(b.statusCode).toBe(200);
  const step = await t.patch(`/guides/${g.guideid}/steps/${ids.step}?revisionid=${b.json().steps[0].revisionid}`, { token: author.token, body: { title: `${MARKER} step`, lines: [line(`${MARKER} line`)] } });
  expect(step.statusCode, step.body).toBe(200);
  b = await t.get(`/guides/${g.guideid}`, { token: author.token });
  const tagged = await t.put(`/guides/${g.guideid}/tag?revisionid=${b.json().revisionid}`, { token: author.token, body: { tag: MARKER.toLowerCase() } });
  expect(tagged.statusCode, tagged.body).toBe(200);
  ids.revB = tagged.json().revisionid;
  const release = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', notes: 'For approval' } });
  expect(release.statusCode, release.body).toBe(201);
  ids.request = release.json().approval_requestid;
  const entry = await t.post('/work_log', { token: reader.token, body: { guideid: g.guideid } });
  expect(entry.statusCode, entry.body).toBe(201);
  ids.entry = entry.json().entryid;
  expect(entry.json().guide_revisionid).toBe(ids.revA);
});

/**
 * Whether a body shows nothing of the pending revision. A search echoes its query (the
 * marker, as sent): that echo is not a leak, the draft's texts ("<marker> title", the tag
 * in lower case) are.
 */
const noMarker = (body: string) => !body.split(MARKER).join('').toLowerCase().includes(MARKER.toLowerCase()) && !body.includes(`${MARKER} `);

/** A value for a path parameter of the document, by its name (the guide and what relates to it). */
function paramValues(name: string): string[] {
  const n = name.toLowerCase();
  if (n.includes('guideid') || n === 'docid' || n === 'id') return [String(ids.guide)];
  if (n.includes('wikiid') || n.includes('courseid')) return [String(ids.course), String(ids.category)];
  if (n.includes('userid')) return [String(reader.userid)];
  if (n.includes('entryid')) return [String(ids.entry)];
  if (n.includes('revisionid')) return [String(ids.revB), String(ids.revA)];
  if (n.includes('stepid')) return [String(ids.step)];
  if (n.includes('requestid')) return [String(ids.request)];
  if (n === 'langid') return ['en'];
  if (n.includes('doctype') || n === 'context' || n === 'type') return ['guide'];
  if (/query|search|phrase|^q$|tag|text|title|term/.test(n)) return [MARKER, APPROVED];
  return ['1'];
}

function fill(path: string): string[] {
  let out = [path];
  for (const m of path.matchAll(/\{(\w+)\}/g)) {
    const values = paramValues(m[1]);
    out = out.flatMap((p) => values.map((v) => p.replace(m[0], encodeURIComponent(v))));
  }
  return out;
}

describe('unapproved content reaches no reader', () => {
  it('walks every GET route of the OpenAPI document, anonymously and as a User: no answer shows the pending revision', async () => {
    const doc = (await t.get('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
    const leaks: string[] = [];
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!ops.get) continue;
      for (const url of fill(path)) {
        for (const [who, token] of [['anonymous', undefined], ['user', reader.token]] as const) {
          for (const suffix of ['', url.includes('?') ? '&format=xml' : '?format=xml']) {
            const res = await t.get(`${url}${suffix}`, token ? { token } : {});
            walked++;
            expect(res.statusCode, `${who} GET ${url}${suffix}`).toBeLessThan(500);
            if (!noMarker(res.body)) leaks.push(`${who} GET ${url}${suffix} (${res.statusCode})`);
          }
        }
      }
    }
    for (const [who, token] of [['anonymous', undefined], ['user', reader.token]] as const) {
      for (const page of [`/Guide/x/${ids.guide}`, `/Guide/${ids.guide}`]) {
        const res = await t.app.inject({ method: 'GET', url: page, headers: token ? { authorization: `api ${token}` } : {} });
        expect(res.statusCode).toBe(200);
        if (!noMarker(res.body)) leaks.push(`${who} page ${page}`);
        expect(res.body).toContain(`${APPROVED} guide`);
      }
    }
    expect(walked).toBeGreaterThan(100);
    expect(leaks).toEqual([]);
  });

  it('editors (the author, an Admin) see the pending revision in the record, its XML and its page', async () => {
    for (const u of [author, admin]) {
      const rec = await t.get(`/guides/${ids.guide}`, { token: u.token });
      expect(rec.json()).toMatchObject({ revisionid: ids.revB, title: `${MARKER} title` });
      expect(rec.headers['cache-control']).toBe('private');
      expect(String(rec.headers.vary)).toContain('Authorization');
      const xml = await t.get(`/guides/${ids.guide}?format=xml`, { token: u.token });
      expect(xml.body).toContain(`${MARKER} title`);
      const page = await t.app.inject({ method: 'GET', url: `/Guide/x/${ids.guide}`, headers: { authorization: `api ${u.token}` } });
      expect(page.body).toContain(`${MARKER} line`);
      expect(page.headers['cache-control']).toBe('private');
    }
  });
});

describe('lists, suggest, search, page, ETag and 304 follow the reader revision', () => {
  it('GET /guides shows the approved title and revisionid to every caller, the author included', async () => {
    for (const token of [undefined, reader.token, author.token]) {
      const list = (await t.get(`/guides?guideids=${ids.guide}`, token ? { token } : {})).json();
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ revisionid: ids.revA, title: `${APPROVED} guide` });
    }
  });

  it('suggest and search find the approved title, never the draft', async () => {
    const hit = (await t.get(`/suggest/${APPROVED}`)).json();
    expect(JSON.stringify(hit)).toContain(`${APPROVED} guide`);
    expect(noMarker(JSON.stringify(hit))).toBe(true);
    const draft = (await t.get(`/suggest/${MARKER}`)).json();
    expect(JSON.stringify(draft)).not.toContain(`"guideid":${ids.guide}`);
  });

  it('a reader\'s ETag is of the approved record: a 304 never stands for the draft, and the editor\'s tag is not the reader\'s', async () => {
    const asReader = await t.get(`/guides/${ids.guide}`, { token: reader.token });
    const asEditor = await t.get(`/guides/${ids.guide}`, { token: author.token });
    expect(asReader.json().revisionid).toBe(ids.revA);
    expect(asReader.headers.etag).toBeTruthy();
    expect(asReader.headers.etag).not.toBe(asEditor.headers.etag);
    expect(asReader.headers['cache-control']).toBe('private');
    // The editor's tag does not match what the reader gets: a 200 with the approved record.
    const withEditorsTag = await t.get(`/guides/${ids.guide}`, { token: reader.token, headers: { 'if-none-match': String(asEditor.headers.etag) } });
    expect(withEditorsTag.statusCode).toBe(200);
    expect(withEditorsTag.json().revisionid).toBe(ids.revA);
    const anonymous = await t.get(`/guides/${ids.guide}`, { headers: { 'if-none-match': String(asEditor.headers.etag) } });
    expect(anonymous.statusCode).toBe(200);
    expect(noMarker(anonymous.body)).toBe(true);
    const again = await t.get(`/guides/${ids.guide}`, { token: reader.token, headers: { 'if-none-match': String(asReader.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('a guide under a process before its first approval is not listed, suggested or found; once approved it is', async () => {
    // A new guide in the category under the process: nothing approved yet.
    const cat = (await t.db.selectFrom('wikis').select('title').where('wikiid', '=', ids.category).executeTakeFirstOrThrow()).title;
    const fresh = await makePublishedGuide(t, author, 0, { category: cat, title: 'Unreleasedfresh guide' });
    expect((await t.get(`/guides/${fresh.guideid}`)).json().error ?? (await t.get(`/guides/${fresh.guideid}`)).statusCode).toBeTruthy();
    expect((await t.get(`/guides/${fresh.guideid}`, { token: reader.token })).statusCode).toBe(404);
    expect((await t.get(`/guides?guideids=${fresh.guideid}`)).json()).toEqual([]);
    expect((await t.get('/suggest/Unreleasedfresh')).json().results).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `/Guide/x/${fresh.guideid}` })).statusCode).toBe(404);
    // Released and approved: listed and found.
    const release = await t.post('/guides/releases', { token: author.token, body: { guideid: fresh.guideid, type: 'major' } });
    const signed = await t.post(`/approvals/request/sign/${release.json().approval_requestid}`, { token: signer.token, body: { status: 'approve', password: signer.password, notes: '' } });
    expect(signed.statusCode, signed.body).toBe(200);
    expect((await t.get(`/guides?guideids=${fresh.guideid}`)).json()).toHaveLength(1);
    expect(JSON.stringify((await t.get('/suggest/Unreleasedfresh')).json().results)).toContain('Unreleasedfresh');
    expect((await t.get(`/guides/${fresh.guideid}`, { token: reader.token })).statusCode).toBe(200);
  });

  it('after the approval of B readers see B everywhere', async () => {
    // A guide of its own, so that the walk above keeps its draft.
    const cat = (await t.db.selectFrom('wikis').select('title').where('wikiid', '=', ids.category).executeTakeFirstOrThrow()).title;
    const g = await makePublishedGuide(t, author, 0, { category: cat, title: 'Firstapproved guide' });
    const first = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } });
    await t.post(`/approvals/request/sign/${first.json().approval_requestid}`, { token: signer.token, body: { status: 'approve', password: signer.password, notes: '' } });
    const edited = (await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'Secondapproved guide' } })).json();
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()[0].title).toBe('Firstapproved guide');
    expect((await t.get('/suggest/Secondapproved')).json().results).toEqual([]);
    const second = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major' } });
    await t.post(`/approvals/request/sign/${second.json().approval_requestid}`, { token: signer.token, body: { status: 'approve', password: signer.password, notes: '' } });
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()[0]).toMatchObject({ title: 'Secondapproved guide', revisionid: edited.revisionid });
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Secondapproved guide');
    expect(JSON.stringify((await t.get('/suggest/Secondapproved')).json().results)).toContain('Secondapproved');
    const page = await t.app.inject({ method: 'GET', url: `/Guide/x/${g.guideid}` });
    expect(page.body).toContain('Secondapproved guide');
  });

  it('detaching the process shows readers the current revision again', async () => {
    const process = await makeProcess(t, admin.token, [{ userid: signer.userid }]);
    const cat = await makeCategoryAt(t);
    const g = await makePublishedGuide(t, author, 0, { category: cat.title, title: 'Detachbefore guide' });
    expect((await t.put(`/approvals/${cat.wikiid}/${process.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'Detachafter guide' } });
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()[0].title).toBe('Detachbefore guide');
    expect((await t.del(`/approvals/${cat.wikiid}`, { token: admin.token })).statusCode).toBeLessThan(300);
    expect((await t.get(`/guides?guideids=${g.guideid}`)).json()[0].title).toBe('Detachafter guide');
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Detachafter guide');
  });
});
