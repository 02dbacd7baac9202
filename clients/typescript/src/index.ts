// A typed client of the Content Platform REST API 2.0: openapi-fetch over the types
// openapi-typescript generates from the server's OpenAPI document (src/schema.d.ts, written
// by `npm run client:generate` in the server's repository), and a thin layer for what every
// call shares: the token header, the error shape, and the 409 answer (the current record).
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
/** A named record of the document: `Schema<'Guide'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
/** The one error shape (every error but 409). */
export type ApiErrorBody = components['schemas']['Error'];

/** An answer that is not a success, with the server's error record. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiErrorBody) {
    super(`${status} ${body.code ?? 'error'}: ${body.message}`);
    this.name = 'ApiError';
  }

  /** The machine-readable code (`not_found`, `invalid_token`, `validation_failed`...). */
  get code(): string | undefined {
    return this.body.code;
  }

  /** The fields a 422 refused. */
  get errors() {
    return this.body.errors ?? [];
  }
}

/**
 * A 409: the edit named a `revisionid` that is no longer current. The server answers with
 * the current record; re-apply the change to it and send it with its `revisionid`.
 */
export class StaleEditError<Current = unknown> extends Error {
  readonly status = 409;
  constructor(readonly current: Current) {
    super('409: the record changed since the revisionid sent; `current` holds it as it is now');
    this.name = 'StaleEditError';
  }
}

/** What openapi-fetch answers: its success value, or its error body. */
type FetchResult = { data?: unknown; error?: unknown; response: Response };
type SuccessOf<R> = R extends { data: infer Data; error?: never } ? Data : never;
type FailureOf<R> = R extends { data?: never; error: infer Failure } ? Failure : never;
/** What an operation answers with 409: the current record. */
export type CurrentOf<R> = Exclude<FailureOf<R>, ApiErrorBody>;

/**
 * The success value of a call, or a throw: `StaleEditError` for 409 (its `current` typed by
 * the operation's 409 answer), `ApiError` for every other error.
 */
export async function unwrap<R extends FetchResult>(call: Promise<R>): Promise<SuccessOf<R>> {
  const result = await call;
  if (result.response.ok) return result.data as SuccessOf<R>;
  if (result.response.status === 409) throw new StaleEditError<CurrentOf<R>>(result.error as CurrentOf<R>);
  const body = (result.error ?? {}) as Partial<ApiErrorBody>;
  throw new ApiError(result.response.status, {
    error: true,
    message: result.response.statusText,
    ...body,
  } as ApiErrorBody);
}

/** Whether `unwrap` threw a 409; `Current` names the record it holds (`Schema<'Guide'>`). */
export function isStale<Current = unknown>(err: unknown): err is StaleEditError<Current> {
  return err instanceof StaleEditError;
}

export interface ClientOptions {
  /** The API's base URL, with `/api/2.0`: `https://example.com/api/2.0`. */
  baseUrl: string;
  /** A token from `POST /user/token` (or `login`). */
  token?: string;
  /** The calling app's id (`X-App-Id`), where the site configures APP_IDS. */
  appId?: string;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export interface ContentPlatformClient extends Client<paths> {
  /** The token sent as `Authorization: api <token>`, or null. */
  readonly token: string | null;
  setToken(token: string | null): void;
  /** Logs in (`POST /user/token`) and sends the token from then on; answers the user with the token. */
  login(credentials: { email?: string; login?: string; password: string }): Promise<Schema<'UserWithToken'>>;
  /** Revokes the token in use (`DELETE /user/token`) and stops sending it. */
  logout(): Promise<void>;
}

/** A client whose every call sends the token (when there is one) and, if set, the app id. */
export function createClient(options: ClientOptions): ContentPlatformClient {
  let token = options.token ?? null;
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: options.fetch });
  const headers: Middleware = {
    onRequest({ request }) {
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `api ${token}`);
      if (options.appId && !request.headers.has('x-app-id')) request.headers.set('x-app-id', options.appId);
      return request;
    },
  };
  client.use(headers);
  const extended = Object.assign(client, {
    setToken(next: string | null) {
      token = next;
    },
    async login(credentials: { email?: string; login?: string; password: string }) {
      // A token that is sent must be valid, even to log in: an old one is not sent.
      token = null;
      const user = await unwrap(client.POST('/user/token', { body: credentials }));
      token = user.authToken;
      return user;
    },
    async logout() {
      await unwrap(client.DELETE('/user/token'));
      token = null;
    },
  });
  // A getter (Object.assign would copy its value once).
  return Object.defineProperty(extended, 'token', { get: () => token, enumerable: true }) as ContentPlatformClient;
}

/**
 * Every item of a list served by `offset` and `limit`, page by page: `fetchPage` answers one
 * page; a page shorter than `limit` is the last.
 */
export async function* pages<Item>(fetchPage: (page: { offset: number; limit: number }) => Promise<Item[]>, limit = 50): AsyncGenerator<Item> {
  for (let offset = 0; ; offset += limit) {
    const items = await fetchPage({ offset, limit });
    yield* items;
    if (items.length < limit) return;
  }
}
