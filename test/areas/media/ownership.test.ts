// Media references: every write that names a media id takes only the caller's own items
// or items already shown in content the caller may read; avatars and team images only
// the owner's own; a reference made by someone else never blocks the owner's delete.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeModerator, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makeGuide, makeImage as imageRow, makeVideo as videoRow } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { makeImage, minimalPdf, upload } from '../../helpers/factories/media.js';

let author: TestUser;
let collaborator: TestUser;
let moderator: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
  collaborator = await makeUser(t);
  moderator = await makeModerator(t);
});

async function documentRow(userid: number) {
  const r = await t.db.insertInto('documents').values({ guid: `doc${userid}x${Math.random().toString(36).slice(2, 10)}`, userid, filename: 'private.pdf', mime: 'application/pdf', size: 10, md5: null, blob_key: 'originals/none', created_date: t.clock.now() })
    .returning('documentid').executeTakeFirstOrThrow();
  return r.documentid;
}

/** A public guide of `author` with `collaborator` as a collaborator. */
async function sharedGuide() {
  const g = await makeGuide(t, author, { public: true });
  const res = await t.put(`/guides/${g.guideid}/users/${collaborator.userid}`, { token: author.token });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return (await t.get(`/guides/${g.guideid}`, { token: author.token })).json();
}

