import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { RELEASE_FIELDS, USER_SUMMARY_FIELDS, keys, sorted } from './records.js';

let admin: TestUser;
let author: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
  user = await makeUser(t);
});

const release = (token: string, body: Record<string, unknown>) => t.post('/guides/releases', { token, body });

describe('POST /guides/releases', () => {
  it('releases the current revision: 201 with exactly the release fields; versions count up', async () => {
    const g = await makePublishedGuide(t, author, 1, { title: 'Fan cleaning' });
    const res = await release(author.token, { guideid: g.guideid, type: 'major', notes: 'First' });
    expect(res.statusCode).toBe(201);
    const r = res.json();
    expect(Object.keys(r)).toEqual(RELEASE_FIELDS);
    expect(r).toMatchObject({
      guideid: g.guideid, langid: 'en', revisionid: g.revisionid, status: 'released', title: 'Fan cleaning', notes: 'First', type: 'major', version: '1.0',
      init_date: t.clock.now(), release_date: t.clock.now(), href: `http://test.local/api/2.0/guides/${g.guideid}?langid=en&revisionid=${g.revisionid}`,
    });
    expect(keys(r.user)).toEqual(sorted(USER_SUMMARY_FIELDS));
    expect(r.user.userid).toBe(author.userid);
    expect((await release(author.token, { guideid: g.guideid, type: 'minor' })).json().version).toBe('1.1');
    expect((await release(author.token, { guideid: g.guideid, type: 'major' })).json().version).toBe('2.0');
    expect((await release(author.token, { guideid: g.guideid, type: 'minor', version: 'v2-hotfix' })).json().version).toBe('v2-hotfix');
    // the href reads the released revision back
    expect((await t.get(new URL(r.href).pathname.replace('/api/2.0', '') + new URL(r.href).search)).json().revisionid).toBe(g.revisionid);
  });

  it('releases an earlier kept revision, with its title at the time', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: 'Before' });
    await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'After' } });
    const r = (await release(author.token, { guideid: g.guideid, revisionid: g.revisionid, type: 'major' })).json();
    expect(r).toMatchObject({ revisionid: g.revisionid, title: 'Before' });
  });

  it('401, 403, 404, 422', async () => {
    const g = await makePublishedGuide(t, author);
    const other = await makePublishedGuide(t, author);
    expect((await t.post('/guides/releases', { body: { guideid: g.guideid, type: 'major' } })).statusCode).toBe(401);
    expect((await release(user.token, { guideid: g.guideid, type: 'major' })).statusCode).toBe(403);
    expect((await release(author.token, { guideid: 999999, type: 'major' })).statusCode).toBe(404);
    expect((await release(author.token, { guideid: g.guideid, type: 'huge' })).json().errors[0]).toMatchObject({ field: 'type', code: 'invalid_value' });
    expect((await release(author.token, { guideid: g.guideid })).json().errors[0]).toMatchObject({ field: 'type', code: 'missing_field' });
    expect((await release(author.token, { guideid: g.guideid, type: 'major', revisionid: other.revisionid })).json().errors[0]).toMatchObject({ field: 'revisionid' });
  });
});

describe('listing releases', () => {
  it('GET /guides/releases answers {releases}, ordered by releaseid, filtered; private guides only for those who may see them', async () => {
    const pub = await makePublishedGuide(t, author);
    const priv = await makeGuide(t, author);
    const r1 = (await release(author.token, { guideid: pub.guideid, type: 'major' })).json();
    const r2 = (await release(author.token, { guideid: priv.guideid, type: 'major' })).json();
    const anon = (await t.get('/guides/releases?limit=200')).json();
    expect(Object.keys(anon)).toEqual(['releases']);
    const anonIds = anon.releases.map((r: { releaseid: number }) => r.releaseid);
    expect(anonIds).toContain(r1.releaseid);
    expect(anonIds).not.toContain(r2.releaseid);
    const adminIds = (await t.get('/guides/releases?limit=200&order=DESC', { token: admin.token })).json().releases.map((r: { releaseid: number }) => r.releaseid);
    expect(adminIds).toContain(r2.releaseid);
    expect(adminIds).toEqual([...adminIds].sort((a: number, b: number) => b - a));
    const byGuide = (await t.get(`/guides/releases?guideid=${pub.guideid}`)).json().releases;
    expect(byGuide).toEqual([r1]);
    expect((await t.get('/guides/releases?status=bogus')).statusCode).toBe(422);
  });

  it('GET /guides/{id}/releases answers {releases} for a readable guide', async () => {
    const g = await makePublishedGuide(t, author);
    const r = (await release(author.token, { guideid: g.guideid, type: 'minor' })).json();
    const res = await t.get(`/guides/${g.guideid}/releases`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ releases: [r] });
    const priv = await makeGuide(t, author);
    expect((await t.get(`/guides/${priv.guideid}/releases`)).statusCode).toBe(401);
    expect((await t.get(`/guides/${priv.guideid}/releases`, { token: user.token })).statusCode).toBe(403);
    expect((await t.get('/guides/999999/releases')).statusCode).toBe(404);
  });
});

