// The login limiter: every route that checks a password typed for an account (POST
// /user/token, a trainer's password in initializeViaPassword) counts its attempts here, so
// that no route gives an attacker a second bucket.
//   - Per client address: LOGIN_RATE_LIMIT attempts a minute over all those routes, counted
//     before anything else (a client without a token is counted too); past it, 429 with
//     Retry-After.
//   - Per target account: after LOGIN_ACCOUNT_FAILURES failed passwords in a row, each next
//     attempt on that account waits a delay after the last failure, doubling with each
//     further failure up to LOGIN_ACCOUNT_DELAY_MAX_MS; an attempt before it is answered 429
//     `login_delayed` with Retry-After, without hash work. Never a lockout: the delay is
//     bounded, so the account's owner is let in at most that long after an attacker's last
//     failure; a success clears the count.
// Both are counted in the database (rate_limit_counts through rate-limits.ts, and
// rate_limit_accounts), so that every process and every node on the database enforce one
// limit. Time is the app's clock (tests move it).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { addressKey, limitAttempts, tooMany } from './rate-limits.js';

export { addressKey } from './rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks a password for an account: counted by the login limiter (login-attempts.ts). */
    loginAttempts?: true;
  }
  interface FastifyInstance {
    loginAttempts: LoginAttempts;
  }
}

export interface LoginLimits {
  /** Attempts a minute per client address. */
  loginRateLimit: number;
  /** Failed passwords in a row on one account before its attempts are delayed; 0: never delayed. */
  loginAccountFailures: number;
  /** The first delay, in ms; doubles with each further failure. */
  loginAccountDelayMs: number;
  /** The longest delay, in ms. */
  loginAccountDelayMaxMs: number;
}

const WINDOW_SECONDS = 60;
/** An account's failures are forgotten after this long without one. */
const ACCOUNT_MEMORY_SECONDS = 3600;

export class LoginAttempts {
  constructor(private db: Kysely<Database>, private limits: LoginLimits, private clock: Clock) {}

  /** Counts an attempt from `ip`; 429 past LOGIN_RATE_LIMIT in the minute. One statement. */
  countAddress(ip: string): Promise<void> {
    return limitAttempts(this.db, this.clock, `login:${addressKey(ip)}`, this.limits.loginRateLimit, WINDOW_SECONDS);
  }

  /** The delay after `failures` failures in a row, in ms (0 below the threshold). */
  delayAfter(failures: number): number {
    const { loginAccountFailures: threshold, loginAccountDelayMs: base, loginAccountDelayMaxMs: max } = this.limits;
    if (threshold <= 0 || failures < threshold || base <= 0) return 0;
    return Math.min(max, base * 2 ** Math.min(30, failures - threshold));
  }

  private get delays(): boolean {
    return this.delayAfter(Math.max(1, this.limits.loginAccountFailures)) > 0;
  }

  /**
   * Before a password is verified for `account` (the user's id, or the login typed when no
   * account has it): 429 `login_delayed` while the account's delay runs. An attempt let
   * through starts the next delay at once (a conditional update: of parallel attempts, one
   * wins), so parallel attempts do not slip through together.
   */
  async beforeVerify(account: string): Promise<void> {
    if (!this.delays) return;
    const now = this.clock.now();
    const entry = await this.db.selectFrom('rate_limit_accounts').select(['failures', 'last_failed', 'held_until_ms'])
      .where('account', '=', account).where('last_failed', '>=', now - ACCOUNT_MEMORY_SECONDS).executeTakeFirst();
    if (!entry) return;
    const delay = this.delayAfter(entry.failures);
    if (delay <= 0) return;
    const nowMs = now * 1000;
    const notBefore = Math.max(Number(entry.last_failed) * 1000 + delay, Number(entry.held_until_ms));
    const refuse = (until: number) => {
      const wait = Math.ceil((until - nowMs) / 1000);
      return tooMany('login_delayed', `Too many wrong passwords for this account; try again in ${wait} seconds.`, wait);
    };
    if (nowMs < notBefore) throw refuse(notBefore);
    const held = await this.db.updateTable('rate_limit_accounts').set({ held_until_ms: nowMs + delay })
      .where('account', '=', account).where('failures', '=', entry.failures).where('held_until_ms', '=', entry.held_until_ms)
      .executeTakeFirst();
    // Another attempt (on any node) was let through meanwhile: this one waits its delay.
    if (Number(held.numUpdatedRows) !== 1) throw refuse(nowMs + delay);
  }

  /** A wrong password for `account`: one more failure in a row (one statement). */
  async failed(account: string): Promise<void> {
    if (!this.delays) return;
    const now = this.clock.now();
    const forgotten = sql<boolean>`rate_limit_accounts.last_failed < ${now - ACCOUNT_MEMORY_SECONDS}`;
    await this.db.insertInto('rate_limit_accounts').values({ account, failures: 1, last_failed: now, held_until_ms: 0 })
      .onConflict((oc) => oc.column('account').doUpdateSet({
        failures: sql<number>`case when ${forgotten} then 1 else rate_limit_accounts.failures + 1 end`,
        held_until_ms: sql<number>`case when ${forgotten} then 0 else rate_limit_accounts.held_until_ms end`,
        last_failed: now,
      }))
      .returning('failures')
      .executeTakeFirstOrThrow()
      .then(async ({ failures }) => {
        // A first failure in a row: accounts forgotten meanwhile go.
        if (Number(failures) === 1) await this.db.deleteFrom('rate_limit_accounts').where('last_failed', '<', now - ACCOUNT_MEMORY_SECONDS).execute();
      });
  }

  /** The right password: the account's failures are cleared. */
  async succeeded(account: string): Promise<void> {
    if (!this.delays) return;
    await this.db.deleteFrom('rate_limit_accounts').where('account', '=', account).execute();
  }
}

/** The account key of a login: its user when one has it, else the login as typed (lower case). */
export const accountKey = (login: string, user: { userid: number } | undefined | null) =>
  user ? `user:${user.userid}` : `login:${login.trim().toLowerCase()}`;

/**
 * The app's limiter (`app.loginAttempts`), and its address count on every route that
 * declares `config.loginAttempts` (a route-level onRequest hook: before validation and
 * before its access is checked, see auth.ts). Registered before the routes.
 */
export function registerLoginAttempts(app: FastifyInstance, db: Kysely<Database>, limits: LoginLimits, clock: Clock): void {
  const attempts = new LoginAttempts(db, limits, clock);
  app.decorate('loginAttempts', attempts);
  const count = async (request: FastifyRequest) => attempts.countAddress(request.ip);
  app.addHook('onRoute', (route) => {
    if (route.config?.loginAttempts) route.onRequest = [...[route.onRequest ?? []].flat(), count];
  });
}
