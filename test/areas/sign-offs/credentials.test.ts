// Credentials around sign-offs (issue 61 §4): initializeViaPassword is no password oracle
// (an account that may not answer is answered exactly as a wrong password), it counts in the
// login limiter (one count per address with POST /user/token; a growing delay per target
// account, never a lockout), and a sign-off response through an impersonation token is
// refused as approval signatures are (403 `impersonated`).
import { describe, expect, it } from 'vitest';
import { appForFile, buildTestApp, type TestApp } from '../../helpers/app.js';
import { DEFAULT_PASSWORD, makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeCourse } from '../../helpers/factories/assessments.js';

/** A trainee with a live sign-off request on a stage signed by `team`. */
async function signoffRequest(t: TestApp, author: TestUser, teamid: number) {
  const trainee = await makeUser(t);
  const guide = await makePublishedGuide(t, author);
  const { stageids } = await makeCourse(t, [{ doctype: 'guide', docid: guide.guideid, assessmenttype: 'signoff', teamid_signer: teamid }], [trainee.userid]);
  const r = await t.post('/courses/stage-sign-offs/requests', { token: trainee.token, body: { stage_assessmentid: stageids[0] } });
  expect(r.statusCode, r.body).toBe(201);
  const id: number = r.json().signoff_requestid;
  return { trainee, id, init: `/courses/stage-sign-offs/responses/${id}/initializeViaPassword` };
}

describe('initializeViaPassword is no password oracle', () => {
  let author: TestUser, trainer: TestUser, lead: TestUser, outsider: TestUser, disabled: TestUser;
  let teamid: number;
  const t = appForFile({}, async () => {
    [author, trainer, lead, outsider, disabled] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
    teamid = (await makeTeam(t, lead, [{ user: trainer }, { user: disabled }])).teamid;
    await t.db.updateTable('users').set({ enabled: 0 }).where('userid', '=', disabled.userid).execute();
  });

  it('an account that may not answer, with its right password, is answered exactly as a wrong password', async () => {
    const { trainee, init } = await signoffRequest(t, author, teamid);
    const wrong = await t.post(init, { token: trainee.token, body: { login: trainer.email, password: 'wrong password' } });
    expect(wrong.statusCode).toBe(403);
    const shape = (b: string) => { const j = JSON.parse(b); delete j.request_id; return j; };
    for (const who of [outsider, disabled, trainee]) {
      const res = await t.post(init, { token: trainee.token, body: { login: who.email, password: DEFAULT_PASSWORD } });
      expect(res.statusCode, who.email).toBe(403);
      expect(shape(res.body), who.email).toEqual(shape(wrong.body));
    }
    const none = await t.post(init, { token: trainee.token, body: { login: 'nobody@example.com', password: DEFAULT_PASSWORD } });
    expect(shape(none.body)).toEqual(shape(wrong.body));
    expect(wrong.json().code).toBe('invalid_credentials');
    // The trainer's right password still works.
    expect((await t.post(init, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } })).statusCode).toBe(200);
  });

  it('the request is checked before any password: another caller 403, an answered request 422', async () => {
    const { trainee, id, init } = await signoffRequest(t, author, teamid);
    expect((await t.post(init, { token: outsider.token, body: { login: trainer.email, password: 'wrong password' } })).json().code).toBe('forbidden');
    await t.del(`/stage-sign-offs/requests/${id}`, { token: trainee.token });
    const closed = await t.post(init, { token: trainee.token, body: { login: outsider.email, password: 'wrong password' } });
    expect(closed.statusCode).toBe(422);
  });
});

