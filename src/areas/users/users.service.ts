// Account operations that span tables: creating users, issuing tokens, resets.
import { accountKey, type LoginAttempts } from '../../http/login-attempts.js';
import { sql, type Kysely, type Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { hashPassword, newToken, verifyPassword } from '../../http/passwords.js';
import { forbidden, invalidField, unauthorized } from '../../http/errors.js';
import { findUserByLogin } from './users.queries.js';
import type { Privilege } from '../../http/auth.js';
import { queueMail } from '../../jobs/mail.js';
import { audit, auditActor, type AuditActor } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';

export interface NewUser {
  email: string;
  password: string | null;
  username: string;
  unique_username?: string | null;
  privileges?: Privilege[];
  created_by?: number | null;
  /**
   * Who creates it, for the audit log (`user.created`; `db` must then be the transaction):
   * a user, an actor (a registration's: its userid becomes the new account's), or null for
   * the system. Absent: not audited (the demo seed, test factories).
   */
  actor?: AuthUser | AuditActor | null;
}

/** A password hash nobody can log in with: accounts created for others wait for a reset. */
const UNUSABLE_PASSWORD = 'none$';

/** Inserts a user; 422 naming the field on a duplicate e-mail or unique username. */
export async function createUser(db: Kysely<Database>, config: Config, clock: Clock, u: NewUser): Promise<number> {
  const email = u.email.trim().toLowerCase();
  const uniqueName = u.unique_username ?? null;
  const clash = await db.selectFrom('users').select(['email', 'unique_username'])
    .where((eb) => eb.or([eb('email', '=', email), ...(uniqueName ? [eb('unique_username', '=', uniqueName)] : [])]))
    .executeTakeFirst();
  if (clash?.email === email) throw invalidField('email', 'An account with this e-mail already exists.', 'duplicate');
  if (clash) throw invalidField('unique_username', 'This unique username is taken.', 'duplicate');
  const password_hash = u.password === null ? UNUSABLE_PASSWORD : await hashPassword(u.password, config.passwordHashCost);
  try {
    const row = await db.insertInto('users').values({
      email,
      password_hash,
      username: u.username,
      username_lower: u.username.toLowerCase(),
      unique_username: uniqueName,
      join_date: clock.now(),
      reputation: 1,
      imageid: null,
      privileges: (u.privileges ?? ['User']).join(','),
      enabled: 1,
      banned: 0,
      sso_userid: null,
      employee_id: null,
      created_by: u.created_by ?? null,
      location: '',
      about: '',
    }).returning('userid').executeTakeFirstOrThrow();
    if (u.actor !== undefined) {
      const actor = auditActor(u.actor);
      await audit(db, {
        action: 'user.created', actor: u.actor === null ? null : { ...actor, userid: actor.userid ?? row.userid }, time: clock.now(),
        resource_type: 'user', resource_id: row.userid,
        changes: { username: { new: u.username }, privileges: { new: (u.privileges ?? ['User']).join(',') } },
      });
    }
    return row.userid;
  } catch (err) {
    // Two registrations racing for one address: the loser hears the same as above.
    if (isUniqueViolation(err)) throw invalidField('email', 'An account with this e-mail or unique username already exists.', 'duplicate');
    throw err;
  }
}

/**
 * A new token for the user; only its hash is stored. `credentialsVersion` is the user's
 * credentials_version read with the password hash that was checked (login): a password
 * change that commits meanwhile leaves the token dead. Without it (register,
 * impersonation, reset), the version current now.
 */
export async function issueToken(db: Kysely<Database>, config: Config, clock: Clock, userid: number, opts: { credentialsVersion?: number; impersonatedBy?: number | null; session?: boolean } = {}) {
  const { token, hash } = newToken();
  // A browser login's session cookie: a secret of its own, tied to this token (http/session.ts).
  const session = opts.session ? newToken() : null;
  const now = clock.now();
  const expires = now + config.tokenTtl;
  const credentials_version = opts.credentialsVersion ??
    (await db.selectFrom('users').select('credentials_version').where('userid', '=', userid).executeTakeFirstOrThrow()).credentials_version;
  await db.insertInto('tokens').values({ token_hash: hash, userid, created_date: now, expires_date: expires, revoked_date: null, impersonated_by: opts.impersonatedBy ?? null, credentials_version, session_hash: session?.hash ?? null }).execute();
  return { token, expires, session: session?.token ?? null };
}

/**
 * Sets a user's password: bumps the credentials version, which ends every token issued
 * before (except `keepTokenHash`, the caller's own, re-stamped), and every outstanding
 * reset token. Run it in the transaction of the change.
 */
export async function setPassword(trx: Kysely<Database>, clock: Clock, userid: number, password_hash: string, keepTokenHash?: string): Promise<void> {
  const row = await trx.updateTable('users').set((eb) => ({ password_hash, credentials_version: eb('credentials_version', '+', 1) }))
    .where('userid', '=', userid).returning('credentials_version').executeTakeFirstOrThrow();
  if (keepTokenHash) await trx.updateTable('tokens').set({ credentials_version: row.credentials_version }).where('token_hash', '=', keepTokenHash).where('userid', '=', userid).execute();
  await endPasswordResets(trx, clock, userid);
}

/** Every outstanding reset token of the user stops working (a reset completed, the password or e-mail changed). */
export async function endPasswordResets(trx: Kysely<Database>, clock: Clock, userid: number): Promise<void> {
  await trx.updateTable('password_resets').set({ used_date: clock.now() }).where('userid', '=', userid).where('used_date', 'is', null).execute();
}

/** Demoting, disabling or banning a user ends every token they made by impersonation. */
export async function revokeImpersonations(trx: Kysely<Database>, clock: Clock, impersonator: number): Promise<void> {
  await trx.updateTable('tokens').set({ revoked_date: clock.now() }).where('impersonated_by', '=', impersonator).where('revoked_date', 'is', null).execute();
}

export const RESET_TTL = 3600;

/**
 * Creates a reset token and queues the mail that carries it. The token is stored only
 * while the account's address is still `user.email`, so an address changed since it was
 * read gets no token for the old one.
 */
export async function startPasswordReset(db: Kysely<Database>, config: Config, clock: Clock, user: { userid: number; email: string; username: string }) {
  const { token, hash } = newToken();
  const now = clock.now();
  const stored = await db.insertInto('password_resets')
    .columns(['token_hash', 'userid', 'created_date', 'expires_date', 'used_date'])
    .expression(db.selectFrom('users')
      .select([sql<string>`${hash}`.as('token_hash'), 'userid', sql<number>`cast(${now} as bigint)`.as('created_date'),
        sql<number>`cast(${now + RESET_TTL} as bigint)`.as('expires_date'), sql<null>`cast(null as bigint)`.as('used_date')])
      .where('userid', '=', user.userid).where('email', '=', user.email))
    .executeTakeFirst();
  if (Number(stored.numInsertedOrUpdatedRows ?? 0) === 0) return;
  await queueMail(db, clock, {
    to: user.email,
    subject: 'Reset your password',
    text:
      `Hello ${user.username},\n\nSomeone asked to reset the password of your account. If it was you, ` +
      `send POST ${config.publicUrl}/api/2.0/users/reset_password/complete with {"token": "${token}", "password": "<new password>"} ` +
      `within an hour.\n\nIf it was not you, ignore this message.\n`,
  });
}

/** Writes a user's changed columns (in the caller's transaction). */
export async function updateUserRow(trx: Kysely<Database>, userid: number, set: Updateable<Database['users']>): Promise<void> {
  if (Object.keys(set).length > 0) await trx.updateTable('users').set(set).where('userid', '=', userid).execute();
}

export interface CreateByEmailResult { email: string; status: 'created' | 'exists' | 'invalid'; userid: number | null; message: string }

/**
 * Accounts for a list of addresses, in one transaction: each new one gets a display name
 * from its address and a password-reset mail; an address in use answers `exists`.
 */
export async function createUsersByEmail(db: Kysely<Database>, config: Config, clock: Clock, creator: AuthUser, emails: string[], privileges: Privilege[]): Promise<CreateByEmailResult[]> {
  const emailPattern = /^[^\s@]+@[^\s.@]+(?:\.[^\s.@]+)+$/;
  return db.transaction().execute(async (trx) => {
    const out: CreateByEmailResult[] = [];
    for (const raw of emails) {
      const email = raw.trim().toLowerCase();
      if (!emailPattern.test(email) || email.length > 254) {
        out.push({ email: raw, status: 'invalid', userid: null, message: 'Not an e-mail address.' });
        continue;
      }
      const existing = await trx.selectFrom('users').select('userid').where('email', '=', email).executeTakeFirst();
      if (existing) {
        out.push({ email, status: 'exists', userid: existing.userid, message: 'An account with this e-mail already exists.' });
        continue;
      }
      const username = email.split('@')[0].slice(0, 100);
      const userid = await createUser(trx, config, clock, { email, password: null, username, privileges, created_by: creator.userid, actor: creator });
      await startPasswordReset(trx, config, clock, { userid, email, username });
      out.push({ email, status: 'created', userid, message: 'Created; a mail to set the password was sent.' });
    }
    return out;
  });
}

/** A hash verified against when there is no such account (so timing tells nothing either), made once per hashing cost. */
const dummyHashes = new Map<number, Promise<string>>();

/**
 * The account a login names, once its password is checked: 401 `invalid_credentials`
 * without saying which was wrong, 403 `account_disabled`. The one check behind every
 * login (`POST /user/token`, the login page).
 */
/**
 * The account a login and password name, or 401 `invalid_credentials` (403 `account_disabled`):
 * the per-account delay first (login-attempts.ts), the same hash work whether the account
 * exists or not; `failed` records a refused attempt (the audit log) with the account's id
 * when there is one.
 */
export async function checkCredentials(db: Kysely<Database>, config: Config, login: string, password: string, attempts: LoginAttempts, failed: (userid: number | null) => Promise<unknown>) {
  let dummy = dummyHashes.get(config.passwordHashCost);
  if (!dummy) dummyHashes.set(config.passwordHashCost, (dummy = hashPassword('no such account', config.passwordHashCost)));
  const user = await findUserByLogin(db, login);
  // The account's growing delay (login-attempts.ts): refused before any hash work.
  const account = accountKey(login, user);
  await attempts.beforeVerify(account);
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummy));
  if (!user || !ok) {
    await attempts.failed(account);
    await failed(user?.userid ?? null);
    throw unauthorized('The login or password is incorrect.', 'invalid_credentials');
  }
  await attempts.succeeded(account);
  if (!user.enabled || user.banned > 0) {
    await failed(user.userid);
    throw forbidden('This account is disabled.', 'account_disabled');
  }
  return user;
}
