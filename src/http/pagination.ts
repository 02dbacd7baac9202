import type { SelectQueryBuilder } from 'kysely';

export interface OffsetLimitQuery { offset?: number; limit?: number }
export interface PageLimitQuery { page?: number; limit?: number }

/** Applies `offset`/`limit` (already validated by the route schema) to a query. */
export function paginate<DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, q: OffsetLimitQuery) {
  return qb.limit(q.limit ?? 20).offset(q.offset ?? 0);
}

/** `page`/`limit` to `offset`/`limit`; asks for one more row so that `hasMore` needs no count. */
export function pageWindow(q: PageLimitQuery) {
  const limit = q.limit ?? 10;
  const page = q.page ?? 1;
  return { offset: (page - 1) * limit, limit, fetch: limit + 1 };
}

/** Splits the extra row off a page fetched with `pageWindow(...).fetch`. */
export function pageResult<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