describe('a sign-off response through an impersonation token', () => {
  let admin: TestUser, author: TestUser, trainer: TestUser, lead: TestUser;
  let teamid: number;
  const t = appForFile({}, async () => {
    [admin, author, trainer, lead] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t)]);
    teamid = (await makeTeam(t, lead, [{ user: trainer }])).teamid;
  });

  it('is refused (403 impersonated) and nothing is recorded; the trainer\'s own token answers', async () => {
    const { trainee, id } = await signoffRequest(t, author, teamid);
    const imp = (await t.post('/user/token/impersonate', { token: admin.token, body: { userid: trainer.userid } })).json().authToken;
    const body = { signoff_requestid: id, response_value: 'pass', response_feedback: 'Well done.' };
    const res = await t.patch('/courses/stage-sign-offs/responses', { token: imp, body });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('impersonated');
    const row = await t.db.selectFrom('signoff_requests').select(['response_value']).where('signoff_requestid', '=', id).executeTakeFirstOrThrow();
    expect(row.response_value).toBeNull();
    // Over the shoulder from an impersonated trainee's device: refused as well.
    const impTrainee = (await t.post('/user/token/impersonate', { token: admin.token, body: { userid: trainee.userid } })).json().authToken;
    const init = await t.post(`/courses/stage-sign-offs/responses/${id}/initializeViaPassword`, { token: impTrainee, body: { login: trainer.email, password: DEFAULT_PASSWORD } });
    expect(init.json().code).toBe('impersonated');
    expect((await t.patch('/courses/stage-sign-offs/responses', { token: trainer.token, body })).statusCode).toBe(200);
  });
});

describe('the login limiter', () => {
  it('initializeViaPassword and POST /user/token share one count per client address', async () => {
    const t = await buildTestApp({ config: { loginRateLimit: 4 } });
    try {
      const [author, trainer, lead] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t)]);
      const teamid = (await makeTeam(t, lead, [{ user: trainer }])).teamid;
      const { trainee, init } = await signoffRequest(t, author, teamid);
      for (let i = 0; i < 2; i++) expect((await t.post('/user/token', { body: { email: trainer.email, password: `wrong ${i}` } })).statusCode).toBe(401);
      for (let i = 0; i < 2; i++) expect((await t.post(init, { token: trainee.token, body: { login: trainer.email, password: `wrong ${i}` } })).statusCode).toBe(403);
      for (const res of [
        await t.post(init, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } }),
        await t.post('/user/token', { body: { email: trainer.email, password: DEFAULT_PASSWORD } }),
      ]) {
        expect(res.statusCode).toBe(429);
        expect(res.json().code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      t.clock.advance(61);
      expect((await t.post('/user/token', { body: { email: trainer.email, password: DEFAULT_PASSWORD } })).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('per target account: a growing delay after LOGIN_ACCOUNT_FAILURES failures, from any address and route, never a lockout', async () => {
    const t = await buildTestApp({ config: { loginAccountFailures: 3, loginAccountDelayMs: 2_000, loginAccountDelayMaxMs: 8_000 } });
    try {
      const [author, trainer, lead] = await Promise.all([makeAuthor(t), makeUser(t), makeUser(t)]);
      const teamid = (await makeTeam(t, lead, [{ user: trainer }])).teamid;
      const { trainee, init } = await signoffRequest(t, author, teamid);
      const login = (password: string, remoteAddress: string) =>
        t.app.inject({ method: 'POST', url: '/api/2.0/user/token', remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: trainer.email, password }) });
      for (let i = 0; i < 3; i++) expect((await login(`wrong ${i}`, `192.0.2.${i + 1}`)).statusCode).toBe(401);
      // The fourth attempt, from yet another address and through the other route, waits 2 s.
      const early = await t.post(init, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } });
      expect(early.statusCode).toBe(429);
      expect(early.json().code).toBe('login_delayed');
      expect(Number(early.headers['retry-after'])).toBe(2);
      t.clock.advance(2);
      expect((await login('wrong again', '192.0.2.9')).statusCode).toBe(401);
      // Now 4 s; the doubling stops at 8 s.
      t.clock.advance(3);
      expect((await login(DEFAULT_PASSWORD, '192.0.2.10')).statusCode).toBe(429);
      t.clock.advance(1);
      expect((await login('wrong', '192.0.2.10')).statusCode).toBe(401);
      t.clock.advance(8);
      expect((await login('wrong', '192.0.2.10')).statusCode).toBe(401);
      expect(Number((await login(DEFAULT_PASSWORD, '192.0.2.11')).headers['retry-after'])).toBe(8);
      // The owner gets in once the delay is over, and a success clears the count.
      t.clock.advance(8);
      expect((await login(DEFAULT_PASSWORD, '192.0.2.12')).statusCode).toBe(201);
      expect((await login('wrong', '192.0.2.12')).statusCode).toBe(401);
      expect((await t.post(init, { token: trainee.token, body: { login: trainer.email, password: DEFAULT_PASSWORD } })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