function expectRefused(res: { statusCode: number; body: string; json(): any }, field: string) {
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe('content takes only media the caller may read', () => {
  it('a collaborator cannot attach the moderator\'s private PDF, image or video to a public guide; nothing changes', async () => {
    const g = await sharedGuide();
    const [doc, image, video] = [await documentRow(moderator.userid), await imageRow(t, moderator.userid), await videoRow(t, moderator.userid)];
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { documents: [doc] } }), 'documents[0]');
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { imageid: image } }), 'imageid');
    expectRefused(await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: collaborator.token, body: { lines: [{ text: 'x' }], media: { type: 'image', data: [image] } } }), 'media.data[0]');
    expectRefused(await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: collaborator.token, body: { lines: [{ text: 'x' }], media: { type: 'object', data: video } } }), 'media.data');
    const after = (await t.get(`/guides/${g.guideid}`)).json();
    expect(after.revisionid).toBe(g.revisionid);
    expect(after.documents).toEqual([]);
    // The anonymous download the attack ended with: the document's file is not reachable through the guide.
    expect(JSON.stringify(after)).not.toContain('private.pdf');
  });

  it('an unknown id and a forbidden one answer alike', async () => {
    const g = await sharedGuide();
    const image = await imageRow(t, moderator.userid);
    const forbidden = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { imageid: image } });
    const unknown = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { imageid: 999_999 } });
    expect(forbidden.json().errors[0].message.replace(String(image), 'N')).toBe(unknown.json().errors[0].message.replace('999999', 'N'));
  });

  it('accepts the caller\'s own media, and media shown in content the caller may read', async () => {
    const g = await sharedGuide();
    const own = await imageRow(t, collaborator.userid);
    let res = await t.post(`/guides/${g.guideid}/steps?revisionid=${g.revisionid}`, { token: collaborator.token, body: { lines: [{ text: 'x' }], media: { type: 'image', data: [own] } } });
    expect(res.statusCode, res.body).toBe(201);
    // The moderator's image once shown in a public guide may be reused by anyone who reads it.
    const shown = await imageRow(t, author.userid);
    const other = await addStep(t, author, await makeGuide(t, author, { public: true }), { media: { type: 'image', data: [shown] } });
    expect(other.steps[0].media.data[0].id).toBe(shown);
    const current = res.json();
    res = await t.patch(`/guides/${g.guideid}?revisionid=${current.revisionid}`, { token: collaborator.token, body: { imageid: shown } });
    expect(res.statusCode, res.body).toBe(200);
    // Shown only in a private guide the caller may not read: refused.
    const hidden = await imageRow(t, author.userid);
    await addStep(t, author, await makeGuide(t, author, { public: false }), { media: { type: 'image', data: [hidden] } });
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${res.json().revisionid}`, { token: collaborator.token, body: { imageid: hidden } }), 'imageid');
  });

  it('comment media and wiki images follow the same rule', async () => {
    const wiki = await makeWiki(t, author);
    const [image, video] = [await imageRow(t, moderator.userid), await videoRow(t, moderator.userid)];
    const comment = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: collaborator.token, body: { text: 'A helpful comment text.', media: [{ type: 'image', id: image }, { type: 'video', id: video }] } });
    expectRefused(comment, 'media[0].id');
    expect(comment.json().errors.map((e: { field: string }) => e.field)).toEqual(['media[0].id', 'media[1].id']);
    const userWiki = await t.post('/wikis', { token: collaborator.token, body: { namespace: 'USER', title: String(collaborator.userid), contents: 'Me.', image } });
    expectRefused(userWiki, 'image');
    const mine = await imageRow(t, collaborator.userid);
    const ok = await t.post('/wikis', { token: collaborator.token, body: { namespace: 'USER', title: String(collaborator.userid), contents: 'Me.', image: mine } });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});

describe('avatars and team images take the owner\'s own images only', () => {
  it('another user\'s image, even a public one, is refused as an avatar and as a team image', async () => {
    const owner = await makeUser(t);
    const thief = await makeUser(t);
    const img = await imageRow(t, owner.userid);
    // Public: the owner's own avatar.
    expect((await t.patch(`/users/${owner.userid}`, { token: owner.token, body: { imageid: img } })).statusCode).toBe(200);
    expectRefused(await t.patch(`/users/${thief.userid}`, { token: thief.token, body: { imageid: img } }), 'imageid');
    const team = await makeTeam(t, thief);
    expectRefused(await t.patch(`/teams/${team.teamid}`, { token: thief.token, body: { imageid: img } }), 'imageid');
    expect((await t.db.selectFrom('users').select('imageid').where('userid', '=', thief.userid).executeTakeFirstOrThrow()).imageid).toBeNull();
    const own = await imageRow(t, thief.userid);
    expect((await t.patch(`/teams/${team.teamid}`, { token: thief.token, body: { imageid: own } })).statusCode).toBe(200);
  });

  it('a reference someone else made never blocks the owner\'s delete; the owner\'s own use does', async () => {
    const owner = await makeUser(t);
    const other = await makeUser(t);
    const item = await makeImage(t, owner);
    // A reference made before this rule (written straight to the database).
    await t.db.updateTable('users').set({ imageid: item.id }).where('userid', '=', other.userid).execute();
    const stranger = await makeAuthor(t);
    await t.db.insertInto('guide_step_images').values({ stepid: (await addStep(t, stranger, await makeGuide(t, stranger))).steps[0].stepid, orderby: 0, imageid: item.id }).execute();
    const del = await t.del(`/user/media/GuideImage/${item.id}`, { token: owner.token });
    expect(del.statusCode, del.body).toBe(204);
    expect((await t.db.selectFrom('users').select('imageid').where('userid', '=', other.userid).executeTakeFirstOrThrow()).imageid).toBeNull();

    const kept = await makeImage(t, owner);
    expect((await t.patch(`/users/${owner.userid}`, { token: owner.token, body: { imageid: kept.id } })).statusCode).toBe(200);
    const refused = await t.del(`/user/media/GuideImage/${kept.id}`, { token: owner.token });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors[0].code).toBe('in_use');
  });
});

describe('uploads stay the uploader\'s', () => {
  it('a PDF uploaded by one user cannot be put in another\'s guide by a third', async () => {
    const pdf = (await upload(t, moderator, minimalPdf(), 'secret.pdf')).json();
    const g = await sharedGuide();
    expectRefused(await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { documents: [pdf.id] } }), 'documents[0]');
    const own = (await upload(t, collaborator, minimalPdf(), 'mine.pdf')).json();
    const res = await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: collaborator.token, body: { documents: [own.id] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().documents.map((d: { documentid: number }) => d.documentid)).toEqual([own.id]);
  });
});
