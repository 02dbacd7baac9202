// Who is calling, and may they. Every API route declares `config.auth`; a route
// without it refuses to register. The token is resolved once per request, in onRequest,
// so that an unauthenticated request is refused before its body is even validated.
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { TransactionBuilder, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { forbidden, unauthorized } from './errors.js';
import { hashToken } from './passwords.js';
import { isPostgres } from '../db/helpers.js';
import { prepared } from '../db/prepared.js';
import { clearSessionCookie, fromOwnOrigin, isSafeMethod, sessionCookieOf } from './session.js';

export const PRIVILEGES = ['Admin', 'Author', 'Moderator', 'User'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

/**
 * What a route needs: `none` (anyone; a token, if sent, must be valid), `user` (any
 * logged-in account), or a privilege. Admin satisfies every level. Checks that depend
 * on the resource (owner, team lead, collaborator) live in the handler.
 */
export type Access = 'none' | 'user' | 'author' | 'moderator' | 'admin';

export interface AuthUser {
  userid: number;
  username: string;
  privileges: Privilege[];
  tokenHash: string;
  /** The Admin behind an impersonation token. */
  impersonatedBy: number | null;
  /** Authenticated by the `session_cp` cookie (http/session.ts), not by an Authorization header. */
  viaSession?: boolean;
  /** The request that carries this user: its id and client address, for the audit log (audit/audit.ts). */
  request?: { readonly id: string; readonly ip: string };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: Access;
    /**
     * An `auth: 'none'` API route that a private site (PRIVATE_SITE) leaves open to anonymous
     * callers: logging in, resets, the API index, routes authenticated by a token in their
     * URL; `publicRegistration` only when registration is public. Every other one needs a login there.
     */
    openOnPrivateSite?: true | 'publicRegistration';
    /** A route outside the API (a page, a file) that reads the browser session (`request.user`) without requiring it. */
    session?: boolean;
  }
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

export function parsePrivileges(s: string): Privilege[] {
  return s.split(',').filter((p): p is Privilege => (PRIVILEGES as readonly string[]).includes(p));
}

export function hasPrivilege(user: Pick<AuthUser, 'privileges'> | null | undefined, privilege: Privilege): boolean {
  if (!user) return false;
  return user.privileges.includes('Admin') || user.privileges.includes(privilege);
}

export const isAdmin = (user: AuthUser | null | undefined) => hasPrivilege(user, 'Admin');

const LEVEL_PRIVILEGE: Record<Exclude<Access, 'none' | 'user'>, Privilege> = {
  author: 'Author',
  moderator: 'Moderator',
  admin: 'Admin',
};

/** The logged-in user, or 401. For handlers of `auth: 'none'` routes that need one after all. */
export function requireUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw unauthorized();
  return request.user;
}

/** 403 unless the caller has the privilege (Admin always has). */
export function requireRole(request: FastifyRequest, privilege: Privilege): AuthUser {
  const user = requireUser(request);
  if (!hasPrivilege(user, privilege)) throw forbidden(`This operation needs the ${privilege} privilege.`);
  return user;
}

/** 403 unless the caller is `userid` or an Admin. */
export function requireSelfOrAdmin(request: FastifyRequest, userid: number): AuthUser {
  const user = requireUser(request);
  if (user.userid !== userid && !isAdmin(user)) throw forbidden();
  return user;
}

/** The token of an Authorization header; undefined when there is none (an empty header is none: what a logged-out client sends), null when it is malformed. */
export function tokenFrom(header: string | undefined): string | null | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^\s*(api|bearer)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : null;
}

interface TokenRow {
  expires_date: number;
  revoked_date: number | null;
  enabled: number;
  banned: number;
  token_version: number;
  user_version: number;
  impersonated_by: number | null;
  impersonator_privileges: string | null;
  impersonator_enabled: number | null;
  impersonator_banned: number | null;
}

/**
 * The token rules, all in one place (docs/development.md, "Tokens and accounts"). A token works while
 * it is neither revoked nor expired, its account is enabled and not banned, it carries
 * the account's current credentials version (a password change or reset that committed
 * after the token's password was checked ends it), and, when it was made by
 * impersonation, its impersonator is still an enabled, unbanned Admin.
 */
function tokenWorks(row: TokenRow, now: number): boolean {
  if (row.revoked_date !== null || row.expires_date <= now) return false;
  if (!row.enabled || row.banned > 0) return false;
  if (row.token_version !== row.user_version) return false;
  if (row.impersonated_by === null) return true;
  return row.impersonator_enabled === 1 && !(Number(row.impersonator_banned) > 0) && parsePrivileges(row.impersonator_privileges ?? '').includes('Admin');
}

/**
 * The user a token (by its hash) stands for, or null when it does not work. One query,
 * whatever the token: the impersonator comes along in the same lookup. With `lock`
 * (PostgreSQL; SQLite serializes write transactions anyway) the token's row stays
 * share-locked until the transaction ends, so a logout waits for it rather than slipping
 * in before it commits. (Only the token's row: the transaction may go on to write the
 * user's, and two uploads upgrading a shared lock on it would deadlock.)
 */
