// Tokens, registration and password resets (the specification's Authentication part).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, Empty, Id } from '../../http/schemas.js';
import { forbidden, HttpError, invalidField, missingField, notFound, unauthorized } from '../../http/errors.js';
import { hashToken, hashPassword } from '../../http/passwords.js';
import { isAdmin, requireUser } from '../../http/auth.js';
import { AppIdHeader, Email, Password, UniqueUsername, UserWithToken } from './users.schemas.js';
import { findUser, type UserRow } from './users.queries.js';
import { userSelfRecord } from './users.records.js';
import { checkCredentials, createUser, issueToken, setPassword, startPasswordReset } from './users.service.js';
import { clearSessionCookie, mayStartSession, sessionCookieOf, setSessionCookie } from '../../http/session.js';
import { audit, requestActor, type AuditEvent } from '../../audit/audit.js';

const TAG = ['Authentication'];

export async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const limited = { max: config.loginRateLimit, timeWindow: 60_000 };

  /** `X-App-Id` must name a configured app, when any are configured and always with public registration (the specification). */
  function checkAppId(request: FastifyRequest) {
    if (config.appIds.length === 0 && !config.publicRegistration) return;
    const id = request.headers['x-app-id'];
    if (typeof id !== 'string' || !config.appIds.includes(id)) throw new HttpError(401, 'invalid_app_id', 'A valid X-App-Id header is required.');
  }

  /**
   * The user's record with a new token; `reply`: sets the session cookie when one was issued;
   * `audited`: the token is issued in a transaction with this audit entry (a login, an impersonation);
   * `known`: the account's row as the caller read it (a login: with the hash it checked), not read again.
   */
  async function withToken(userid: number, opts: Parameters<typeof issueToken>[4] = {}, reply?: FastifyReply, audited?: AuditEvent, known?: UserRow) {
    const row = known ?? await findUser(db, userid);
    if (!row) throw notFound('User');
    const { token, expires, session } = audited
      ? await db.transaction().execute(async (trx) => {
        const issued = await issueToken(trx, config, clock, userid, opts);
        await audit(trx, audited);
        return issued;
      })
      : await issueToken(db, config, clock, userid, opts);
    if (reply && session) setSessionCookie(reply, config.publicUrl, session, expires - clock.now());
    return { ...(await userSelfRecord(db, config, fastify.badges, row)), authToken: token, token_expires: expires };
  }

  app.post('/user/token', {
    config: { auth: 'none', openOnPrivateSite: true, loginAttempts: true },
    schema: {
      tags: TAG,
      summary: 'Log in: create a token from credentials',
      description: 'Send `email` (or `login`: an e-mail or unique username) and `password`, with `X-App-Id` where the site requires one (sites with public registration, or with APP_IDS set; 401 `invalid_app_id` otherwise). Wrong credentials answer 401 without saying which was wrong. Rate limited per client address, one count with the trainers\' passwords of initializeViaPassword (429 `rate_limited` with Retry-After), and per account: after LOGIN_ACCOUNT_FAILURES wrong passwords in a row, each next attempt waits a growing delay (429 `login_delayed` with Retry-After before it ends).',
      body: Type.Object({
        email: Type.Optional(Type.String({ maxLength: 254 })),
        login: Type.Optional(Type.String({ maxLength: 254 })),
        password: Type.String({ maxLength: 200 }),
      }),
      headers: AppIdHeader,
      response: { 201: UserWithToken, ...errorResponses(401, 403, 422, 429) },
    },
  }, async (request, reply) => {
    checkAppId(request);
    const login = request.body.email ?? request.body.login;
    if (!login) throw missingField('email');
    // Audited: the account when there is one (never the login string), and the request.
    const attempt = (action: 'user.login' | 'user.login_failed', userid: number | null): AuditEvent => ({
      action, actor: requestActor(request, userid), time: clock.now(), resource_type: 'user', resource_id: userid ?? '',
    });
    const user = await checkCredentials(db, config, login, request.body.password, app.loginAttempts,
      (userid) => db.transaction().execute((trx) => audit(trx, attempt('user.login_failed', userid))));
    // The version read with the hash just checked: a password change committed meanwhile ends this token.
    // The session cookie too, unless a page of another origin sent the login.
    const session = mayStartSession(request, config.publicUrl);
    return reply.status(201).send(await withToken(user.userid, { credentialsVersion: user.credentials_version, session }, reply, attempt('user.login', user.userid), user));
  });

  app.delete('/user/token', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Log out: revoke the token in use', response: { 204: Empty, ...errorResponses(401) } },
  }, async (request, reply) => {
    const user = requireUser(request);
    await db.updateTable('tokens').set({ revoked_date: clock.now() }).where('token_hash', '=', user.tokenHash).execute();
    // The session cookie ended with its token; the browser forgets it too.
    if (sessionCookieOf(request) !== undefined) clearSessionCookie(reply, config.publicUrl);
    return reply.status(204).send(null);
  });

  app.post('/user/token/impersonate', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Create a token for another user without a password',
      body: Type.Object({ userid: Id() }),
      response: { 201: UserWithToken, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const admin = requireUser(request);
    const impersonated: AuditEvent = { action: 'user.impersonated', actor: admin, time: clock.now(), resource_type: 'user', resource_id: request.body.userid };
    return reply.status(201).send(await withToken(request.body.userid, { impersonatedBy: admin.userid }, undefined, impersonated));
  });

  app.post('/users', {
    config: { auth: 'none', openOnPrivateSite: 'publicRegistration', rateLimit: limited },
    schema: {
      tags: TAG,
      summary: 'Register a new account',
      description: 'With public registration off, only an Admin may call it. Sends `X-App-Id` where the site requires one (sites with public registration, or with APP_IDS set; 401 `invalid_app_id` otherwise). Answers the new user with a token for them. A duplicate e-mail or unique username is a 422 naming the field (code `duplicate`).',
      body: Type.Object({
        email: Email,
        password: Password,
        username: Type.String({ minLength: 1, maxLength: 100 }),
        unique_username: Type.Optional(UniqueUsername),
      }),
      headers: AppIdHeader,
      response: { 201: UserWithToken, ...errorResponses(401, 403, 422, 429) },
    },
  }, async (request, reply) => {
    checkAppId(request);
    if (!config.publicRegistration && !isAdmin(request.user)) {
      throw request.user ? forbidden('Registration is closed; only an Admin may create accounts.') : unauthorized('Registration is closed; log in as an Admin.');
    }
    const { email, password, username, unique_username } = request.body;
    if (!username.trim()) throw invalidField('username', 'username must not be blank.');
    const userid = await db.transaction().execute((trx) =>
      createUser(trx, config, clock, { email, password, username: username.trim(), unique_username, created_by: request.user?.userid ?? null, actor: request.user ?? requestActor(request) }));
    return reply.status(201).send(await withToken(userid));
  });

  const ResetAnswer = Type.Object({ message: Type.String() });
  app.post('/users/reset_password', {
    config: { auth: 'none', openOnPrivateSite: true, rateLimit: limited },
    schema: {
      tags: TAG,
      summary: 'Request a password reset e-mail',
      description: 'Always answers 200 with the same body, whether or not an account exists. When one does, a single-use token valid for an hour is mailed to it; complete the reset with `POST /users/reset_password/complete`.',
      body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }),
      response: { 200: ResetAnswer, ...errorResponses(422, 429) },
    },
  }, async (request) => {
    const user = await db.selectFrom('users').select(['userid', 'email', 'username', 'enabled']).where('email', '=', request.body.email.trim().toLowerCase()).executeTakeFirst();
    if (user?.enabled) await db.transaction().execute((trx) => startPasswordReset(trx, config, clock, user));
    return { message: 'If an account exists for this address, a reset link has been sent to it.' };
  });

  app.post('/users/reset_password/complete', {
    config: { auth: 'none', openOnPrivateSite: true, rateLimit: limited },
    schema: {
      tags: TAG,
      summary: 'Complete a password reset (extension)',
      description: 'Extension: takes the token from the reset e-mail and a new password. The token works once and for an hour; completing it ends every other reset token and every existing auth token of the account. Answers the user with a new auth token.',
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }),
      // A state change of the account (its outstanding resets end), not a creation: the reliability suites race it as one.
      'x-transition': true,
      response: { 200: UserWithToken, ...errorResponses(422, 429) },
    },
  }, async (request) => {
    const now = clock.now();
    const hash = hashToken(request.body.token);
    const password_hash = await hashPassword(request.body.password, config.passwordHashCost);
    const userid = await db.transaction().execute(async (trx) => {
      // Marking it used in the same statement that checks it makes the token single-use under races.
      const used = await trx.updateTable('password_resets').set({ used_date: now })
        .where('token_hash', '=', hash).where('used_date', 'is', null).where('expires_date', '>', now)
        .returning('userid').executeTakeFirst();
      if (!used) throw invalidField('token', 'The reset token is invalid, used or expired.');
      await setPassword(trx, clock, used.userid, password_hash);
      await audit(trx, { action: 'user.password_reset', actor: requestActor(request, used.userid), time: now, resource_type: 'user', resource_id: used.userid, changes: { password: {} } });
      return used.userid;
    });
    return withToken(userid);
  });
}
