// The audit log of skills: the rating weights (one entry per group changed) and supervisor
// ratings (on the rated user's record); a refused change writes no entry.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../helpers/factories.js';
import { makePublishedGuide } from '../helpers/factories/guides.js';
import { auditCount, auditEntries } from './helpers.js';

let admin: TestUser;
let author: TestUser;
let lead: TestUser;
let member: TestUser;
let outsider: TestUser;

const t = appForFile({}, async () => {
  [admin, author, lead, member, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t)]);
  await makeTeam(t, lead, [{ user: member }]);
});

describe('audit log of skills', () => {
  it('records weights changed and supervisor ratings', async () => {
    const guide = await makePublishedGuide(t, author);
    const before = await auditCount(t);
    expect((await t.put('/skills/weights', { token: lead.token, body: { top: { user: 0.4, management: 0.6 } } })).statusCode).toBe(403);
    expect((await t.put('/skills/weights', { token: admin.token, body: { top: { user: 0.4, management: 0.7 } } })).statusCode).toBe(422);
    expect((await t.post('/skills/ratings/supervisor', { token: lead.token, body: { ratings: [{ userid: outsider.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }] } })).statusCode).toBe(403);
    expect(await auditCount(t)).toBe(before);

    const put = await t.put('/skills/weights', { token: admin.token, body: { top: { user: 0.4, management: 0.6 } } });
    expect(put.statusCode, put.body).toBe(200);
    const weights = await auditEntries(t, { action: 'skills.weights_changed' });
    expect(weights.map((e) => [e.userid, e.resource_type, e.resource_id])).toEqual([[admin.userid, 'skills_weights', 'top']]);
    expect(Object.keys(JSON.parse(weights[0].changes!)).sort()).toEqual(['management', 'user']);

    expect((await t.post('/skills/ratings/supervisor', { token: lead.token, body: { ratings: [{ userid: member.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }] } })).statusCode).toBe(200);
    expect((await t.post(`/skills/ratings/supervisor/guide/${guide.guideid}/${member.userid}`, { token: lead.token, body: { rating: 1 } })).statusCode).toBe(200);
    const ratings = await auditEntries(t, { action: 'skills.supervisor_rated' });
    expect(ratings.map((e) => [e.userid, e.resource_type, e.resource_id, JSON.parse(e.changes!).rating])).toEqual([
      [lead.userid, 'user', String(member.userid), { old: null, new: 0.5 }],
      [lead.userid, 'user', String(member.userid), { old: 0.5, new: 1 }],
    ]);
  });
});