/** The token's row with its user's (and impersonator's): the query every authenticated request runs. */
function tokenQuery(db: Kysely<Database>, hash: string) {
  return db
    .selectFrom('tokens')
    .innerJoin('users', 'users.userid', 'tokens.userid')
    .leftJoin('users as impersonator', 'impersonator.userid', 'tokens.impersonated_by')
    .select([
      'tokens.token_hash', 'users.userid', 'users.username', 'users.privileges', 'users.enabled', 'users.banned', 'users.credentials_version as user_version',
      'tokens.expires_date', 'tokens.revoked_date', 'tokens.impersonated_by', 'tokens.credentials_version as token_version',
      'impersonator.privileges as impersonator_privileges', 'impersonator.enabled as impersonator_enabled', 'impersonator.banned as impersonator_banned',
    ])
    .where('tokens.token_hash', '=', hash);
}
type TokenJoinRow = NonNullable<Awaited<ReturnType<ReturnType<typeof tokenQuery>['executeTakeFirst']>>>;
const tokenRow = prepared<{ hash: string }, TokenJoinRow>('token_row', (db, arg) => tokenQuery(db, arg('hash')));
/** The same row found by the hash of the session cookie tied to the token. */
const sessionRow = prepared<{ hash: string }, TokenJoinRow>('token_row_by_session', (db, arg) => tokenQuery(db, '').clearWhere().where('tokens.session_hash', '=', arg('hash')));

function authUserOf(row: TokenJoinRow, now: number, viaSession: boolean): AuthUser | null {
  if (!tokenWorks(row, now)) return null;
  return { userid: row.userid, username: row.username, privileges: parsePrivileges(row.privileges), tokenHash: row.token_hash, impersonatedBy: row.impersonated_by, viaSession };
}

async function lookupToken(db: Kysely<Database>, hash: string, now: number, lock = false): Promise<AuthUser | null> {
  // Inside a write that must hold the token (reauthorize) the row is locked; else prepared.
  const row = lock ? await (isPostgres(db) ? tokenQuery(db, hash).forShare(['tokens']) : tokenQuery(db, hash)).executeTakeFirst() : (await tokenRow(db, { hash }))[0];
  return row ? authUserOf(row, now, false) : null;
}

/** The user a session cookie stands for: its token's, while that token works (the same rule). */
export async function resolveSession(db: Kysely<Database>, cookie: string, now: number): Promise<AuthUser | null> {
  const row = (await sessionRow(db, { hash: hashToken(cookie) }))[0];
  return row ? authUserOf(row, now, true) : null;
}

export function resolveToken(db: Kysely<Database>, token: string, now: number): Promise<AuthUser | null> {
  return lookupToken(db, hashToken(token), now);
}

/** 401 without a caller where the route needs one (403 `csrf_origin` when a session cookie was refused for it); 403 below the route's level. */
function checkAccess(request: FastifyRequest, access: Access) {
  if (access === 'none') return;
  if (!request.user && crossSiteSession.has(request)) throw forbidden('A request authenticated by the session cookie alone must come from this site\'s own pages (Origin or Referer); send the token in Authorization instead.', 'csrf_origin');
  if (!request.user) throw unauthorized();
  if (access !== 'user') requireRole(request, LEVEL_PRIVILEGE[access]);
}

/**
 * Checks the caller's token again inside `trx`, for requests that write long after their
 * token was checked (uploads, image edits): a token revoked, expired or changed meanwhile
 * (logout, password change, demotion) is a 401 and `trx` stores nothing. Call it in every
 * transaction such a request commits; `reauthorizing(request, db)` does that for a whole
 * service call.
 */
export async function reauthorize(request: FastifyRequest, trx: Kysely<Database>): Promise<void> {
  const before = request.user;
  if (!before) return; // an anonymous request has no token to lose
  const user = await lookupToken(trx, before.tokenHash, request.server.clock.now(), true);
  if (!user || user.userid !== before.userid) throw unauthorized('The token was revoked or expired while the request ran.', 'invalid_token');
  request.user = { ...user, viaSession: before.viaSession, request: before.request };
  checkAccess(request, request.routeOptions.config?.auth ?? 'user');
}

/**
 * `db` as a long request should write with it: every transaction begun through it calls
 * `reauthorize(request, trx)` first. For service functions that open their own
 * transactions (the upload paths of src/areas/media), so that the route needs one call.
 */
export function reauthorizing(request: FastifyRequest, db: Kysely<Database>): Kysely<Database> {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') return () => checkedFirst(target.transaction(), (trx) => reauthorize(request, trx));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A transaction builder whose transaction runs `check` before the work (also after setIsolationLevel and the like). */
function checkedFirst(builder: TransactionBuilder<Database>, check: (trx: Kysely<Database>) => Promise<void>): TransactionBuilder<Database> {
  return new Proxy(builder, {
    get(target, prop) {
      if (prop === 'execute') return <T>(fn: (trx: Kysely<Database>) => Promise<T>) => target.execute(async (trx) => { await check(trx); return fn(trx); });
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        return out instanceof TransactionBuilder ? checkedFirst(out, check) : out;
      };
    },
  });
}

