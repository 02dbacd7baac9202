// Who is calling, and may they. Every API route declares `config.auth`; a route
// without it refuses to register. The token is resolved once per request, in onRequest,
// so that an unauthenticated request is refused before its body is even validated.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { forbidden, unauthorized } from './errors.js';
import { hashToken } from './passwords.js';

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
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: Access;
  }
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

export function parsePrivileges(s: string): Privilege[] {
  return s.split(',').filter((p): p is Privilege => (PRIVILEGES as readonly string[]).includes(p));
}

export function hasPrivilege(user: AuthUser | null | undefined, privilege: Privilege): boolean {
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

function tokenFrom(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(api|bearer)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : null;
}

export async function resolveToken(db: Kysely<Database>, token: string, now: number): Promise<AuthUser | null> {
  const hash = hashToken(token);
  const row = await db
    .selectFrom('tokens')
    .innerJoin('users', 'users.userid', 'tokens.userid')
    .select(['users.userid', 'users.username', 'users.privileges', 'users.enabled', 'users.banned', 'tokens.expires_date', 'tokens.revoked_date', 'tokens.impersonated_by'])
    .where('tokens.token_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.revoked_date !== null || row.expires_date <= now || !row.enabled || row.banned > 0) return null;
  return { userid: row.userid, username: row.username, privileges: parsePrivileges(row.privileges), tokenHash: hash, impersonatedBy: row.impersonated_by };
}

const ACCESS_TEXT: Record<Access, string> = {
  none: 'Access: anyone (a token, when sent, must be valid).',
  user: 'Access: any logged-in user.',
  author: 'Access: Authors and Admins.',
  moderator: 'Access: Moderators and Admins.',
  admin: 'Access: Admins only.',
};

export function registerAuth(app: FastifyInstance, deps: { db: Kysely<Database>; clock: Clock; basePath: string }) {
  app.decorateRequest('user', null);

  // Every API route must say who may call it; the OpenAPI document says it too.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(deps.basePath) || route.method === 'HEAD' || (route.schema as any)?.hide) return;
    const access = route.config?.auth;
    if (!access) throw new Error(`route ${route.method} ${route.url} declares no config.auth`);
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.description = [schema.description, ACCESS_TEXT[access]].filter(Boolean).join('\n\n');
    if (access !== 'none') schema.security = [{ apiToken: [] }];
    (schema as any)['x-access'] = access;
  });

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.auth;
    if (!access) return; // not an API route: health checks, docs, unknown paths
    const token = tokenFrom(request.headers.authorization);
    if (token === null) throw unauthorized('The Authorization header must be "api <token>".', 'invalid_token');
    if (token !== undefined) {
      const user = await resolveToken(deps.db, token, deps.clock.now());
      if (!user) throw unauthorized('The token is invalid, expired or revoked.', 'invalid_token');
      request.user = user;
    }
    if (access === 'none') return;
    if (!request.user) throw unauthorized();
    if (access !== 'user') requireRole(request, LEVEL_PRIVILEGE[access]);
  });
}
