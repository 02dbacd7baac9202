// Unknown routes: 404, or 405 with `Allow` when the path exists under another method.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { errorBody } from './errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One registered route: what the tests and tools enumerate, hidden ones (file serving, pages) included. */
export interface RouteEntry {
  method: string;
  url: string;
  /** The declared access, for API routes (`config.auth`); null for routes outside the API's access control. */
  access: string | null;
  /** Left out of the OpenAPI document. */
  hidden: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, in order, hidden ones included (not the 405 answers of `registerShadowedMethods`). */
    routeTable: RouteEntry[];
    /** 405 with the `Allow` of the request's path. */
    answerMethodNotAllowed(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  }
  interface FastifyContextConfig {
    /** A route that only answers 405 for a path that another method's route would swallow. */
    methodNotAllowed?: true;
  }
}

/** A path's shape: the parameters' names do not matter to the router (`/a/:id` and `/a/:userid` are one path). */
const shapeOf = (url: string) => url.replace(/:[^/]+/g, ':p');
/** A concrete path of a shape, as a client would send it (ids are numbers). */
export const samplePath = (url: string) => url.replace(/:[^/]+/g, '1').replace(/\*/g, 'x');

export function registerNotFound(app: FastifyInstance) {
  // Every path's shape with its methods, in a router of its own (one pseudo-method), so that a
  // concrete path finds its most specific shape as the app's router would: `/approvals/processes`
  // is the static path, not `/approvals/{wikiid}`. Consulted only for 404 and 405 answers.
  const shapes = FindMyWay({ ignoreTrailingSlash: true });
  const methodsByShape = new Map<string, Set<string>>();
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    if (route.config?.methodNotAllowed) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const shape = shapeOf(route.url);
    let known = methodsByShape.get(shape);
    if (!known) {
      methodsByShape.set(shape, (known = new Set()));
      shapes.on('GET', shape, () => {}, { methods: known });
    }
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      known.add(m);
      table.push({ method: m, url: route.url, access: (route.config as { auth?: string } | undefined)?.auth ?? null, hidden: !!(route.schema as { hide?: boolean } | undefined)?.hide });
    }
  });

  const allowedOn = (path: string): string[] => {
    const known = (shapes.find('GET', path)?.store as { methods: Set<string> } | undefined)?.methods;
    return known ? METHODS.filter((m) => known.has(m)) : [];
  };
  const methodNotAllowed = (request: FastifyRequest, reply: FastifyReply, allow: string[]) => {
    reply.header('Allow', [...allow, ...(allow.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '));
    return reply.status(405).send(errorBody(request, 405, 'method_not_allowed', `${request.method} is not allowed here; allowed: ${allow.join(', ')}.`));
  };
  app.decorate('answerMethodNotAllowed', (request: FastifyRequest, reply: FastifyReply) => methodNotAllowed(request, reply, allowedOn(request.url.split('?')[0])));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allow = allowedOn(path);
    if (allow.length > 0 && request.method !== 'OPTIONS') return methodNotAllowed(request, reply, allow);
    return reply.status(404).send(errorBody(request, 404, 'not_found', `No route ${request.method} ${path}.`));
  });
}

/**
 * A path with a method it lacks falls, in the router, into another path's route when a
 * parameter of that one matches a static segment of this one: `PUT /approvals/process/1` is
 * `PUT /approvals/{wikiid}/{processid}` with wikiid "process", and answered 422. For each such
 * pair, one hidden route of the method on this path answers 405 with its `Allow`. Its
 * parameters match digits only (the ids of this API), so that a value that is not an id still
 * reaches the other route (`GET /wikis/CATEGORY/releases` is the wiki "releases"). Called
 * once every route is registered.
 */
export function registerShadowedMethods(app: FastifyInstance) {
  for (const { method, url } of shadowedMethods(app)) {
    app.route({
      method,
      url: url.replace(/:([^/]+)/g, ':$1(^\\d+$)'),
      schema: { hide: true },
      config: { methodNotAllowed: true },
      handler: (request, reply) => app.answerMethodNotAllowed(request, reply),
    });
  }
}

/** The (method, path) pairs another path's route would swallow: what `registerShadowedMethods` answers. */
export function shadowedMethods(app: FastifyInstance): { method: string; url: string; swallowedBy: string }[] {
  // The app's routes in a router like the app's own, to ask which route a concrete path reaches.
  const router = FindMyWay({ ignoreTrailingSlash: true });
  const byShape = new Map<string, { url: string; methods: Set<string> }>();
  for (const r of app.routeTable) {
    router.on(r.method as (typeof METHODS)[number], r.url, () => {}, { url: r.url });
    const shape = shapeOf(r.url);
    const entry = byShape.get(shape) ?? { url: r.url, methods: new Set<string>() };
    entry.methods.add(r.method);
    byShape.set(shape, entry);
  }
  const found: { method: string; url: string; swallowedBy: string }[] = [];
  for (const { url, methods } of byShape.values()) {
    for (const method of METHODS) {
      if (methods.has(method)) continue;
      const hit = router.find(method, samplePath(url));
      if (hit) found.push({ method, url, swallowedBy: (hit.store as { url: string }).url });
    }
  }
  return found;
}