const ACCESS_TEXT: Record<Access, string> = {
  none: 'Access: anyone (a token, when sent, must be valid).',
  user: 'Access: any logged-in user.',
  author: 'Access: Authors and Admins.',
  moderator: 'Access: Moderators and Admins.',
  admin: 'Access: Admins only.',
};

/** A rate-limited route (rate-limits.ts, or the login limiter of login-attempts.ts). */
const countsAttempts = (config: { rateLimit?: unknown; loginAttempts?: true } | undefined) => Boolean(config?.rateLimit || config?.loginAttempts);

/** Requests that came with a working session cookie that the CSRF rule refused (they are anonymous). */
const crossSiteSession = new WeakSet<FastifyRequest>();

export function registerAuth(app: FastifyInstance, deps: { db: Kysely<Database>; clock: Clock; basePath: string; config: Pick<Config, 'privateSite' | 'publicRegistration' | 'publicUrl'> }) {
  app.decorateRequest('user', null);
  const { privateSite, publicRegistration, publicUrl } = deps.config;

  // A rate-limited route (logins, signatures) counts the attempt before refusing it: its
  // access is checked after the limiter (a route-level onRequest hook), in a preValidation
  // hook of its own, so that a client without a token is limited too. Only those routes carry
  // it: a route with no hook of a kind skips that stage's runner.
  const checkAccessAfterLimit: preValidationHookHandler = (request, _reply, done) => {
    try {
      checkAccess(request, request.routeOptions.config.auth!);
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
  // Every API route must say who may call it; the OpenAPI document says it too.
  app.addHook('onRoute', (route) => {
    // A private site: what anyone may call needs a login, but for the routes that say otherwise.
    const open = route.config?.openOnPrivateSite;
    if (privateSite && route.config?.auth === 'none' && !(open === true || (open === 'publicRegistration' && publicRegistration))) route.config = { ...route.config, auth: 'user' };
    if (route.config?.auth && countsAttempts(route.config)) route.preValidation = [...[route.preValidation ?? []].flat(), checkAccessAfterLimit];
    if (!route.url.startsWith(deps.basePath) || route.method === 'HEAD' || (route.schema as any)?.hide) return;
    const access = route.config?.auth;
    if (!access) throw new Error(`route ${route.method} ${route.url} declares no config.auth`);
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.description = [schema.description, ACCESS_TEXT[access]].filter(Boolean).join('\n\n');
    // Security on every operation; a public one takes a token optionally (`{}`: none is needed).
    schema.security = access === 'none' ? [{}, { apiToken: [] }] : [{ apiToken: [] }];
    (schema as any)['x-access'] = access;
  });

  /**
   * The caller of a request without an Authorization header, from the session cookie: a
   * cookie that no longer works is cleared (logout, revocation, expiry) and the request is
   * anonymous; one that works on a request that changes something, sent from another
   * origin, is not used (CSRF; checkAccess then says `csrf_origin`).
   */
  const fromSession = async (request: FastifyRequest, reply: FastifyReply, cookie: string) => {
    const user = await resolveSession(deps.db, cookie, deps.clock.now());
    if (!user) return clearSessionCookie(reply, publicUrl);
    if (!isSafeMethod(request.method) && !fromOwnOrigin(request, publicUrl)) return void crossSiteSession.add(request);
    user.request = request;
    request.user = user;
  };

  // Who calls, in the one onRequest hook (app.ts). Callback style: a request without a
  // token (most public reads) costs no promise.
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const config = request.routeOptions.config;
    const access = config?.auth;
    if (!access) {
      // Not an API route: health checks, docs, unknown paths; pages and files may read the session.
      const cookie = config?.session && isSafeMethod(request.method) ? sessionCookieOf(request) : undefined;
      if (cookie === undefined) return done();
      return void fromSession(request, reply, cookie).then(() => done(), (err: Error) => done(err));
    }
    // A rate-limited route's access is checked after its limiter (checkAccessAfterLimit).
    const finish = () => {
      if (!countsAttempts(config)) checkAccess(request, access);
    };
    const token = tokenFrom(request.headers.authorization);
    if (token === null) return done(unauthorized('The Authorization header must be "api <token>".', 'invalid_token'));
    if (token === undefined) {
      const cookie = sessionCookieOf(request);
      if (cookie !== undefined) return void fromSession(request, reply, cookie).then(finish).then(() => done(), (err: Error) => done(err));
      try {
        finish();
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    resolveToken(deps.db, token, deps.clock.now()).then((user) => {
      if (!user) throw unauthorized('The token is invalid, expired or revoked.', 'invalid_token');
      user.request = request;
      request.user = user;
      finish();
    }).then(() => done(), (err: Error) => done(err));
  };
}
