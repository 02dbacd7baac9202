// Course stage sign-offs: a trainee asks a trainer (a member of the stage assessment's
// signer team) to watch them do the work; the trainer answers pass or fail with feedback,
// directly or over the shoulder on the trainee's device; the stage completes only when the
// trainee acknowledges a pass. Paths exactly as the specification lists them (the cancel
// path has no /courses prefix). Who may do what: signoffs.access.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.js';
import { forbidden, invalidField, notFound } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { forbiddenUnless, refuseImpersonation } from '../../http/policy.js';
import { hashPassword, verifyPassword } from '../../http/passwords.js';
import { findUserByLogin } from '../users/users.queries.js';
import { accountKey } from '../../http/login-attempts.js';
import { assignedStages } from '../shared/course-status.js';
import {
  AssessmentParam, PasswordBody, RequestBody, RequestParam, ResponseBody, Signer, SignersBody, SignoffRequest, SignoffToken, UserParam,
} from './signoffs.schemas.js';
import { docRevision, findRequest, findSignoffStage, pendingFor, signersOf, unacknowledgedOf } from './signoffs.queries.js';
import { isSigner, mayCancel, mayRespond, readsListsOf } from './signoffs.access.js';
import { requestRecords } from './signoffs.records.js';
import { acknowledge, cancelRequest, createRequest, issueSignoffToken, respond, SIGNOFF_TOKEN_TTL } from './signoffs.service.js';
import { loadImageObjects } from '../media/image-object.js';

const TAG = ['Course stage sign-offs'];

