// Full-text search, the same on both databases: one table `search_docs` that the
// database itself keeps in step with the indexed tables (triggers written by
// `createSearchSource`), searched with prefix queries by `searchDocs`.
//
//  - SQLite: an FTS5 table `search_fts` (external content over search_docs; tokenizer
//    unicode61 without diacritics; prefix indexes), told of search_docs' changes through
//    a log that triggers on search_docs append to (`logSqliteFtsWrites`) and that is
//    replayed in batches by the server's worker thread and by a search before it reads.
//  - PostgreSQL: a generated `tsvector` column on search_docs (the 'simple'
//    configuration: no stemming, so prefixes of any language match) with a GIN index;
//    title words carry weight A and body words weight B.
//
// A row of search_docs is one indexed thing (`kind`, `docid`, `langid`: a wiki in one
// language, a guide in one language, a user, a comment...) and names the document a
// hit on it leads to (`target_type`, `target_id`, `target_langid`): a wiki or guide
// leads to itself, a comment to the guide or wiki it is on. Writes by any area (or by
// hand in SQL) reach search_docs in the same transaction, and are found at once.
//
// The functions that write triggers are used by migrations, so what they generate is
// frozen: change their output only by adding a new function.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres, likeEscape, withId } from './helpers.js';
import { prepared } from './prepared.js';
import type { Database } from './schema.js';

/** Longest text indexed per row (PostgreSQL refuses tsvectors past 1 MB). */
const BODY_LIMIT = 100_000;

/** Creates search_docs and its full-text index. */
export async function createSearchIndex(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('search_docs'), 'id')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('docid', 'integer', (c) => c.notNull())
    .addColumn('langid', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'integer')
    .addColumn('target_langid', 'text')
    .addUniqueConstraint('search_docs_key', ['kind', 'docid', 'langid'])
    .execute();
  await db.schema.createIndex('search_docs_target').on('search_docs').columns(['target_type', 'target_id', 'target_langid']).execute();
  if (isPostgres(db)) {
    await sql`alter table search_docs add column tsv tsvector generated always as (
      setweight(to_tsvector('simple'::regconfig, title), 'A') || setweight(to_tsvector('simple'::regconfig, body), 'B')) stored`.execute(db);
    await sql`create index search_docs_tsv on search_docs using gin (tsv)`.execute(db);
    return;
  }
  await createSqliteFts(db, 'unicode61 remove_diacritics 2');
}

/**
 * SQLite: the FTS5 table over search_docs with `tokenize`, its triggers, and its index
 * built from the rows search_docs holds. (Used by migrations: frozen.)
 */
export async function createSqliteFts(db: Kysely<any>, tokenize: string): Promise<void> {
  await sql.raw(`create virtual table search_fts using fts5(title, body, content='search_docs', content_rowid='id',
    tokenize='${tokenize}', prefix='1 2 3')`).execute(db);
  await createImmediateFtsTriggers(db);
  await sql`insert into search_fts(search_fts) values ('rebuild')`.execute(db);
}

/** SQLite: the triggers on search_docs that write the FTS5 index in the same statement. (Used by migrations: frozen.) */
async function createImmediateFtsTriggers(db: Kysely<any>): Promise<void> {
  await sql`create trigger search_docs_ai after insert on search_docs begin
    insert into search_fts(rowid, title, body) values (new.id, new.title, new.body); end`.execute(db);
  await sql`create trigger search_docs_ad after delete on search_docs begin
    insert into search_fts(search_fts, rowid, title, body) values ('delete', old.id, old.title, old.body); end`.execute(db);
  await sql`create trigger search_docs_au after update of title, body on search_docs begin
    insert into search_fts(search_fts, rowid, title, body) values ('delete', old.id, old.title, old.body);
    insert into search_fts(rowid, title, body) values (new.id, new.title, new.body); end`.execute(db);
}

/**
 * SQLite: the full-text index is written from a log, not by the statement that changes
 * search_docs (migration 2026_11_25_0900_search_index_log). The triggers on search_docs
 * append what FTS5 would have been told, in order: the old title and body of a row to
 * remove (`remove` 1), the new ones of a row to add (0). A row whose title and body did
 * not change is not re-indexed. (Used by migrations: frozen.)
 */