describe('PATCH and DELETE /guides/releases/{releaseid}', () => {
  it('edits notes and version; DELETE marks it removed and answers it', async () => {
    const g = await makePublishedGuide(t, author);
    const r = (await release(author.token, { guideid: g.guideid, type: 'major' })).json();
    const patched = await t.patch(`/guides/releases/${r.releaseid}`, { token: author.token, body: { notes: 'Better notes', version: '1.0.1' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ releaseid: r.releaseid, notes: 'Better notes', version: '1.0.1', status: 'released' });
    const del = await t.del(`/guides/releases/${r.releaseid}`, { token: author.token });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ releaseid: r.releaseid, status: 'removed' });
    expect((await t.get(`/guides/${g.guideid}/releases`)).json().releases[0].status).toBe('removed');
    // a removed release does not count for the next version
    expect((await release(author.token, { guideid: g.guideid, type: 'major' })).json().version).toBe('1.0');
  });

  it('401, 403, 404, 422', async () => {
    const g = await makePublishedGuide(t, author);
    const r = (await release(author.token, { guideid: g.guideid, type: 'major' })).json();
    expect((await t.patch(`/guides/releases/${r.releaseid}`, { body: { notes: 'x' } })).statusCode).toBe(401);
    expect((await t.patch(`/guides/releases/${r.releaseid}`, { token: user.token, body: { notes: 'x' } })).statusCode).toBe(403);
    expect((await t.del(`/guides/releases/${r.releaseid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.patch('/guides/releases/999999', { token: author.token, body: { notes: 'x' } })).statusCode).toBe(404);
    expect((await t.del('/guides/releases/999999', { token: author.token })).statusCode).toBe(404);
    expect((await t.patch(`/guides/releases/${r.releaseid}`, { token: author.token, body: {} })).statusCode).toBe(422);
    expect((await t.patch(`/guides/releases/${r.releaseid}`, { token: author.token, body: { status: 'gone' } })).json().errors[0].field).toBe('status');
  });
});

describe('POST /guides/duplicateReleases', () => {
  it('releases each target\'s current revision with the release\'s type, notes and version', async () => {
    const source = await makePublishedGuide(t, author);
    const a = await makePublishedGuide(t, author);
    const b = await makeGuide(t, author);
    const r = (await release(author.token, { guideid: source.guideid, type: 'major', notes: 'Spring set', version: '2026.1' })).json();
    const res = await t.post('/guides/duplicateReleases', { token: author.token, body: { releaseid: r.releaseid, targets: [{ guideid: a.guideid }, { guideid: b.guideid, langid: 'en' }] } });
    expect(res.statusCode).toBe(201);
    const out = res.json().releases;
    expect(out.map((x: { guideid: number; revisionid: number; notes: string; version: string; type: string }) => [x.guideid, x.revisionid, x.notes, x.version, x.type]))
      .toEqual([[a.guideid, a.revisionid, 'Spring set', '2026.1', 'major'], [b.guideid, b.revisionid, 'Spring set', '2026.1', 'major']]);
  });

  it('401, 403, 404, 422', async () => {
    const source = await makePublishedGuide(t, author);
    const r = (await release(author.token, { guideid: source.guideid, type: 'major' })).json();
    const target = await makePublishedGuide(t, author);
    expect((await t.post('/guides/duplicateReleases', { body: { releaseid: r.releaseid, targets: [{ guideid: target.guideid }] } })).statusCode).toBe(401);
    expect((await t.post('/guides/duplicateReleases', { token: user.token, body: { releaseid: r.releaseid, targets: [{ guideid: target.guideid }] } })).statusCode).toBe(403);
    expect((await t.post('/guides/duplicateReleases', { token: author.token, body: { releaseid: 999999, targets: [{ guideid: target.guideid }] } })).statusCode).toBe(404);
    const bad = await t.post('/guides/duplicateReleases', { token: author.token, body: { releaseid: r.releaseid, targets: [{ guideid: target.guideid }, { guideid: 999999 }] } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ field: 'targets[1].guideid', index: 1 });
    expect((await t.post('/guides/duplicateReleases', { token: author.token, body: { releaseid: r.releaseid, targets: [] } })).statusCode).toBe(422);
  });
});

describe('GET /guides/{id}/releases without langid, language by language', () => {
  let writer: TestUser;
  let reader: TestUser;
  const t2 = appForFile({ config: { languages: ['en', 'de'] } }, async (app) => {
    writer = await makeAuthor(app);
    reader = await makeUser(app);
  });

  it('the default language private, another public: the public language\'s releases, not a 403', async () => {
    const g = await makePublishedGuide(t2, writer, 0, { title: 'Pump' });
    const de = await t2.post('/guides', { token: writer.token, body: { guideid: g.guideid, langid: 'de', type: 'replacement', category: g.category, title: 'Pumpe', public: true } });
    expect(de.statusCode, de.body).toBe(201);
    for (const langid of ['en', 'de']) {
      expect((await t2.post('/guides/releases', { token: writer.token, body: { guideid: g.guideid, langid, type: 'major' } })).statusCode).toBe(201);
    }
    await t2.db.updateTable('guides').set({ public: 0 }).where('guideid', '=', g.guideid).where('langid', '=', 'en').execute();
    for (const who of [undefined, reader.token]) {
      const res = await t2.get(`/guides/${g.guideid}/releases`, { token: who });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().releases.map((r: { langid: string }) => r.langid)).toEqual(['de']);
      // Asking for the private language itself is still refused.
      expect((await t2.get(`/guides/${g.guideid}/releases?langid=en`, { token: who })).statusCode).toBe(who ? 403 : 401);
    }
    // The writer reads both; nobody reading any language gets the guide's own answer.
    expect((await t2.get(`/guides/${g.guideid}/releases`, { token: writer.token })).json().releases.map((r: { langid: string }) => r.langid)).toEqual(['en', 'de']);
    await t2.db.updateTable('guides').set({ public: 0 }).where('guideid', '=', g.guideid).execute();
    expect((await t2.get(`/guides/${g.guideid}/releases`, { token: reader.token })).statusCode).toBe(403);
    expect((await t2.get('/guides/999999/releases', { token: reader.token })).statusCode).toBe(404);
  });
});
