// A checksum of every table, to prove that a refused request changed nothing. Rows are
// hashed order-independently, so the check does not depend on an ORDER BY per table.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { isPostgres, listTables } from '../../../src/db/helpers.js';

/**
 * Tables exempt from the "nothing changed" rule, by name: view history is best-effort by
 * design (buffered and flushed on its own schedule), migrations bookkeeping never changes
 * under a request, a rate-limit store counts refused attempts on purpose, and stored guide
 * records and rendered texts and stored wiki records are a cache that GETs fill, written
 * shortly after the answer (guides.stored.ts, wikis.cache.ts). SQLite's full-text index
 * (search_fts and its shadow tables) and its log are written by a search that replays the
 * log (db/search.ts): what the index holds changes, what it indexes (search_docs) does not.
 * The audit log records a refused login on purpose (user.login_failed); that a refused
 * change writes no entry is test/audit's.
 */
export const EXEMPT_TABLES = /view_history|^kysely_migration|rate_limit|^guide_records$|^guide_rendered$|^wiki_records$|^search_fts_|^audit_log$/i;

/**
 * GETs that write on purpose, and what: a SCORM launch (player data, a preview) issues a
 * commit token for the learner's attempt, stored hashed (a new attempt the first time).
 * Only their answered (2xx) requests may change these tables; refused ones change nothing.
 */
export const LAUNCHING_GETS: Record<string, RegExp> = {
  'GET /external_training_modules/{id}/player': /^training_module_attempts /,
  'GET /external_training_modules/imports/{importid}/preview': /^training_module_attempts /,
};

export type Checksum = Map<string, string>;

const tableCache = new WeakMap<object, { at: number; names: string[] }>();

async function tables(db: Kysely<any>): Promise<string[]> {
  // The table list changes only with migrations; read it again now and then anyway.
  const hit = tableCache.get(db);
  if (hit && Date.now() - hit.at < 5000) return hit.names;
  const names = (await listTables(db)).filter((t) => !EXEMPT_TABLES.test(t));
  tableCache.set(db, { at: Date.now(), names });
  return names;
}

export async function checksum(db: Kysely<any>): Promise<Checksum> {
  const out: Checksum = new Map();
  const names = await tables(db);
  if (isPostgres(db)) {
    // One round trip: every table's row count and a hash of its rows' text, sorted.
    const parts = names.map((t) => sql`select ${t}::text as t, count(*)::int as n, md5(coalesce(string_agg(r::text, E'\n' order by r::text), '')) as h from ${sql.table(t)} r`);
    if (parts.length === 0) return out;
    const r = await sql<{ t: string; n: number; h: string }>`${sql.join(parts, sql` union all `)}`.execute(db);
    for (const row of r.rows) out.set(row.t, `${row.n}:${row.h}`);
    return out;
  }
  // SQLite: one query returns each table's rows as sorted text; hashed here.
  const cols = await sqliteColumns(db, names);
  const parts = names.map((t) => {
    const line = sql.join(cols.get(t)!.map((c) => sql`quote(${sql.ref(c)})`), sql` || '|' || `);
    return sql`select ${t} as t, count(*) as n, coalesce(group_concat(line, char(10)), '') as body from (select ${line} as line from ${sql.table(t)} order by 1)`;
  });
  if (parts.length === 0) return out;
  const r = await sql<{ t: string; n: number; body: string }>`${sql.join(parts, sql` union all `)}`.execute(db);
  for (const row of r.rows) out.set(row.t, `${row.n}:${createHash('sha1').update(row.body).digest('hex')}`);
  return out;
}

const columnCache = new WeakMap<object, Map<string, string[]>>();
async function sqliteColumns(db: Kysely<any>, names: string[]) {
  let m = columnCache.get(db);
  if (!m || names.some((n) => !m!.has(n))) {
    m = new Map();
    for (const t of names) m.set(t, (await sql<{ name: string }>`select name from pragma_table_info(${t})`.execute(db)).rows.map((x) => x.name));
    columnCache.set(db, m);
  }
  return m;
}

/** Tables whose content differs, with their row counts before -> after. */
export function changedTables(before: Checksum, after: Checksum): string[] {
  const out: string[] = [];
  for (const t of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(t);
    const b = after.get(t);
    if (a !== b) out.push(`${t} (${a?.split(':')[0] ?? 'absent'} -> ${b?.split(':')[0] ?? 'absent'} rows)`);
  }
  return out;
}

/** Row counts per table (exempt tables left out). */
export async function rowCounts(db: Kysely<any>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of await tables(db)) {
    const r = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(t)}`.execute(db);
    out.set(t, Number(r.rows[0].n));
  }
  return out;
}