export async function logSqliteFtsWrites(db: Kysely<any>): Promise<void> {
  await sql`create table search_fts_log (seq integer primary key, id integer not null, title text not null, body text not null, remove integer not null)`.execute(db);
  for (const suffix of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists search_docs_${suffix}`).execute(db);
  await sql`create trigger search_docs_ai after insert on search_docs begin
    insert into search_fts_log (id, title, body, remove) values (new.id, new.title, new.body, 0); end`.execute(db);
  await sql`create trigger search_docs_ad after delete on search_docs begin
    insert into search_fts_log (id, title, body, remove) values (old.id, old.title, old.body, 1); end`.execute(db);
  await sql`create trigger search_docs_au after update of title, body on search_docs when old.title is not new.title or old.body is not new.body begin
    insert into search_fts_log (id, title, body, remove) values (old.id, old.title, old.body, 1), (new.id, new.title, new.body, 0); end`.execute(db);
}

/** SQLite: back to triggers that write the full-text index at once (the log's rows are replayed first). */
export async function unlogSqliteFtsWrites(db: Kysely<any>): Promise<void> {
  await sql.raw(SEARCH_LOG_REPLAY).execute(db);
  for (const suffix of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists search_docs_${suffix}`).execute(db);
  await sql`drop table search_fts_log`.execute(db);
  await createImmediateFtsTriggers(db);
}

// Replaying the log: its rows in order, a removal as FTS5's 'delete' command (NULL in the
// command column is a plain insert), then the rows replayed are deleted; in one write
// transaction. The server's worker thread replays it in batches (db/checkpointer.ts), and
// a search replays what is left before it reads the index, so a write is found at once.
/** SQLite: the statement that replays the whole log (then empty it: SEARCH_LOG_CLEAR). */
export const SEARCH_LOG_REPLAY = `insert into search_fts(search_fts, rowid, title, body)
  select case when remove = 1 then 'delete' end, id, title, body from search_fts_log order by seq`;
export const SEARCH_LOG_CLEAR = 'delete from search_fts_log';
/** The same for the rows up to a seq (the worker's batches). */
export const SEARCH_LOG_REPLAY_UPTO = `insert into search_fts(search_fts, rowid, title, body)
  select case when remove = 1 then 'delete' end, id, title, body from search_fts_log where seq <= ? order by seq`;
export const SEARCH_LOG_CLEAR_UPTO = 'delete from search_fts_log where seq <= ?';

const logPending = prepared<Record<string, never>, { n: number }>('search_log_pending', (db) =>
  (db as Kysely<any>).selectFrom('search_fts_log').select(sql<number>`1`.as('n')).limit(1));

/** SQLite: replays the full-text index's log, if it holds anything, before the index is read. */
export async function replaySearchLog(db: Kysely<any>): Promise<void> {
  if (isPostgres(db) || (await logPending(db as Kysely<Database>, {})).length === 0) return;
  await db.transaction().execute(async (trx) => {
    await sql.raw(SEARCH_LOG_REPLAY).execute(trx);
    await sql.raw(SEARCH_LOG_CLEAR).execute(trx);
  });
}

/** SQLite: removes the FTS5 table and its triggers (search_docs stays). */
export async function dropSqliteFts(db: Kysely<any>): Promise<void> {
  for (const suffix of ['ai', 'ad', 'au']) await sql.raw(`drop trigger if exists search_docs_${suffix}`).execute(db);
  await sql`drop table if exists search_fts`.execute(db);
}

