// The audit log of wikis: created, edited, released, deleted; a stale edit writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeAuthor, type TestUser } from '../helpers/factories.js';
import { makeWiki } from '../helpers/factories/wikis.js';
import { auditCount, auditEntries } from './helpers.js';

let t: TestApp;
let author: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  author = await makeAuthor(t);
});
afterAll(() => t.close());

describe('audit log of wikis', () => {
  it('records creation, an edit, a release and the delete, with revisions', async () => {
    const w = await makeWiki(t, author, { title: 'Audited wiki', contents: 'First text.' });
    const path = `/wikis/WIKI/${encodeURIComponent('Audited wiki')}`;
    const edit = await t.patch(`${path}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Second text.' } });
    expect(edit.statusCode, edit.body).toBe(200);
    const edited = edit.json();
    const before = await auditCount(t);
    const stale = await t.patch(`${path}?revisionid=${w.revisionid}`, { token: author.token, body: { contents: 'Third text.' } });
    expect(stale.statusCode).toBe(409);
    expect(await auditCount(t)).toBe(before);
    const rel = await t.post(`/wikis/${w.wikiid}/releases?revisionid=${edited.revisionid}`, { token: author.token, body: { notes: 'Checked' } });
    expect(rel.statusCode, rel.body).toBe(201);
    expect((await t.del(`${path}?revisionid=${edited.revisionid}`, { token: author.token })).statusCode).toBe(204);

    const entries = await auditEntries(t, { resource_type: 'wiki', resource_id: w.wikiid });
    expect(entries.map((e) => e.action)).toEqual(['wiki.created', 'wiki.edited', 'wiki.released', 'wiki.deleted']);
    for (const e of entries) expect(e.userid).toBe(author.userid);
    expect(entries[1]).toMatchObject({ revisionid_before: w.revisionid, revisionid_after: edited.revisionid });
    expect(JSON.parse(entries[1].changes!).contents_raw).toEqual({ old: 'First text.', new: 'Second text.' });
    expect(entries[2]).toMatchObject({ reason: 'Checked', revisionid_after: edited.revisionid });
    expect(entries[3]).toMatchObject({ revisionid_before: edited.revisionid });
  });
});
