// Approvals: processes (sequential stages signed by a user or by members of a team),
// attaching them to categories, the process that applies to a guide, requests opened by
// releasing a guide under a process, and signatures (the password re-entered, or a
// single-use token mailed to the signer).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql, type SqlBool } from 'kysely';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses } from '../../http/schemas.js';
import { forbidden, HttpError, invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless, refuseImpersonation } from '../../http/policy.js';
import { hashToken, hashPassword, verifyPassword } from '../../http/passwords.js';
import { likeEscape } from '../../db/helpers.js';
import { answeringConflict } from '../content/revisions.js';
import { guideFor } from '../guides/guides.access.js';
import { GuideParam, LangQuery } from '../guides/guides.schemas.js';
import {
  ApprovalProcess, ApprovalProcessDetail, ApprovalRequest, AttachParam, ProcessCreate, ProcessListQuery, ProcessParam, ProcessPatch,
  ProcessSearchResult, RequestListQuery, RequestParam, SignBody, SignTokenBody, WikiParam,
} from './approvals.schemas.js';
import { currentDefault, findProcess, findRequest, processForGuide, type RequestRow } from './approvals.queries.js';
import { processDetail, processRecords, requestRecords } from './approvals.records.js';
import { approvalPdfContent } from './approvals.pdf.js';
import { canCancelRequest, canManageProcesses, canReadRequest, canSign, requestReadable, waitingOn } from './approvals.access.js';
import { attachProcess, cancelRequest, createProcess, detachProcess, patchProcess, RequestClosed, signRequest, StageMoved, type StageSpec } from './approvals.service.js';

const TAG = ['Approvals'];

/** A 422 about the state of the request (finished, moved on, already signed...), naming it as the field. */
const stateError = (code: string, message: string) => new HttpError(422, code, message, [{ field: 'approval_requestid', code, message }]);
const ADMINS = 'Only Admins may change approval processes.';