export async function dropSearchIndex(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop table if exists search_fts`.execute(db);
  await db.schema.dropTable('search_docs').ifExists().execute();
}

/**
 * A table whose rows the database indexes by itself. Every expression is portable SQL
 * in which `@col` stands for a column of the row being written (NEW/OLD in a trigger,
 * the row in the back-fill); sub-selects of other tables are allowed.
 */
export interface SearchSource {
  /** Names the triggers: search_<name>_... */
  name: string;
  table: string;
  kind: string;
  docid: string;
  langid: string;
  namespace: string;
  /**
   * '' unless the row is its own target (kind, docid and langid are the target's): the
   * title tier of searchDocs reads a titled row as the document it leads to.
   */
  title: string;
  body: string;
  /** 1 when the row may be found, 0 otherwise. */
  visible: string;
  targetType: string;
  targetId: string;
  targetLangid: string;
  /** Only updates of these columns re-index the row. */
  watch: string[];
}

const row = (expr: string, prefix: string) => expr.replace(/@(\w+)/g, `${prefix}.$1`);

function values(s: SearchSource, p: string): string {
  return [
    `'${s.kind}'`, row(s.docid, p), row(s.langid, p), `coalesce(${row(s.namespace, p)}, '')`,
    `substr(coalesce(${row(s.title, p)}, ''), 1, 1000)`, `substr(coalesce(${row(s.body, p)}, ''), 1, ${BODY_LIMIT})`,
    row(s.visible, p), row(s.targetType, p), row(s.targetId, p), row(s.targetLangid, p),
  ].join(', ');
}

const COLUMNS = 'kind, docid, langid, namespace, title, body, visible, target_type, target_id, target_langid';
const UPSERT_SET = 'namespace = excluded.namespace, title = excluded.title, body = excluded.body, visible = excluded.visible, ' +
  'target_type = excluded.target_type, target_id = excluded.target_id, target_langid = excluded.target_langid';

function upsert(s: SearchSource, p: string): string {
  return `insert into search_docs (${COLUMNS}) values (${values(s, p)}) on conflict (kind, docid, langid) do update set ${UPSERT_SET}`;
}

function removeOld(s: SearchSource): string {
  return `delete from search_docs where kind = '${s.kind}' and docid = ${row(s.docid, 'OLD')} and langid = ${row(s.langid, 'OLD')}`;
}

/** Installs the triggers that index `source` and indexes its existing rows. */
export async function createSearchSource(db: Kysely<any>, s: SearchSource): Promise<void> {
  if (s.title !== `''` && (s.targetType !== `'${s.kind}'` || s.targetId !== s.docid || s.targetLangid !== s.langid)) {
    throw new Error(`search source ${s.name}: a row with a title must be its own target (see SearchSource.title)`);
  }
  const watch = s.watch.join(', ');
  if (isPostgres(db)) {
    await sql.raw(`create or replace function search_${s.name}_sync() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'DELETE' then
    ${removeOld(s)};
    return OLD;
  end if;
  if tg_op = 'UPDATE' then
    if ${row(s.docid, 'OLD')} is distinct from ${row(s.docid, 'NEW')} or ${row(s.langid, 'OLD')} is distinct from ${row(s.langid, 'NEW')} then
      ${removeOld(s)};
    end if;
  end if;
  ${upsert(s, 'NEW')};
  return NEW;
end
$fn$`).execute(db);
    await sql.raw(`create trigger search_${s.name} after insert or delete or update of ${watch} on ${s.table}
      for each row execute function search_${s.name}_sync()`).execute(db);
  } else {
    await sql.raw(`create trigger search_${s.name}_ai after insert on ${s.table} begin ${upsert(s, 'NEW')}; end`).execute(db);
    await sql.raw(`create trigger search_${s.name}_au after update of ${watch} on ${s.table} begin
      ${removeOld(s)} and (${row(s.docid, 'OLD')} is not ${row(s.docid, 'NEW')} or ${row(s.langid, 'OLD')} is not ${row(s.langid, 'NEW')});
      ${upsert(s, 'NEW')}; end`).execute(db);
    await sql.raw(`create trigger search_${s.name}_ad after delete on ${s.table} begin ${removeOld(s)}; end`).execute(db);
  }
  // Rows written before the triggers existed.
  await sql.raw(`insert into search_docs (${COLUMNS}) select ${values(s, 'src')} from ${s.table} src where true
    on conflict (kind, docid, langid) do update set ${UPSERT_SET}`).execute(db);
}

/** Removes the triggers of a source (its rows in search_docs stay until re-indexed or deleted). */
export async function dropSearchSource(db: Kysely<any>, s: Pick<SearchSource, 'name' | 'table'>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger if exists search_${s.name} on ${s.table}`).execute(db);
    await sql.raw(`drop function if exists search_${s.name}_sync()`).execute(db);
    return;
  }
  for (const suffix of ['ai', 'au', 'ad']) await sql.raw(`drop trigger if exists search_${s.name}_${suffix}`).execute(db);
}

