// The login page and its form's handler, outside /api/2.0 (docs/security.md, "Private
// sites"): `GET /login?next=/Guide/x/1` shows the form (http/login-page.ts), `POST /login`
// checks the credentials as `POST /user/token` does, sets the session cookie and sends the
// browser back to `next`, a path of this site only. A form posted from a page of another
// origin is refused: it would log the browser in to an account of that page's choosing.
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../http/errors.js';
import { LOGIN_PATH, safeNext, sendLoginPage } from '../../http/login-page.js';
import { mayStartSession, setSessionCookie } from '../../http/session.js';
import { checkCredentials, issueToken } from './users.service.js';
import { audit, requestActor, type AuditEvent } from '../../audit/audit.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

export async function loginRoutes(app: FastifyInstance) {
  const { db, config, clock } = app;
  // Form bodies, in this plugin's scope only (every other route reads JSON).
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: 8192 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get(LOGIN_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendLoginPage(reply, 200, { next: safeNext((request.query as Record<string, unknown>).next) }));

  app.post(LOGIN_PATH, { schema: { hide: true }, config: { rateLimit: { max: config.loginRateLimit, timeWindow: 60_000 } } }, async (request, reply) => {
    const form = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
    const next = safeNext(form.next);
    const login = typeof form.login === 'string' ? form.login.slice(0, 254) : '';
    const password = typeof form.password === 'string' ? form.password.slice(0, 200) : '';
    if (!mayStartSession(request, config.publicUrl)) return sendLoginPage(reply, 403, { next, error: 'This form must be sent from this site\'s own login page.' });
    if (!login || !password) return sendLoginPage(reply, 422, { next, login, error: 'Enter your e-mail or username and your password.' });
    // Audited as POST /user/token is: the account when there is one, never the login string.
    const loginEntry = (action: 'user.login' | 'user.login_failed', userid: number | null): AuditEvent => ({
      action, actor: requestActor(request, userid), time: clock.now(), resource_type: 'user', resource_id: userid ?? '',
    });
    let user;
    try {
      user = await checkCredentials(db, config, login, password, app.loginAttempts,
        (userid) => db.transaction().execute((trx) => audit(trx, loginEntry('user.login_failed', userid))));
    } catch (err) {
      if (err instanceof HttpError) return sendLoginPage(reply, err.status, { next, login, error: err.message });
      throw err;
    }
    const { session, expires } = await db.transaction().execute(async (trx) => {
      const issued = await issueToken(trx, config, clock, user.userid, { credentialsVersion: user.credentials_version, session: true });
      await audit(trx, loginEntry('user.login', user.userid));
      return issued;
    });
    setSessionCookie(reply, config.publicUrl, session!, expires - clock.now());
    // 303: the browser follows with a GET.
    return reply.status(303).header('location', next).header('cache-control', 'no-store').send();
  });
}
