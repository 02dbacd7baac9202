// Unknown routes: 404, or 405 with `Allow` when the path exists under another method.
import type { FastifyInstance } from 'fastify';
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
    /** Every route the app registered, in order, hidden ones included. */
    routeTable: RouteEntry[];
  }
}

export function registerNotFound(app: FastifyInstance) {
  // A second router that knows every path, consulted only on a miss.
  const known = FindMyWay({ ignoreTrailingSlash: true });
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) if ((METHODS as readonly string[]).includes(m)) known.on(m as any, route.url, () => {});
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      table.push({ method: m, url: route.url, access: (route.config as { auth?: string } | undefined)?.auth ?? null, hidden: !!(route.schema as { hide?: boolean } | undefined)?.hide });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allow = METHODS.filter((m) => known.find(m, path));
    if (allow.length > 0 && request.method !== 'OPTIONS') {
      reply.header('Allow', [...allow, ...(allow.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '));
      return reply.status(405).send(errorBody(request, 405, 'method_not_allowed', `${request.method} is not allowed here; allowed: ${allow.join(', ')}.`));
    }
    return reply.status(404).send(errorBody(request, 404, 'not_found', `No route ${request.method} ${path}.`));
  });
}