export async function approvalsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock, pdfs } = app;
  const limited = { max: config.loginRateLimit, timeWindow: 60_000 };
  // Verified against when the signer has no password, so timing tells nothing either.
  const dummyHash = await hashPassword('no password', config.passwordHashCost);

  async function existingProcess(id: number) {
    const row = await findProcess(db, id);
    if (!row) throw notFound('Approval process');
    return row;
  }
  const detail = async (id: number, user: AuthUser) => processDetail(db, config, await existingProcess(id), user);

  /** Stages as sent: exactly one of userid and teamid, num_required with teamid; the users and teams must exist. */
  async function checkStages(stages: Array<{ userid?: number; teamid?: number; num_required?: number }>): Promise<StageSpec[]> {
    const errors: FieldError[] = [];
    const userids = stages.flatMap((s) => (s.userid !== undefined ? [s.userid] : []));
    const teamids = stages.flatMap((s) => (s.teamid !== undefined ? [s.teamid] : []));
    const users = new Set(userids.length ? (await db.selectFrom('users').select('userid').where('userid', 'in', userids).execute()).map((r) => r.userid) : []);
    const teams = new Set(teamids.length ? (await db.selectFrom('teams').select('teamid').where('teamid', 'in', teamids).execute()).map((r) => r.teamid) : []);
    const out: StageSpec[] = [];
    stages.forEach((s, i) => {
      const at = `stages[${i}]`;
      if ((s.userid === undefined) === (s.teamid === undefined)) {
        errors.push({ field: at, code: 'invalid_value', message: `${at} sets exactly one of userid and teamid.`, index: i });
      } else if (s.userid !== undefined) {
        if (s.num_required !== undefined && s.num_required !== 1) errors.push({ field: `${at}.num_required`, code: 'invalid_value', message: `${at}.num_required is for team stages.`, index: i });
        else if (!users.has(s.userid)) errors.push({ field: `${at}.userid`, code: 'invalid_value', message: `There is no user ${s.userid}.`, index: i });
        else out.push({ userid: s.userid, teamid: null, num_required: 1 });
      } else {
        if (s.num_required === undefined) errors.push({ field: `${at}.num_required`, code: 'missing_field', message: `${at}.num_required is required with teamid.`, index: i });
        else if (!teams.has(s.teamid!)) errors.push({ field: `${at}.teamid`, code: 'invalid_value', message: `There is no team ${s.teamid}.`, index: i });
        else out.push({ userid: null, teamid: s.teamid!, num_required: s.num_required });
      }
    });
    if (errors.length) throw unprocessable(errors);
    return out;
  }

  const checkName = (name: string) => {
    const n = name.trim();
    if (!n) throw invalidField('name', 'name must not be blank.');
    return n;
  };

  app.get('/approvals/processes', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Approval processes, ordered by approval_processid',
      description: 'Logged-in users. Each process with its stages, `num_guides` (guides, per language, released under it) and `num_requests`.',
      querystring: ProcessListQuery,
      response: { 200: Type.Array(ApprovalProcess), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const { offset, limit, order } = request.query;
    const rows = await db.selectFrom('approval_processes').selectAll().orderBy('approval_processid', order === 'DESC' ? 'desc' : 'asc').limit(limit).offset(offset).execute();
    return processRecords(db, config, rows);
  });

  app.get('/approvals/process/search/:search_phrase', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Approval processes whose name contains a phrase',
      description: 'Logged-in users. Matches any part of the name, ignoring case (a scan of the lower-cased name index). Ordered by name, then approval_processid.',
      params: Type.Object({ search_phrase: Type.String({ minLength: 1, maxLength: 200 }) }),
      querystring: Type.Object({ offset: ProcessListQuery.properties.offset, limit: ProcessListQuery.properties.limit }),
      response: { 200: ProcessSearchResult, ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const { offset, limit } = request.query;
    const search = request.params.search_phrase;
    // name_lower is stored lower-cased: LIKE on it (with the escape clause both dialects need) reads the name index.
    const matches = sql<SqlBool>`${sql.ref('name_lower')} like ${'%' + likeEscape(search.toLowerCase()) + '%'} escape '\\'`;
    const total = await db.selectFrom('approval_processes').select((eb) => eb.fn.countAll<number>().as('n')).where(matches).executeTakeFirstOrThrow();
    const rows = await db.selectFrom('approval_processes').selectAll().where(matches)
      .orderBy('name_lower').orderBy('approval_processid').limit(limit).offset(offset).execute();
    const totalResults = Number(total.n);
    return { limit, offset, totalResults, moreResults: offset + rows.length < totalResults, search, results: await processRecords(db, config, rows) };
  });

  app.get('/approvals/process/:approval_processid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One approval process',
      description: 'Logged-in users. With `webhooks_enabled`, `guides` (released under it) and `requests` (its pending requests the caller may read).',
      params: ProcessParam,
      response: { 200: ApprovalProcessDetail, ...errorResponses(401, 404, 422) },
    },
  }, async (request) => detail(request.params.approval_processid, requireUser(request)));

  app.post('/approvals/process', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Create an approval process',
      description: 'Admins. 1 to 10 stages, signed in order; each sets `userid` (only that user signs) or `teamid` with `num_required` (that many distinct members sign), never both. `is_default`: the default for guides created from now on (existing guides are unaffected). Answers 201 with the detail shape.',
      body: ProcessCreate,
      response: { 201: ApprovalProcessDetail, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    forbiddenUnless(canManageProcesses(user), ADMINS);
    const b = request.body;
    const name = checkName(b.name);
    const stages = await checkStages(b.stages);
    const id = await db.transaction().execute((trx) => createProcess(trx, clock, user, { ...b, name, stages }));
    return reply.status(201).send(await detail(id, user));
  });

  app.patch('/approvals/process/:approval_processid', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Change an approval process',
      description: 'Admins. Takes the process\'s current `revisionid` as a query parameter (extension; 409 with the current process when stale). Fields as for creating; `stages` replaces every stage: requests already open keep the stages they started with, new requests use the new ones. `is_default: false` leaves guides created while it was the default under it. Answers the detail shape.',
      params: ProcessParam,
      querystring: Type.Object({ revisionid: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The process\'s current revisionid.' }) }),
      body: ProcessPatch,
      response: { 200: ApprovalProcessDetail, 409: { ...ApprovalProcessDetail, description: 'Stale revisionid: the current process.' }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    forbiddenUnless(canManageProcesses(user), ADMINS);
    const row = await existingProcess(request.params.approval_processid);
    const b = request.body;
    const input = { ...b, name: b.name === undefined ? undefined : checkName(b.name), stages: b.stages === undefined ? undefined : await checkStages(b.stages) };
    const isDefaultNow = (await currentDefault(db)) === row.approval_processid;
    await answeringConflict(
      () => db.transaction().execute((trx) => patchProcess(trx, clock, user, row, request.query.revisionid, input, isDefaultNow)),
      () => detail(row.approval_processid, user),
    );
    return detail(row.approval_processid, user);
  });

  app.put('/approvals/:wikiid/:approval_processid', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Attach an approval process to a category',
      description: 'Admins. `wikiid` is a CATEGORY wiki; the process applies to the guides of that category and of the categories below it that have none of their own (the nearest attached category up a guide\'s category tree wins; else the site default). Guides that come under a process by this keep showing readers the revision they saw until their next approved release. Answers the process (detail shape).',
      params: AttachParam,
      response: { 200: ApprovalProcessDetail, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    forbiddenUnless(canManageProcesses(user), ADMINS);
    const { wikiid, approval_processid } = request.params;
    const wiki = await db.selectFrom('wikis').select(['wikiid', 'namespace']).where('wikiid', '=', wikiid).executeTakeFirst();
    if (!wiki) throw notFound('Wiki');
    if (wiki.namespace !== 'CATEGORY') throw invalidField('wikiid', `Wiki ${wikiid} is not a CATEGORY wiki.`);
    await existingProcess(approval_processid);
    await db.transaction().execute((trx) => attachProcess(trx, clock, user, wikiid, approval_processid));
    return detail(approval_processid, user);
  });

  app.delete('/approvals/:wikiid', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Detach the approval process of a category',
      description: 'Admins. The category\'s guides fall back to the process of the nearest category above it, else the site default. 404 when the category has none attached.',
      params: WikiParam,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    forbiddenUnless(canManageProcesses(user), ADMINS);
    const removed = await db.transaction().execute((trx) => detachProcess(trx, clock, user, request.params.wikiid));
    if (!removed) throw notFound('Approval process of this wiki');
    return reply.status(204).send(null);
  });

  app.get('/guides/:guideid/approvalProcesses', {
    config: { auth: 'none' },
    schema: {
      tags: ['Guides'],
      summary: 'Approval processes of a guide',
      description: 'Those who read the guide. The process that applies to it, in a list: the one attached to the nearest category up its category\'s tree, else the site default of the time the guide was created; an empty list when none applies.',
      params: GuideParam,
      querystring: Type.Object({ langid: LangQuery(config.languages) }),
      response: { 200: Type.Array(ApprovalProcess), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'read');
    const id = await processForGuide(db, ctx.row);
    if (id === null) return [];
    return processRecords(db, config, [(await findProcess(db, id))!]);
  });

  // ------------------------------------------------------------ requests

  async function readableRequest(user: AuthUser | null, id: number): Promise<RequestRow> {
    const row = await findRequest(db, id);
    if (!row) throw notFound('Approval request');
    forbiddenUnless(await canReadRequest(db, user, row), 'Only Admins, Authors, the guide\'s owner, the one who released it and its signers may read this request.');
    return row;
  }
  const oneRequest = async (id: number) => (await requestRecords(db, config, [(await findRequest(db, id))!]))[0];

  app.get('/approvals/requests', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Approval requests, ordered by approval_requestid',
      description: 'The requests the caller reads (Admins and Authors: all; others: those of guides they own, that they released, or that they sign). Filters: `status`, `guideid`, `waiting_on_me` (pending requests whose current stage the caller may sign and has not).',
      querystring: RequestListQuery,
      response: { 200: Type.Array(ApprovalRequest), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const q = request.query;
    let sel = db.selectFrom('approval_requests as r').selectAll('r').where(requestReadable(user));
    if (q.status !== undefined) sel = sel.where('r.status', '=', q.status);
    if (q.guideid !== undefined) sel = sel.where('r.guideid', '=', q.guideid);
    if (q.waiting_on_me) sel = sel.where(waitingOn(user));
    const rows = await sel.orderBy('r.approval_requestid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
    return requestRecords(db, config, rows);
  });

  app.get('/approvals/request/:approval_requestid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One approval request',
      description: 'Admins, Authors, the guide\'s owner, the one who released it and the signers of its stages. Its stages as they were when it opened, every signature (who, when, what, the revision signed).',
      params: RequestParam,
      response: { 200: ApprovalRequest, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await readableRequest(request.user, request.params.approval_requestid);
    return oneRequest(row.approval_requestid);
  });

  app.get('/approvals/request/:approval_requestid/pdf', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'The PDF of an approval request (extension)',
      description: 'Whoever may read the request (as `GET /approvals/request/{id}`). The guide and the revision signed, the release and the process, each stage and each signature with the signer\'s printed name (as they signed), the time, the meaning, the method, the notes (the first 2 000 characters) and the signature\'s audit entry (id and hash); then the request\'s audit entries with their ids and hashes (the first 200, the rest counted). The same request gives the same bytes (dated by the last change it shows). Made in the PDF worker thread and kept per request while what it shows is unchanged; with more than PDF_QUEUE_SIZE PDFs waiting, or one taking longer than PDF_TIMEOUT_MS, 503 with Retry-After.',
      params: RequestParam,
      response: { 200: { description: 'The PDF.', content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } } }, ...errorResponses(401, 403, 404, 422, 503) },
    },
  }, async (request, reply) => {
    const row = await readableRequest(request.user, request.params.approval_requestid);
    const pdf = await pdfs.approvalRequestPdf(await approvalPdfContent(db, row));
    // The schema declares the bytes (a binary string); Fastify sends the Buffer as it is.
    return reply.header('content-type', 'application/pdf').header('content-disposition', `inline; filename="approval-request-${row.approval_requestid}.pdf"`).send(pdf as unknown as string);
  });

  /** The checks every signature passes before its transaction, then the signature. */
  async function sign(user: AuthUser, id: number, body: { status: 'approve' | 'reject'; notes?: string }, method: 'password' | 'token', proof: (request: RequestRow, stageid: number) => Promise<{ ok: boolean; tokenHash?: string }>) {
    const row = await findRequest(db, id);
    if (!row) throw notFound('Approval request');
    refuseImpersonation(user, 'A signature');
    if (row.status !== 'pending') throw stateError('request_closed', `The request is ${row.status}; a finished request cannot be changed.`);
    const stage = await db.selectFrom('approval_request_stages').selectAll().where('approval_requestid', '=', id).where('status', '=', 'pending').executeTakeFirst();
    if (!stage) throw stateError('request_closed', 'The request has no stage to sign.');
    const refusal = await canSign(db, user, row, stage);
    if (refusal === 'not_signer') throw forbidden('You are not a signer of the current stage of this request.', 'not_signer');
    if (refusal === 'already_signed') throw stateError('already_signed', 'You already signed this stage.');
    if (refusal === 'repeated_signature') throw stateError('repeated_signature', 'This process does not allow one person to sign several stages of a request.');
    const proved = await proof(row, stage.approval_request_stageid);
    if (!proved.ok) {
      throw forbidden(method === 'password' ? 'The password is incorrect.' : 'The signing token is not valid for you, this request and its current stage (or was used, or expired).', method === 'password' ? 'wrong_password' : 'invalid_token');
    }
    try {
      await db.transaction().execute(async (trx) => {
        if (proved.tokenHash !== undefined) {
          // Spent in the signature's transaction: of two uses, one wins.
          const spent = await trx.updateTable('approval_sign_tokens').set({ used_date: clock.now() }).where('token_hash', '=', proved.tokenHash).where('used_date', 'is', null).executeTakeFirst();
          if (Number(spent.numUpdatedRows) !== 1) throw forbidden('The signing token was already used.', 'invalid_token');
        }
        await signRequest(trx, config, clock, row, stage, user, { status: body.status, notes: body.notes ?? '', method });
      });
    } catch (err) {
      if (err instanceof RequestClosed) throw stateError('request_closed', 'The request was finished meanwhile; a finished request cannot be changed.');
      if (err instanceof StageMoved) throw stateError('stage_moved', 'The request moved to another stage meanwhile; read it again.');
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (err as { code?: string }).code === '23505') throw stateError('already_signed', 'You already signed this stage.');
      throw err;
    }
    return oneRequest(id);
  }

  app.post('/approvals/request/sign/:approval_requestid', {
    config: { auth: 'user', rateLimit: limited },
    schema: {
      tags: TAG,
      summary: 'Sign the current stage of an approval request',
      description: 'Body `{"status": "approve" | "reject", "notes", "password"}`: the caller\'s password, re-entered, is the signature (403 `wrong_password` and nothing recorded when it is wrong; rate limited like logging in, 429). A user stage is signed by its user; a team stage by `num_required` distinct members. Without `allow_repeated_signatures` nobody signs two stages of one request (422 `repeated_signature`). A rejection ends the request `rejected`; the approval completing the last stage makes the release `released`. A finished request is never changed (422 `request_closed`). Answers the request.',
      params: RequestParam,
      body: SignBody,
      // A transition of the request (its current stage is signed once by this user): the reliability suites race it as one.
      'x-transition': true,
      response: { 200: ApprovalRequest, ...errorResponses(401, 403, 404, 422, 429) },
    },
  }, async (request) => {
    const user = requireUser(request);
    return sign(user, request.params.approval_requestid, request.body, 'password', async () => {
      const row = await db.selectFrom('users').select('password_hash').where('userid', '=', user.userid).executeTakeFirst();
      const stored = row?.password_hash || dummyHash;
      const ok = await verifyPassword(request.body.password, stored);
      return { ok: ok && !!row?.password_hash };
    });
  });

  app.post('/approvals/request/sign/:approval_requestid/token', {
    config: { auth: 'user', rateLimit: limited },
    schema: {
      tags: TAG,
      summary: 'Sign the current stage of an approval request with a signing token',
      description: 'For accounts without a password (single sign-on). When a stage becomes current, each of its signers is mailed a single-use token for that request and stage (stored hashed; valid for APPROVAL_TOKEN_TTL, 7 days by default); body `{"status", "notes", "token"}`, sent with the signer\'s own auth token. A token works once, only for the user it was mailed to, only while its stage is current (403 `invalid_token` otherwise, nothing recorded). Rate limited like logging in. Otherwise as `POST /approvals/request/sign/{id}`.',
      params: RequestParam,
      body: SignTokenBody,
      // A transition of the request (its current stage is signed once by this user): the reliability suites race it as one.
      'x-transition': true,
      response: { 200: ApprovalRequest, ...errorResponses(401, 403, 404, 422, 429) },
    },
  }, async (request) => {
    const user = requireUser(request);
    return sign(user, request.params.approval_requestid, request.body, 'token', async (row, stageid) => {
      const hash = hashToken(request.body.token);
      const t = await db.selectFrom('approval_sign_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
      const ok = !!t && t.approval_requestid === row.approval_requestid && t.userid === user.userid && t.approval_request_stageid === stageid
        && t.used_date === null && t.expires_date > clock.now();
      return { ok, tokenHash: hash };
    });
  });

  app.post('/approvals/request/:approval_requestid/cancel', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Cancel a pending approval request (extension)',
      description: 'Admins, for example for a request whose current stage can no longer be signed (`is_satisfiable: false`). The request and its release end `cancelled`; a finished request is never changed (422 `request_closed`). Answers the request.',
      // A state change of the request: the reliability suites race it as one.
      'x-transition': true,
      params: RequestParam,
      response: { 200: ApprovalRequest, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    forbiddenUnless(canCancelRequest(user), 'Only Admins may cancel a request.');
    const row = await findRequest(db, request.params.approval_requestid);
    if (!row) throw notFound('Approval request');
    if (row.status !== 'pending') throw stateError('request_closed', `The request is ${row.status}; a finished request cannot be changed.`);
    try {
      await db.transaction().execute((trx) => cancelRequest(trx, clock, user, row));
    } catch (err) {
      if (err instanceof RequestClosed || err instanceof StageMoved) throw stateError('request_closed', 'The request changed meanwhile; read it again.');
      throw err;
    }
    return oneRequest(row.approval_requestid);
  });
}
