// Old course ids (issue 62): migration 2026_12_04_1600_course_ids renumbered the courses
// whose id was also a wiki page's and kept old -> new in course_id_aliases. For this
// major version the course routes still accept an old id (in the path, or `wikiid` in a
// body): it is read as the new one, and the answer says so with `Deprecation: true` and a
// `Link` to the same route under the new id.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The course id an old (renumbered) id now stands for, or null when it is no alias. */
export async function aliasedCourseId(db: Db, wikiid: number): Promise<number | null> {
  const row = await db.selectFrom('course_id_aliases').select('new_wikiid').where('old_wikiid', '=', wikiid).executeTakeFirst();
  return row?.new_wikiid ?? null;
}

const asId = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** A preValidation hook for the course routes: replaces an old course id by the new one. */
export function courseAliasHook(db: Db, publicUrl: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const params = request.params as Record<string, string> | undefined;
    const body = request.body as Record<string, unknown> | null | undefined;
    const inPath = asId(params?.wikiid);
    const inBody = body && typeof body === 'object' && !Array.isArray(body) ? asId(body.wikiid) : null;
    const named = inPath ?? inBody;
    if (named == null) return;
    const newId = await aliasedCourseId(db, named);
    if (newId == null) return;
    if (inPath != null) params!.wikiid = String(newId);
    else body!.wikiid = typeof body!.wikiid === 'number' ? newId : String(newId);
    reply.header('Deprecation', 'true');
    if (inPath != null) {
      const template = request.routeOptions.url ?? '';
      const path = template.replace(/:(\w+)/g, (_, k: string) => encodeURIComponent(params![k] ?? ''));
      const q = request.url.indexOf('?');
      reply.header('Link', `<${publicUrl}${path}${q >= 0 ? request.url.slice(q) : ''}>; rel="alternate"`);
    }
  };
}
