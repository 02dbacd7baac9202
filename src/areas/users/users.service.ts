// Account operations that span tables: creating users, issuing tokens, resets.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { invalidField } from '../../http/errors.js';
import { hashPassword, newToken } from '../../http/passwords.js';
import type { Privilege } from '../../http/auth.js';
import { queueMail } from '../../jobs/mail.js';

export interface NewUser {
  email: string;
  password: string | null;
  username: string;
  unique_username?: string | null;
  privileges?: Privilege[];
  created_by?: number | null;
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
    return row.userid;
  } catch (err) {
    // Two registrations racing for one address: the loser hears the same as above.
    if (isUniqueViolation(err)) throw invalidField('email', 'An account with this e-mail or unique username already exists.', 'duplicate');
    throw err;
  }
}

/** A new token for the user; only its hash is stored. */
export async function issueToken(db: Kysely<Database>, config: Config, clock: Clock, userid: number, impersonatedBy: number | null = null) {
  const { token, hash } = newToken();
  const now = clock.now();
  const expires = now + config.tokenTtl;
  await db.insertInto('tokens').values({ token_hash: hash, userid, created_date: now, expires_date: expires, revoked_date: null, impersonated_by: impersonatedBy }).execute();
  return { token, expires };
}

export const RESET_TTL = 3600;

/** Creates a reset token and queues the mail that carries it. */
export async function startPasswordReset(db: Kysely<Database>, config: Config, clock: Clock, user: { userid: number; email: string; username: string }) {
  const { token, hash } = newToken();
  const now = clock.now();
  await db.insertInto('password_resets').values({ token_hash: hash, userid: user.userid, created_date: now, expires_date: now + RESET_TTL, used_date: null }).execute();
  await queueMail(db, clock, {
    to: user.email,
    subject: 'Reset your password',
    text:
      `Hello ${user.username},\n\nSomeone asked to reset the password of your account. If it was you, ` +
      `send POST ${config.publicUrl}/api/2.0/users/reset_password/complete with {"token": "${token}", "password": "<new password>"} ` +
      `within an hour.\n\nIf it was not you, ignore this message.\n`,
  });
}