// ---------------------------------------------------------------------------- queries

/** The words of a query, lower-cased: letters and digits, at most 8 of them. */
export function searchTokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8);
}

export interface SearchFilter {
  /** Which target documents: a type, optionally limited to namespaces (wikis). */
  targets: Array<{ type: string; namespaces?: string[] }>;
  /** Only these target languages; undefined: any. */
  langids?: string[];
  /** Also rows not visible (private or deleted guides): for callers that check access on every hit themselves. */
  includeHidden?: boolean;
}

export interface SearchHit {
  type: string;
  id: number;
  langid: string;
  /** 0: the title starts with the query; 1: every word prefixes a title word; 2: elsewhere. */
  tier: number;
}

/**
 * How searchDocs found its page. `fromTitles`: from the title-prefix tier alone (or no
 * search at all), so that the page rests only on the columns of search_docs the
 * 'search_titles' stamp follows (migration 2026_11_25_0810), not on bodies.
 */
export interface SearchAnswered {
  fromTitles: boolean;
  /** With `page.count`: how many documents matched among the candidates ranked (every tier's, so bounded as they are). */
  total?: number;
}

/** Candidates taken from the index per tier (more for deep pages, at most MAX_CANDIDATES); see searchDocs. */
const CANDIDATES = 200;
const MAX_CANDIDATES = 5000;

/**
 * SQLite: the title as JavaScript lowers it, as far as an ASCII prefix can tell: lower()
 * folds A-Z only, and the only other characters that JavaScript lowers to something
 * starting with ASCII are U+0130 (to `i` and a combining dot) and U+212A (to `k`),
 * replaced first. So for an ASCII prefix p, `title.toLowerCase().startsWith(p)` exactly
 * when TITLE_KEY starts with p. Indexed by migration 2026_11_25_0400 (partial: titled
 * rows; made again, covering `namespace` too, by 2026_11_27_0110), which must spell the
 * same expression for SQLite to use the index.
 */
const TITLE_KEY = `lower(replace(replace(d.title, '\u0130', 'i\u0307'), '\u212A', 'k'))`;
/** Printable ASCII (what the title key serves; any other prefix keeps the FTS5 anchor). */
const ASCII = /^[ -~]+$/;
/** The least string above every string that starts with `p` (ASCII): its last character plus one. */
const asciiSuccessor = (p: string) => p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1);

