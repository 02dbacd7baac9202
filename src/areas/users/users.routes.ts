// Users: the current user, the user list, profiles, lookups, badges and bulk creation.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit, StringEnum, Id } from '../../http/schemas.js';
import { forbidden, invalidField, missingField, notFound } from '../../http/errors.js';
import { isAdmin, requireSelfOrAdmin, requireUser, type Privilege } from '../../http/auth.js';
import { hashPassword, verifyPassword } from '../../http/passwords.js';
import { fromBool, isUniqueViolation } from '../../db/helpers.js';
import { searchDocs } from '../../db/search.js';
import { Badge, SearchQuery, UniqueUsername, UserDetail, UserListItem, UserPatch, UserSelf, UserSummary, UserListQuery } from './users.schemas.js';
import { createdUsers, enabledUsersIn, findUser, findUserBy, listUsers, takenUsernames, toUserSummaries, type UserRow } from './users.queries.js';
import { userDetailRecord, userSelfRecord } from './users.records.js';
import { earnedBadges } from './badges.js';
import { createUsersByEmail, endPasswordResets, revokeImpersonations, setPassword, updateUserRow } from './users.service.js';
import { checkMediaRefs } from '../media/media.access.js';
import { auditUserChanges } from './users.audit.js';

const TAG = ['Users'];
const UseridParam = Type.Object({ userid: Id() });

