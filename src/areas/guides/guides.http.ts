// What the guide routes share: running a change as one transaction that checks the
// revision and keeps a new one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { conflict, invalidField, notFound } from '../../http/errors.js';
import type { Db } from './guides.queries.js';
import type { GuideContext } from './guides.access.js';
import { fullGuideRecord, stepRecordById } from './guides.records.js';
import { commitGuideRevision, lockGuide, StaleRevision } from './guides.service.js';
import { NothingToChange } from '../content/revisions.js';

export interface ChangeOptions {
  /** The revisionid the client sent; undefined for changes that take none. */
  expected?: number;
  action: string;
}

/**
 * Runs `fn` in one transaction: locks the guide's row (at the expected revision, else
 * 409 with the current guide, or the current step when `fn` finds its step stale),
 * applies the change and keeps the result as a new guide revision. Answers undefined
 * when `fn` throws NothingToChange.
 */
export async function changeGuide<T>(app: FastifyInstance, ctx: GuideContext, opts: ChangeOptions, fn: (trx: Db, now: number) => Promise<T>): Promise<T | undefined> {
  const { guideid, langid } = ctx.row;
  const now = app.clock.now();
  try {
    return await app.db.transaction().execute(async (trx) => {
      if (!(await lockGuide(trx, guideid, langid, now, opts.expected))) throw new StaleRevision('guide');
      const out = await fn(trx, now);
      await commitGuideRevision(trx, guideid, langid, ctx.user?.userid ?? null, now, opts.action);
      return out;
    });
  } catch (err) {
    if (err instanceof NothingToChange) return undefined;
    if (!(err instanceof StaleRevision)) throw err;
    if (err.kind === 'step' && err.stepid !== undefined) {
      const step = await stepRecordById(app.db, app.config, err.stepid);
      if (!step) throw notFound('Step');
      throw conflict(step);
    }
    const current = await fullGuideRecord(app.db, app.config, guideid, langid, ctx.user);
    if (!current) throw notFound('Guide');
    throw conflict(current);
  }
}

/** The full record of a guide after a change, as the caller may see it. */
export async function currentGuide(app: FastifyInstance, ctx: GuideContext) {
  const record = await fullGuideRecord(app.db, app.config, ctx.row.guideid, ctx.row.langid, ctx.user);
  if (!record) throw notFound('Guide');
  return record;
}

/** The path (`lines[2].text`) of the first string holding a NUL character, or null. */
function findNul(value: unknown, root: string): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path || 'body';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return path || 'body';
        stack.push([x, path ? `${path}.${k}` : k]);
      }
    }
  }
  return null;
}

/**
 * Text with a NUL character is refused (422 naming the field): PostgreSQL cannot store
 * it and no client means it; refusing it on SQLite too keeps the two databases alike.
 */
export async function refuseNul(request: FastifyRequest) {
  const where = findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
  if (where !== null) throw invalidField(where, `${where} must not contain the NUL character.`);
}
