// Conditional reads: an ETag on every successful API read, a 304 without a body when the
// client already has those bytes, a new tag when what this caller sees changes.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { createHash } from 'node:crypto';
import { etagOf, matchesIfNoneMatch } from '../../../src/http/conditional.js';

let admin: TestUser;
let author: TestUser;
let reader: TestUser;
const t = appForFile({}, async () => {
  [admin, author, reader] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

describe('ETag and If-None-Match', () => {
  it('a guide read answers a tag; the same tag back is a 304 with no body that still counts as a view; an edit changes the tag', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const first = await t.get(`/guides/${g.guideid}`, { token: reader.token });
    expect(first.statusCode).toBe(200);
    const tag = String(first.headers.etag);
    expect(tag).toMatch(/^W\/"[\w-]{27}"$/);
    const again = await t.get(`/guides/${g.guideid}`, { token: reader.token, headers: { 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(tag);
    const views = (await t.get(`/user_view_history/user/${reader.userid}`, { token: reader.token })).json();
    expect(views.filter((v: any) => v.docid === String(g.guideid))).toHaveLength(2); // the 304 is a read too
    const current = (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
    const edit = await t.patch(`/guides/${g.guideid}?revisionid=${current.revisionid}`, { token: author.token, body: { title: `${g.title} (revised)` } });
    expect(edit.statusCode).toBe(200);
    const after = await t.get(`/guides/${g.guideid}`, { token: reader.token, headers: { 'if-none-match': tag } });
    expect(after.statusCode).toBe(200);
    expect(after.json().title).toBe(`${g.title} (revised)`);
    expect(after.headers.etag).not.toBe(tag);
  });

  it('the tag varies with the output format and with what the caller may see', async () => {
    const g = await makePublishedGuide(t, author, 1);
    const json = await t.get(`/guides/${g.guideid}`);
    const xml = await t.get(`/guides/${g.guideid}?format=xml`);
    expect(xml.headers['content-type']).toContain('application/xml');
    expect(xml.headers.etag).not.toBe(json.headers.etag);
    expect((await t.get(`/guides/${g.guideid}?format=xml`, { headers: { 'if-none-match': String(json.headers.etag) } })).statusCode).toBe(200);
    // A private guide: its author gets the guide and a tag; a reader's 403 has none, and the author's tag does not turn it into a 304.
    const hidden = await makeGuide(t, author);
    const own = await t.get(`/guides/${hidden.guideid}`, { token: author.token });
    expect(own.statusCode).toBe(200);
    const refused = await t.get(`/guides/${hidden.guideid}`, { token: reader.token, headers: { 'if-none-match': String(own.headers.etag) } });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers.etag).toBeUndefined();
  });

  it('lists carry tags too, and a list that changed is sent whole', async () => {
    const list = await t.get('/guides?limit=5', { token: admin.token });
    const tag = String(list.headers.etag);
    expect((await t.get('/guides?limit=5', { token: admin.token, headers: { 'if-none-match': `"other", ${tag}` } })).statusCode).toBe(304);
    await makePublishedGuide(t, author, 0);
    const changed = await t.get('/guides?limit=5', { token: admin.token, headers: { 'if-none-match': tag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
  });

  it('writes never answer 304', async () => {
    const g = await makePublishedGuide(t, author, 0);
    const res = await t.post(`/comments/guide/${g.guideid}`, { token: reader.token, body: { text: 'A comment that is new.' }, headers: { 'if-none-match': '*' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBeUndefined();
  });

  it('If-None-Match is compared weakly, in a list, or as *', () => {
    expect(matchesIfNoneMatch('W/"abc"', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"abc"', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"x", W/"abc" ', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('*', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"abcd"', 'W/"abc"')).toBe(false);
    expect(matchesIfNoneMatch(undefined, 'W/"abc"')).toBe(false);
  });

  it('a tag is the digest of the bytes, small bodies kept or not, large ones and Buffers alike', () => {
    const digest = (b: string | Buffer) => `W/"${createHash('sha1').update(b).digest('base64url')}"`;
    // More small bodies than are kept, then the first again: every tag is still its own digest.
    const bodies = Array.from({ length: 700 }, (_, i) => JSON.stringify({ guides: [], total: i }));
    for (const b of [...bodies, bodies[0], bodies[699]]) expect(etagOf(b)).toBe(digest(b));
    const large = 'x'.repeat(1025);
    expect(etagOf(large)).toBe(digest(large));
    expect(etagOf(Buffer.from(bodies[1]))).toBe(digest(bodies[1]));
  });
});