export async function signoffsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const dummyHash = await hashPassword('no such trainer', config.passwordHashCost);

  async function oneRecord(id: number) {
    const row = await findRequest(db, id);
    if (!row) throw notFound('Sign-off request');
    return (await requestRecords(db, config, [row]))[0];
  }
  async function existingRequest(id: number) {
    const row = await findRequest(db, id);
    if (!row) throw notFound('Sign-off request');
    return row;
  }
  async function existingUser(userid: number) {
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', userid).executeTakeFirst())) throw notFound('User');
  }

  app.post('/courses/stage-sign-offs/requests', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Request a sign-off of a course stage',
      description: 'Body `{"stage_assessmentid", "userid_requestee"?, "work_log_entryid"?}`: the caller (the trainee) asks for a sign-off of a stage whose assessment is a sign-off, in a course assigned to them (422 naming `stage_assessmentid` otherwise). `userid_requestee` asks one trainer (a member of the signer team); without it any signer may answer. `work_log_entryid`: the trainee\'s own work log entry on that guide. One live request per trainee and stage (422 `already_requested`): cancel it, or acknowledge its response, to ask again. Answers 201 with the request.',
      body: RequestBody,
      response: { 201: SignoffRequest, ...errorResponses(401, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    const stage = await findSignoffStage(db, b.stage_assessmentid);
    if (!stage || stage.assessmenttype !== 'signoff') throw invalidField('stage_assessmentid', `There is no sign-off assessment ${b.stage_assessmentid}.`);
    const mine = await assignedStages(db, user.userid, { doctype: stage.doctype, docid: stage.docid });
    if (!mine.some((s) => s.course_stageid === stage.course_stageid)) throw invalidField('stage_assessmentid', 'The stage of this assessment is not in a course assigned to you.', 'not_assigned');
    if (b.userid_requestee !== undefined && (b.userid_requestee === user.userid || !(await isSigner(db, b.userid_requestee, stage.teamid_signer)))) {
      throw invalidField('userid_requestee', `User ${b.userid_requestee} may not sign this assessment.`);
    }
    if (b.work_log_entryid !== undefined) {
      const entry = await db.selectFrom('work_log').select(['userid', 'guideid']).where('entryid', '=', b.work_log_entryid).executeTakeFirst();
      if (!entry || entry.userid !== user.userid || stage.doctype !== 'guide' || entry.guideid !== stage.docid) throw invalidField('work_log_entryid', `Work log entry ${b.work_log_entryid} is not yours on this stage's guide.`);
    }
    const id = await createRequest(db, clock, stage, user.userid, { userid_requestee: b.userid_requestee ?? null, work_log_entryid: b.work_log_entryid ?? null, doc_revisionid: await docRevision(db, stage.doctype, stage.docid) }, user);
    return reply.status(201).send(await oneRecord(id));
  });

  app.get('/courses/stage-sign-offs/requests/pending/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Sign-off requests awaiting a response from a user',
      description: 'Live, unanswered requests on stages whose signer team the user is in (not the user\'s own; those that asked another trainer left out), by request id. The user, Admins and the user\'s team leads.',
      params: UserParam,
      response: { 200: Type.Array(SignoffRequest), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await existingUser(request.params.userid);
    forbiddenUnless(await readsListsOf(db, user, request.params.userid), 'Only the user, Admins and the user\'s team leads see the user\'s pending sign-offs.');
    return requestRecords(db, config, await pendingFor(db, request.params.userid));
  });

  app.post('/courses/stage-sign-offs/:stage_assessmentid/signers', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Users who may sign for an assessment',
      description: 'The enabled members of the team tied to the sign-off assessment, by username (up to 200; body `{"search"}` matches any part of the username).',
      params: AssessmentParam,
      body: Type.Optional(SignersBody),
      response: { 200: Type.Array(Signer), ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    requireUser(request);
    const stage = await findSignoffStage(db, request.params.stage_assessmentid);
    if (!stage || stage.assessmenttype !== 'signoff') throw notFound('Sign-off assessment');
    if (stage.teamid_signer === null) return [];
    const rows = await signersOf(db, stage.teamid_signer, request.body?.search?.trim() || undefined);
    const images = await loadImageObjects(db, config, rows.map((r) => r.imageid));
    return rows.map((r) => ({ userid: r.userid, username: r.username, image: (r.imageid !== null && images.get(r.imageid)) || null }));
  });

  app.delete('/stage-sign-offs/requests/:signoff_requestid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Cancel a sign-off request',
      description: 'The trainee (or an Admin) cancels a request not answered yet (422 otherwise); the trainee may then request a sign-off again. Answers the request.',
      params: RequestParam,
      response: { 200: SignoffRequest, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const r = await existingRequest(request.params.signoff_requestid);
    forbiddenUnless(mayCancel(user, r), 'Only the trainee and Admins cancel a sign-off request.');
    await cancelRequest(db, clock, r.signoff_requestid, user);
    return oneRecord(r.signoff_requestid);
  });

  app.patch('/courses/stage-sign-offs/responses', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Respond to a sign-off request',
      description: 'Body `{"signoff_requestid", "response_value": "pass" | "fail", "response_feedback", "work_log_entryid"?, "signoff_token"?}`. A member of the signer team (not the trainee; the trainer asked, when one was) answers; feedback is required (422 naming `response_feedback`). Over the shoulder: the trainee\'s device sends the `signoff_token` that initializeViaPassword answered; it is used up by this response, authorizes only this request, and the response is in the trainer\'s name (403 `invalid_signoff_token` when expired, used or made for another request). The response is kept with who, when, and the work log entry; the stage is not completed yet (the trainee acknowledges). An answered or cancelled request is a 422. A response is the trainer\'s own act: through an impersonation token (the caller\'s), 403 `impersonated`. Answers the request.',
      body: ResponseBody,
      // A transition of the request (answered once): the reliability suites race it as one.
      'x-transition': true,
      response: { 200: SignoffRequest, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    refuseImpersonation(user, 'A sign-off response');
    const b = request.body;
    const feedback = b.response_feedback.trim();
    if (!feedback) throw invalidField('response_feedback', 'Feedback is required.', 'missing_field');
    const r = await findRequest(db, b.signoff_requestid);
    if (!r) throw invalidField('signoff_requestid', `There is no sign-off request ${b.signoff_requestid}.`);
    const closed = r.is_cancelled === 1 || r.response_value !== null;
    if (closed && (b.signoff_token !== undefined || (await isSigner(db, user.userid, r.teamid_signer)))) throw invalidField('signoff_requestid', `Sign-off request ${r.signoff_requestid} is cancelled or answered already.`, 'invalid_transition');
    if (b.signoff_token === undefined) forbiddenUnless(await mayRespond(db, user.userid, r), 'Only a member of the signer team (not the trainee) answers this sign-off request.');
    else forbiddenUnless(r.userid_requestor === user.userid, 'An over-the-shoulder token is sent from the trainee\'s device.');
    if (b.work_log_entryid !== undefined) {
      const entry = await db.selectFrom('work_log').select(['userid', 'guideid']).where('entryid', '=', b.work_log_entryid).executeTakeFirst();
      if (!entry || entry.userid !== r.userid_requestor || r.doctype !== 'guide' || entry.guideid !== r.docid) throw invalidField('work_log_entryid', `Work log entry ${b.work_log_entryid} is not the trainee's on this stage's guide.`);
    }
    await respond(db, clock, r, b.signoff_token === undefined ? { trainer: user.userid } : { token: b.signoff_token }, { response_value: b.response_value, response_feedback: feedback, work_log_entryid: b.work_log_entryid ?? null }, user);
    return oneRecord(r.signoff_requestid);
  });

  app.get('/courses/stage-sign-offs/responses/unacknowledged/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A trainee\'s sign-offs with unacknowledged responses',
      description: 'The user\'s live requests that have a response not acknowledged yet, by request id. The user, Admins and the user\'s team leads.',
      params: UserParam,
      response: { 200: Type.Array(SignoffRequest), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await existingUser(request.params.userid);
    forbiddenUnless(await readsListsOf(db, user, request.params.userid), 'Only the user, Admins and the user\'s team leads see the user\'s sign-off responses.');
    return requestRecords(db, config, await unacknowledgedOf(db, request.params.userid));
  });

  app.patch('/courses/stage-sign-offs/responses/:signoff_requestid/acknowledge', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Acknowledge a sign-off response',
      description: 'The trainee acknowledges the response (422 when there is none, or it is acknowledged already). A pass completes the stage now (never before this call), on the revision of the work log entry watched, else the one current when the trainee asked; a fail completes nothing, and the trainee may ask again. Answers the request.',
      params: RequestParam,
      'x-transition': true,
      response: { 200: SignoffRequest, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const r = await existingRequest(request.params.signoff_requestid);
    forbiddenUnless(r.userid_requestor === user.userid, 'Only the trainee acknowledges a sign-off response.');
    await acknowledge(db, clock, r, user);
    return oneRecord(r.signoff_requestid);
  });

  app.post('/courses/stage-sign-offs/responses/:signoff_requestid/initializeViaPassword', {
    config: { auth: 'user', loginAttempts: true },
    schema: {
      tags: TAG,
      summary: 'Start an over-the-shoulder sign-off',
      description: `On the trainee's device (the trainee's token), the trainer types their \`login\` (e-mail address or unique username) and \`password\`. The request is checked first (the caller's, unanswered: 422 otherwise); then a login that is not an enabled trainer allowed to answer this request is answered exactly as a wrong password, after the same work: 403 \`invalid_credentials\`, not saying which was wrong. Counted by the login limiter like POST /user/token (one count per client address, 429 \`rate_limited\`; a growing delay per trainer account, 429 \`login_delayed\`). Through an impersonation token: 403 \`impersonated\`. Answers a single-use \`signoff_token\`, valid ${SIGNOFF_TOKEN_TTL / 60} minutes and only for the response to this request (PATCH /courses/stage-sign-offs/responses with \`signoff_token\`); it is stored hashed.`,
      params: RequestParam,
      body: PasswordBody,
      response: { 200: SignoffToken, ...errorResponses(401, 403, 404, 422, 429) },
    },
  }, async (request) => {
    const user = requireUser(request);
    refuseImpersonation(user, 'A sign-off response');
    const r = await existingRequest(request.params.signoff_requestid);
    forbiddenUnless(r.userid_requestor === user.userid, 'An over-the-shoulder sign-off starts on the trainee\'s device.');
    if (r.is_cancelled || r.response_value !== null) throw invalidField('signoff_requestid', `Sign-off request ${r.signoff_requestid} is cancelled or answered already.`, 'invalid_transition');
    // Whether the login may answer is decided before its password is looked at, and a login
    // that may not is verified against the dummy hash: the answer and its time say nothing
    // about whether some account's password was right.
    const found = await findUserByLogin(db, request.body.login);
    const trainer = found && found.enabled && !(found.banned > 0) && (await mayRespond(db, found.userid, r)) ? found : null;
    const account = accountKey(request.body.login, found);
    await app.loginAttempts.beforeVerify(account);
    const ok = await verifyPassword(request.body.password, trainer?.password_hash || dummyHash);
    // 403, not 401: the caller's own token is fine; the trainer's credentials are not.
    if (!trainer || !ok) {
      await app.loginAttempts.failed(account);
      throw forbidden('The trainer\'s login or password is incorrect.', 'invalid_credentials');
    }
    await app.loginAttempts.succeeded(account);
    const { token, expires_at } = await issueSignoffToken(db, clock, r.signoff_requestid, trainer.userid);
    return { signoff_token: token, signoff_requestid: r.signoff_requestid, userid_signer: trainer.userid, expires_at };
  });
}
