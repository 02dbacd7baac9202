import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeGuide, makePublishedGuide } from '../../helpers/factories/guides.js';
import { enc, makeWiki } from '../../helpers/factories/wikis.js';

let t: TestApp;
let admin: TestUser;
let author: TestUser;
let owner: TestUser;
let user: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  [admin, author, owner, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeAuthor(t), makeUser(t)]);
});
afterAll(() => t.close());

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