/** Code point order (UTF-8 byte order), the same whatever a database's collation. */
const byCodePoints = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * Documents matching every word of `text` as a prefix, in one explicit order, the same
 * on both databases:
 *
 *  1. tier: titles that start with the query (case-insensitively), then titles holding
 *     every word as a word prefix, then the rest (bodies, comments);
 *  2. shorter titles first (in characters);
 *  3. title, by code point;
 *  4. type (guide, user, wiki...), then id, then langid.
 *
 * One hit per target document, and only targets that are themselves indexed and visible.
 * Matching is case-insensitive and diacritic-sensitive on both databases (`e` does not
 * find `é`; SQLite's index stopped folding them in migration 1610).
 *
 * Bounded at any size: each tier takes at most CANDIDATES matching rows from the index
 * (more for deep pages, up to MAX_CANDIDATES), and only those are ranked. A short prefix
 * can match a large part of the index (`con` matched 140 000 of 1.4 million rows at
 * 100 000 guides); ranking every match took seconds. The title-prefix tier's candidates
 * are the first titles in the order of their lower-cased bytes, on both databases (for
 * an ASCII prefix); past the candidates, which rows the other tiers hold is the full-text
 * index's choice: acceptable for a suggester.
 */
export async function searchDocs(db: Kysely<any>, text: string, filter: SearchFilter, page: { offset: number; limit: number; count?: boolean }, answered?: SearchAnswered): Promise<SearchHit[]> {
  const tokens = searchTokens(text);
  if (answered) answered.fromTitles = true;
  if (answered && page.count) answered.total = 0;
  if (tokens.length === 0 || filter.targets.length === 0) return [];
  const prefix = text.trim().toLowerCase();
  const like = likeEscape(prefix) + '%';
  const types = [...new Set(filter.targets.map((t) => t.type))];
  const cap = Math.min(MAX_CANDIDATES, Math.max(CANDIDATES, (page.offset + page.limit) * 5));
  const targetFilter = (kind: string, namespace: string) => sql.join(filter.targets.map((t) => t.namespaces
    ? sql`(${sql.ref(kind)} = ${t.type} and ${sql.ref(namespace)} in (${sql.join(t.namespaces)}))`
    : sql`${sql.ref(kind)} = ${t.type}`), sql` or `);
  const langFilter: RawBuilder<unknown> = filter.langids ? sql`and d.target_langid in (${sql.join(filter.langids)})` : sql``;
  const visible = (alias: string) => (filter.includeHidden ? sql`` : sql`and ${sql.ref(`${alias}.visible`)} = 1`);
  const rowFilter = sql`d.target_type in (${sql.join(types)}) ${visible('d')} ${langFilter}`;

  const CANDIDATE = sql`d.target_type as type, d.target_id as id, d.target_langid as langid, d.title as hit_title, d.namespace as namespace,`;
  // The candidates: rows of search_docs (what they lead to, their title), each with the
  // tier query that found it; only the target is joined after (no second lookup by id).
  let tierSql: (n: 0 | 1 | 2) => RawBuilder<unknown>;
  if (isPostgres(db)) {
    const query = tokens.map((t) => `${t}:*`).join(' & ');
    const titleQuery = tokens.map((t) => `${t}:*A`).join(' & ');
    const where = [sql`lower(d.title) like ${like} escape '\\'`, sql`d.tsv @@ to_tsquery('simple', ${titleQuery})`, sql`d.tsv @@ to_tsquery('simple', ${query})`];
    // Tier 0 takes the first titles in the order of the prefix index (text_pattern_ops:
    // byte order, the order SQLite's title key is walked in), read in that order until the
    // limit: left to itself the planner took a common prefix's every match into a bitmap
    // (7 600 rows for `valve` at 100 000 guides) and kept whichever 200 came first on disk.
    const order = [sql`order by lower(d.title) using ~<~`, sql``, sql``];
    tierSql = (n) => sql`(select ${CANDIDATE} ${n}::int as t from search_docs d where ${where[n]} and ${rowFilter} ${order[n]} limit ${cap})`;
  } else {
    const match = [`title : ^"${tokens.join(' ')}"*`, `title : (${tokens.map((t) => `"${t}"*`).join(' AND ')})`, tokens.map((t) => `"${t}"*`).join(' ')];
    const fts = (n: 0 | 1 | 2) => sql`select * from (select ${CANDIDATE} ${n} as t
      from search_fts f join search_docs d on d.id = f.rowid where search_fts match ${match[n]} and ${rowFilter} limit ${cap})`;
    // An ASCII prefix: the titles that start with it are one range of the title key's
    // index (exactly those: see TITLE_KEY), where FTS5's ^ anchor walked every document
    // of a short prefix's doclist. Other prefixes keep the anchor.
    tierSql = (n) => (n === 0 && ASCII.test(prefix)
      ? sql`select * from (select ${CANDIDATE} 0 as t from search_docs d indexed by search_docs_title_key
        where ${sql.raw(TITLE_KEY)} >= ${prefix} and ${sql.raw(TITLE_KEY)} < ${asciiSuccessor(prefix)} and d.title <> '' and ${rowFilter}
        order by ${sql.raw(TITLE_KEY)} limit ${cap})`
      : fts(n));
  }
  // SQLite: the candidates drive the join (CROSS JOIN fixes the order), each probing its
  // target by the unique key; without statistics the planner would rather walk every row
  // of a kind and look the candidates up in an automatic index.
  const targetJoin = sql.raw(isPostgres(db) ? 'join' : 'cross join');
  // On SQLite, what the full-text index has not been told yet is replayed first (tier 0 of
  // an ASCII prefix reads only search_docs).
  const readsFts = (tiers: Array<0 | 1 | 2>) => !isPostgres(db) && tiers.some((n) => n > 0 || !ASCII.test(prefix));
  const fetchTiers = async (tiers: Array<0 | 1 | 2>) => {
    if (readsFts(tiers)) await replaySearchLog(db);
    // The title tier alone reads no target: a row with a title is its own target
    // (SearchSource.title), so its candidates carry what the target filter asks and are
    // filtered after their limit, as the join filters those of every tier (the limit
    // counts the same rows). The join's 200 probes were half of a common prefix's time.
    if (tiers.length === 1 && tiers[0] === 0) {
      return (await sql<CandidateRow>`
      select c.type, c.id, c.langid, c.t, c.hit_title, c.hit_title as title
      from (${tierSql(0)}) c where ${targetFilter('c.type', 'c.namespace')}`.execute(db)).rows;
    }
    return (await sql<CandidateRow>`
    select c.type, c.id, c.langid, c.t, c.hit_title, t.title as title
    from (${sql.join(tiers.map(tierSql), sql` union all `)}) c
    ${targetJoin} search_docs t on t.kind = c.type and t.docid = c.id and t.langid = c.langid ${visible('t')}
    where ${targetFilter('t.kind', 't.namespace')}`.execute(db)).rows;
  };

  // The title-prefix tier comes from a btree range (the FTS anchor on SQLite for a prefix
  // that is not ASCII) and ranks first: when it alone fills the page, the word-prefix tiers (whose short
  // prefixes scan much of the full-text index) cannot change the answer and are not asked.
  const hits = rankHits(await fetchTiers([0]), prefix);
  const wanted = page.offset + page.limit;
  // A count (GET /search's totalResults) needs every tier's candidates.
  const fromTitles = !page.count && hits.filter((h) => h.tier === 0).length >= wanted;
  if (answered) answered.fromTitles = fromTitles;
  const ranked = fromTitles ? hits : rankHits(await fetchTiers([0, 1, 2]), prefix);
  if (answered && page.count) answered.total = ranked.length;
  return ranked.slice(page.offset, wanted).map(({ type, id, langid, tier }) => ({ type, id, langid, tier }));
}

interface CandidateRow { type: string; id: number; langid: string; t: number; hit_title: string; title: string }

/** One hit per target document, its best tier, in the order searchDocs describes. */
function rankHits(rows: CandidateRow[], prefix: string): Array<SearchHit & { title: string }> {
  const hits = new Map<string, SearchHit & { title: string }>();
  for (const r of rows) {
    const tier = r.hit_title.toLowerCase().startsWith(prefix) ? 0 : Number(r.t) <= 1 ? 1 : 2;
    const key = `${r.type}\u0000${r.id}\u0000${r.langid}`;
    const seen = hits.get(key);
    if (!seen) hits.set(key, { type: r.type, id: Number(r.id), langid: r.langid, tier, title: r.title });
    else seen.tier = Math.min(seen.tier, tier);
  }
  // Each title's length and bytes once, not in every comparison (a sort of 200 candidates
  // compares some 1 500 times).
  const keyed = [...hits.values()].map((h) => ({ h, length: [...h.title].length, bytes: Buffer.from(h.title) }));
  return keyed
    .sort((a, b) => a.h.tier - b.h.tier || a.length - b.length || Buffer.compare(a.bytes, b.bytes)
      || byCodePoints(a.h.type, b.h.type) || a.h.id - b.h.id || byCodePoints(a.h.langid, b.h.langid))
    .map((k) => k.h);
}
