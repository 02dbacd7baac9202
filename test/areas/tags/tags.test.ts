import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';

let admin: TestUser;
let author: TestUser;
let owner: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  [admin, author, owner, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeAuthor(t), makeUser(t)]);
});

const allTags = async (token?: string): Promise<string[]> => {
  const res = await t.get('/tags?limit=200', { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('GET /tags lists only the tags of what the caller may read', () => {
  it('a tag used only by a private guide is hidden from anonymous callers and plain users, shown to those who may read the guide', async () => {
    const secret = unique('secret-');
    const shared = unique('shared-');
    const wikiTag = unique('wiki-');
    const priv = await makeGuide(t, owner, { tags: [secret, shared] });
    await makePublishedGuide(t, owner, 0, { tags: [shared] });
    const wiki = await makeWiki(t, author);
    expect((await t.put(`/wikis/WIKI/${enc(wiki.title)}/tag?revisionid=${wiki.revisionid}`, { token: author.token, body: { tag: wikiTag } })).statusCode).toBe(200);

    for (const token of [undefined, user.token]) {
      const tags = await allTags(token);
      expect(tags).toContain(shared);
      expect(tags).toContain(wikiTag);
      expect(tags).not.toContain(secret);
    }
    for (const reader of [owner, author, admin]) expect(await allTags(reader.token)).toContain(secret);

    // A collaborator, directly or through a team, reads the guide and so sees its tags.
    const direct = await makeUser(t);
    const member = await makeUser(t);
    const team = await makeTeam(t, await makeUser(t), [{ user: member }]);
    expect((await t.put(`/guides/${priv.guideid}/users/${direct.userid}`, { token: owner.token })).statusCode).toBe(200);
    expect((await t.put(`/guides/${priv.guideid}/teams/${team.teamid}`, { token: owner.token })).statusCode).toBe(200);
    expect(await allTags(direct.token)).toContain(secret);
    expect(await allTags(member.token)).toContain(secret);
  });

  it('a tag of a deleted guide is no longer listed; paging counts only listed tags', async () => {
    const gone = unique('gone-');
    const g = await makePublishedGuide(t, owner, 0, { tags: [gone] });
    expect(await allTags()).toContain(gone);
    expect((await t.del(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: owner.token })).statusCode).toBe(204);
    expect(await allTags()).not.toContain(gone);

    const visible = await allTags();
    const firstTwo = (await t.get('/tags?limit=2')).json();
    expect(firstTwo).toEqual(visible.slice(0, 2));
    expect((await t.get('/tags?limit=200&order=DESC')).json()).toEqual([...visible].reverse());
  });
});

// One rule for tags on guides and wikis, driven through the same cases on both.
interface Tagged { path: string; read: () => Promise<{ revisionid: number; modified_date: number; tags: string[] }>; revisions: () => Promise<number> }
const resources: Array<[string, () => Promise<Tagged>]> = [
  ['guide', async () => {
    const g = await makePublishedGuide(t, author);
    return {
      path: `/guides/${g.guideid}`,
      read: async () => (await t.get(`/guides/${g.guideid}`)).json(),
      revisions: async () => (await t.db.selectFrom('guide_revisions').select('revisionid').where('guideid', '=', g.guideid).execute()).length,
    };
  }],
  ['wiki', async () => {
    const w = await makeWiki(t, author);
    const path = `/wikis/WIKI/${enc(w.title)}`;
    return {
      path,
      read: async () => {
        const [wiki, tags] = await Promise.all([t.get(path), t.get(`${path}/tags`)]);
        return { ...wiki.json(), tags: tags.json() };
      },
      revisions: async () => (await t.db.selectFrom('wiki_revisions').select('revisionid').where('wikiid', '=', w.wikiid).execute()).length,
    };
  }],
];

describe.each(resources)('tags on a %s follow the one rule', (_kind, make) => {
  it('PUT and DELETE need the revisionid (422 missing_field) and check it (409 with the current record)', async () => {
    const r = await make();
    const before = await r.read();
    for (const method of ['PUT', 'DELETE'] as const) {
      const missing = await t.request(method, `${r.path}/tag`, { token: author.token, body: { tag: 'needs-rev' } });
      expect(missing.statusCode).toBe(422);
      expect(missing.json().errors[0]).toMatchObject({ field: 'revisionid', code: 'missing_field' });
      const stale = await t.request(method, `${r.path}/tag?revisionid=${before.revisionid + 1000}`, { token: author.token, body: { tag: 'needs-rev' } });
      expect(stale.statusCode).toBe(409);
      expect(stale.json()).toMatchObject({ revisionid: before.revisionid, tags: [] });
    }
    expect((await r.read()).tags).toEqual([]);
    expect(await r.revisions()).toBe(1);
  });

  it('adding a tag is a new revision; adding it again changes nothing (200, same revisionid and modified_date)', async () => {
    const r = await make();
    const before = await r.read();
    t.clock.advance(10);
    const added = await t.put(`${r.path}/tag?revisionid=${before.revisionid}`, { token: author.token, body: { tag: 'once' } });
    expect(added.statusCode).toBe(200);
    expect(added.json().revisionid).toBeGreaterThan(before.revisionid);
    const after = await r.read();
    expect(after.tags).toEqual(['once']);
    expect(await r.revisions()).toBe(2);
    t.clock.advance(10);
    const again = await t.put(`${r.path}/tag?revisionid=${after.revisionid}`, { token: author.token, body: { tag: ' once ' } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ revisionid: after.revisionid, tags: ['once'] });
    expect(await r.read()).toMatchObject({ revisionid: after.revisionid, modified_date: after.modified_date, tags: ['once'] });
    expect(await r.revisions()).toBe(2);
  });

  it('removing a tag the resource lacks answers 200 with the resource unchanged; removing one it has is a new revision', async () => {
    const r = await make();
    const before = await r.read();
    const absent = await t.del(`${r.path}/tag?revisionid=${before.revisionid}`, { token: author.token, body: { tag: 'never-there' } });
    expect(absent.statusCode).toBe(200);
    expect(absent.json()).toMatchObject({ revisionid: before.revisionid, tags: [] });
    expect(await r.revisions()).toBe(1);
    const added = (await t.put(`${r.path}/tag?revisionid=${before.revisionid}`, { token: author.token, body: { tag: 'here' } })).json();
    const removed = await t.del(`${r.path}/tag?revisionid=${added.revisionid}`, { token: author.token, body: { tag: 'here' } });
    expect(removed.statusCode).toBe(200);
    expect(removed.json().tags).toEqual([]);
    expect(removed.json().revisionid).toBeGreaterThan(added.revisionid);
    expect(await r.revisions()).toBe(3);
  });
});

describe('wiki tag paths take the display title', () => {
  it('GET, PUT and DELETE .../tag(s) find a TEAM wiki by its display title, as by its stored title', async () => {
    const lead = await makeUser(t);
    const team = await makeTeam(t, lead);
    const crew = unique('Maintenance crew ');
    const w = await makeWiki(t, lead, { namespace: 'TEAM', title: String(team.teamid), display_title: crew });
    const byDisplay = `/wikis/TEAM/${enc(crew)}`;
    expect((await t.get(`${byDisplay}/tags`)).json()).toEqual([]);
    const put = await t.put(`${byDisplay}/tag?revisionid=${w.revisionid}`, { token: lead.token, body: { tag: 'crew' } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ wikiid: w.wikiid, tags: ['crew'] });
    expect((await t.get(`${byDisplay}/tags`)).json()).toEqual(['crew']);
    expect((await t.get(`/wikis/TEAM/${team.teamid}/tags`)).json()).toEqual(['crew']);
    const del = await t.del(`${byDisplay}/tag?revisionid=${put.json().revisionid}`, { token: lead.token, body: { tag: 'crew' } });
    expect(del.statusCode).toBe(200);
    expect((await t.get(`/wikis/TEAM/${team.teamid}/tags`)).json()).toEqual([]);
  });

  it('the stored title is matched first; a display title several wikis show is 422 ambiguous listing their stored titles', async () => {
    const shown = unique('Shared name ');
    const a = await makeWiki(t, author, { title: unique('Stored A '), display_title: shown });
    const b = await makeWiki(t, author, { title: unique('Stored B '), display_title: shown });
    const res = await t.get(`/wikis/WIKI/${enc(shown)}/tags`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'title', code: 'ambiguous' });
    expect(res.json().message).toContain(JSON.stringify(a.title));
    expect(res.json().message).toContain(JSON.stringify(b.title));
    const put = await t.put(`/wikis/WIKI/${enc(shown)}/tag?revisionid=${a.revisionid}`, { token: author.token, body: { tag: 'x' } });
    expect(put.statusCode).toBe(422);
    expect(put.json().errors[0].code).toBe('ambiguous');
    expect((await t.get(`/wikis/WIKI/${enc(a.title)}/tags`)).json()).toEqual([]);

    // A wiki whose stored title is another's display title: the stored title wins.
    const plain = await makeWiki(t, author, { title: unique('Plain ') });
    await makeWiki(t, author, { title: unique('Other '), display_title: plain.title });
    const stored = await t.put(`/wikis/WIKI/${enc(plain.title)}/tag?revisionid=${plain.revisionid}`, { token: author.token, body: { tag: 'stored-wins' } });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({ wikiid: plain.wikiid, tags: ['stored-wins'] });
    expect((await t.get(`/wikis/WIKI/${enc(unique('Nobody '))}/tags`)).statusCode).toBe(404);
  });

  it('a translation\'s display title finds the wiki too', async () => {
    const w = await makeWiki(t, author);
    const german = unique('Wartungshandbuch ');
    expect((await t.patch(`/wikis/WIKI/${enc(w.title)}?langid=de&revisionid=${w.revisionid}`, { token: author.token, body: { display_title: german } })).statusCode).toBe(200);
    const tags = await t.get(`/wikis/WIKI/${enc(german)}/tags`);
    expect(tags.statusCode).toBe(200);
    expect(tags.json()).toEqual([]);
  });
});
