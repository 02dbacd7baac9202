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
// Time is the app's clock (tests move it); memory is bounded (the oldest entries go first).
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Clock } from '../clock.js';
import { HttpError } from './errors.js';

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
/** Entries kept per map (addresses, accounts); beyond, the least recently touched go. */
const MAX_ENTRIES = 20_000;

const tooMany = (code: string, message: string, retryAfter: number) =>
  new HttpError(429, code, message, undefined, undefined, { 'retry-after': String(Math.max(1, retryAfter)) });

/** The address an attempt is counted for: an IPv6 client by its /64 (one host holds a whole one). */
export function addressKey(ip: string): string {
  if (!ip.includes(':') || ip.startsWith('::ffff:')) return ip.replace(/^::ffff:/, '');
  const groups = ip.split('::')[0].split(':');
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** A Map used as a bounded LRU: a touched key moves to the end; past the bound, the first goes. */
function touch<V>(map: Map<string, V>, key: string, value: V) {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

export class LoginAttempts {
  private addresses = new Map<string, { start: number; count: number }>();
  private accounts = new Map<string, { failures: number; notBefore: number; last: number }>();

  constructor(private limits: LoginLimits, private clock: Clock) {}

  /** Counts an attempt from `ip`; 429 past LOGIN_RATE_LIMIT in the minute. */
  countAddress(ip: string): void {
    const now = this.clock.now();
    const key = addressKey(ip);
    const seen = this.addresses.get(key);
    const entry = seen && now - seen.start < WINDOW_SECONDS ? { start: seen.start, count: seen.count + 1 } : { start: now, count: 1 };
    touch(this.addresses, key, entry);
    if (entry.count > this.limits.loginRateLimit) {
      throw tooMany('rate_limited', `Too many attempts; try again in ${entry.start + WINDOW_SECONDS - now} seconds.`, entry.start + WINDOW_SECONDS - now);
    }
  }

  /** The delay after `failures` failures in a row, in ms (0 below the threshold). */
  delayAfter(failures: number): number {
    const { loginAccountFailures: threshold, loginAccountDelayMs: base, loginAccountDelayMaxMs: max } = this.limits;
    if (threshold <= 0 || failures < threshold || base <= 0) return 0;
    return Math.min(max, base * 2 ** Math.min(30, failures - threshold));
  }

  /**
   * Before a password is verified for `account` (the user's id, or the login typed when no
   * account has it): 429 `login_delayed` while the account's delay runs. An attempt let
   * through starts the next delay at once, so parallel attempts do not slip through together.
   */
  beforeVerify(account: string): void {
    const now = this.clock.now() * 1000;
    const entry = this.current(account);
    if (!entry) return;
    if (now < entry.notBefore) {
      const wait = Math.ceil((entry.notBefore - now) / 1000);
      throw tooMany('login_delayed', `Too many wrong passwords for this account; try again in ${wait} seconds.`, wait);
    }
    const delay = this.delayAfter(entry.failures);
    if (delay > 0) touch(this.accounts, account, { ...entry, notBefore: now + delay });
  }

  failed(account: string): void {
    const now = this.clock.now();
    const failures = (this.current(account)?.failures ?? 0) + 1;
    touch(this.accounts, account, { failures, last: now, notBefore: now * 1000 + this.delayAfter(failures) });
  }

  succeeded(account: string): void {
    this.accounts.delete(account);
  }

  private current(account: string) {
    const entry = this.accounts.get(account);
    if (entry && this.clock.now() - entry.last > ACCOUNT_MEMORY_SECONDS) {
      this.accounts.delete(account);
      return undefined;
    }
    return entry;
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
export function registerLoginAttempts(app: FastifyInstance, limits: LoginLimits, clock: Clock): void {
  const attempts = new LoginAttempts(limits, clock);
  app.decorate('loginAttempts', attempts);
  const count: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
    try {
      attempts.countAddress(request.ip);
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.loginAttempts) route.onRequest = [...[route.onRequest ?? []].flat(), count];
  });
}