export async function usersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function existingUser(userid: number): Promise<UserRow> {
    const row = await findUser(db, userid);
    if (!row) throw notFound('User');
    return row;
  }

  app.get('/user', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'The logged-in user', response: { 200: UserSelf, ...errorResponses(401) } },
  }, async (request) => userSelfRecord(db, config, fastify.badges, await existingUser(requireUser(request).userid)));

  app.get('/users', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'List users, ordered by userid',
      querystring: UserListQuery,
      response: { 200: Type.Array(UserListItem), ...errorResponses(422) },
    },
  }, async (request) => {
    return toUserSummaries(db, config, await listUsers(db, request.query));
  });

  app.get('/users/:userid', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'One user', params: UseridParam, response: { 200: UserDetail, ...errorResponses(404, 422) } },
  }, async (request) => userDetailRecord(db, config, fastify.badges, await existingUser(request.params.userid)));

  app.patch('/users/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Update a user',
      description: 'The user themself or an Admin. `privileges`, `enabled`, `banned`, `sso_userid`, `employee_id` and `permissions` (extension: `manage-external-training-module`) are Admin only (403 otherwise). Changing one\'s own e-mail or password needs `current_password`. A new password ends every other token of the account; a new password or e-mail ends every outstanding reset token; an Admin who loses Admin, is disabled or banned loses every token they made by impersonation. Answers the updated user.',
      params: UseridParam,
      body: UserPatch,
      response: { 200: UserDetail, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const caller = requireSelfOrAdmin(request, request.params.userid);
    const row = await existingUser(request.params.userid);
    const b = request.body;
    const admin = isAdmin(caller);
    for (const field of ['privileges', 'enabled', 'banned', 'sso_userid', 'employee_id', 'permissions'] as const) {
      if (b[field] !== undefined && !admin) throw forbidden(`Only an Admin may change ${field}.`);
    }
    if ((b.email !== undefined || b.password !== undefined) && !admin) {
      if (b.current_password === undefined) throw missingField('current_password');
      if (!(await verifyPassword(b.current_password, row.password_hash))) throw invalidField('current_password', 'The current password is incorrect.');
    }
    const set: Record<string, unknown> = {};
    if (b.username !== undefined) {
      if (!b.username.trim()) throw invalidField('username', 'username must not be blank.');
      set.username = b.username.trim();
      set.username_lower = b.username.trim().toLowerCase();
    }
    if (b.unique_username !== undefined) set.unique_username = b.unique_username;
    if (b.about !== undefined) set.about = b.about;
    if (b.location !== undefined) set.location = b.location;
    if (b.email !== undefined) set.email = b.email.trim().toLowerCase();
    const passwordHash = b.password === undefined ? null : await hashPassword(b.password, config.passwordHashCost);
    if (b.imageid !== undefined) {
      // An avatar is one of the user's own images, so nobody else's delete is ever blocked by it.
      if (b.imageid !== null) await checkMediaRefs(db, caller, [{ kind: 'image', id: b.imageid, field: 'imageid' }], { ownedBy: row.userid });
      set.imageid = b.imageid;
    }
    if (b.privileges !== undefined) {
      if (caller.userid === row.userid && !b.privileges.includes('Admin')) throw invalidField('privileges', 'An Admin cannot remove their own Admin privilege.');
      set.privileges = [...new Set(b.privileges)].join(',');
    }
    if (b.permissions !== undefined) set.permissions = [...new Set(b.permissions)].join(',');
    if (b.enabled !== undefined) set.enabled = fromBool(b.enabled);
    // As the record shows it (a UNIX time, 0: not banned), or true (banned now, or since when it was) and false.
    if (b.banned !== undefined) set.banned = typeof b.banned === 'number' ? b.banned : b.banned ? row.banned || clock.now() : 0;
    if (b.sso_userid !== undefined) set.sso_userid = b.sso_userid;
    if (b.employee_id !== undefined) set.employee_id = b.employee_id;
    // An Admin who loses Admin, is disabled or banned: the tokens they made by impersonation end.
    const losesImpersonations = (b.privileges !== undefined && !b.privileges.includes('Admin')) || b.enabled === false || Number(set.banned ?? 0) > 0;
    if (Object.keys(set).length > 0 || passwordHash) {
      try {
        await db.transaction().execute(async (trx) => {
          await updateUserRow(trx, row.userid, set);
          await auditUserChanges(trx, caller, clock.now(), row, set, passwordHash !== null);
          // A new password ends every other session and every reset token; a new address, every reset token.
          if (passwordHash) await setPassword(trx, clock, row.userid, passwordHash, caller.tokenHash);
          else if (set.email !== undefined && set.email !== row.email) await endPasswordResets(trx, clock, row.userid);
          if (losesImpersonations) await revokeImpersonations(trx, clock, row.userid);
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        const field = ['email', 'unique_username', 'sso_userid', 'employee_id'].find((f) => set[f] !== undefined && String(err).includes(f)) ??
          ['email', 'unique_username', 'sso_userid', 'employee_id'].find((f) => set[f] !== undefined) ?? 'email';
        throw invalidField(field, `This ${field} is already used by another account.`, 'duplicate');
      }
    }
    return userDetailRecord(db, config, fastify.badges, await existingUser(row.userid));
  });

  async function searchUsers(search: string, offset: number, limit: number) {
    // The site's full-text index (src/db/search.ts): every word of the search starts a
    // word of the display name or the unique username; names that start with the search first.
    const hits = await searchDocs(db, search, { targets: [{ type: 'user' }] }, { offset, limit });
    if (hits.length === 0) return [];
    const rows = await enabledUsersIn(db, hits.map((h) => h.id));
    const byId = new Map(rows.map((r) => [r.userid, r]));
    return toUserSummaries(db, config, hits.map((h) => byId.get(h.id)).filter((r): r is UserRow => r !== undefined));
  }

  const SearchParam = Type.Object({ search: Type.String({ minLength: 1, maxLength: 100 }) });
  app.get('/users/search/:search', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'Users whose names match the search text', description: 'Every word of the search starts a word of the display name or the unique username; names that start with the search come first. Enabled accounts only.', params: SearchParam, querystring: SearchQuery, response: { 200: Type.Array(UserSummary), ...errorResponses(422) } },
  }, async (request) => searchUsers(request.params.search, request.query.offset, request.query.limit));

  app.get('/users/searchnames/:search', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'Deprecated: use /users/search/{search}', deprecated: true, params: SearchParam, querystring: SearchQuery, response: { 200: Type.Array(UserSummary), ...errorResponses(422) } },
  }, async (request, reply) => {
    reply.header('deprecation', 'true').header('link', `<${config.publicUrl}/api/2.0/users/search/${encodeURIComponent(request.params.search)}>; rel="successor-version"`);
    return searchUsers(request.params.search, request.query.offset, request.query.limit);
  });

  async function lookup(column: 'sso_userid' | 'email' | 'employee_id', value: string) {
    const v = column === 'email' ? value.trim().toLowerCase() : value;
    const row = await findUserBy(db, column, v);
    if (!row) throw notFound('User');
    return userDetailRecord(db, config, fastify.badges, row);
  }
  const lookupSchema = (name: string, summary: string) => ({
    tags: TAG, summary,
    params: Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 254 }) }),
    response: { 200: UserDetail, ...errorResponses(401, 403, 404, 422) },
  });
  app.get('/users/sso/:sso_userid', { config: { auth: 'user' }, schema: lookupSchema('sso_userid', 'The user with an SSO id') },
    async (request) => lookup('sso_userid', (request.params as { sso_userid: string }).sso_userid));
  app.get('/users/email/:email', { config: { auth: 'admin' }, schema: lookupSchema('email', 'The user with an e-mail address') },
    async (request) => lookup('email', (request.params as { email: string }).email));
  app.get('/users/employee_id/:employee_id', { config: { auth: 'admin' }, schema: lookupSchema('employee_id', 'The user with an employee id') },
    async (request) => lookup('employee_id', (request.params as { employee_id: string }).employee_id));

  app.get('/users/:userid/badges', {
    config: { auth: 'none' },
    schema: { tags: TAG, summary: 'Badges a user earned', description: 'Earned by rules: joining, joining a team, leading a team, and the rules of the content areas (first guide, ten guides, first comment...).', params: UseridParam, response: { 200: Type.Array(Badge), ...errorResponses(404, 422) } },
  }, async (request) => earnedBadges(fastify.badges, db, (await existingUser(request.params.userid)).userid));

  app.get('/user/badges', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Badges the logged-in user earned', response: { 200: Type.Array(Badge), ...errorResponses(401) } },
  }, async (request) => earnedBadges(fastify.badges, db, requireUser(request).userid));

  app.post('/users/unique_usernames', {
    config: { auth: 'none', openOnPrivateSite: 'publicRegistration' },
    schema: {
      tags: TAG,
      summary: 'Whether unique usernames are valid and free',
      description: 'Body `{"unique_usernames": [...]}` (1 to 100). Answers one entry per name, in order.',
      body: Type.Object({ unique_usernames: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }) }),
      response: { 200: Type.Array(Type.Object({ unique_username: Type.String(), valid: Type.Boolean(), available: Type.Boolean() })), ...errorResponses(422) },
    },
  }, async (request) => {
    const names = request.body.unique_usernames;
    const pattern = new RegExp(UniqueUsername.pattern!);
    const valid = names.filter((n) => pattern.test(n));
    const taken = await takenUsernames(db, valid);
    return names.map((n) => ({ unique_username: n, valid: pattern.test(n), available: pattern.test(n) && !taken.has(n) }));
  });

  app.get('/users/created_users', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'Accounts the logged-in user created', querystring: Type.Object({ ...OffsetLimit }), response: { 200: Type.Array(UserListItem), ...errorResponses(401, 422) } },
  }, async (request) => {
    const rows = await createdUsers(db, requireUser(request).userid, request.query);
    return toUserSummaries(db, config, rows);
  });

  const CreateResult = Type.Object({
    email: Type.String(),
    status: StringEnum(['created', 'exists', 'invalid'] as const),
    userid: Type.Union([Type.Integer(), Type.Null()]),
    message: Type.String(),
  });
  app.post('/users/createByEmails', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Create accounts for a list of e-mail addresses',
      description: 'Admin only. Body `{"emails": [...], "privileges"?: [...]}` (1 to 200 addresses). Each new account gets a display name from its address and a password-reset e-mail to set its password. Answers one result per address: `created`, `exists` (with its userid) or `invalid`.',
      body: Type.Object({
        emails: Type.Array(Type.String({ maxLength: 254 }), { minItems: 1, maxItems: 200 }),
        privileges: Type.Optional(Type.Array(StringEnum(['Author', 'Moderator', 'User'] as const), { maxItems: 3 })),
      }),
      response: { 200: Type.Object({ results: Type.Array(CreateResult) }), ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const admin = requireUser(request);
    const results = await createUsersByEmail(db, config, clock, admin, request.body.emails, (request.body.privileges ?? ['User']) as Privilege[]);
    return { results };
  });

}
