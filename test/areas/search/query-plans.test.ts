// The plans of hot queries, so that a change that makes one scan the site shows here
// rather than in a benchmark months later. Each query is captured as the app sends it and
// explained on the test's own database (PostgreSQL: EXPLAIN; SQLite: EXPLAIN QUERY PLAN).
// Tables here are small, so what is asserted is the plan's shape, not its costs.
import { CompiledQuery, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeComment } from '../../helpers/factories/wikis.js';
import { listComments } from '../../../src/areas/comments/comments.queries.js';
import { searchDocs } from '../../../src/db/search.js';
import { listQuizEntries } from '../../../src/areas/quizzes/quizzes.queries.js';
import { guideCaches } from '../../../src/areas/guides/guides.cache.js';
import { flushStoredRecords } from '../../../src/areas/guides/guides.stored.js';

let author: TestUser;
let user: TestUser;
const t = appForFile({}, async () => {
  [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
  for (let i = 0; i < 3; i++) {
    const g = await makePublishedGuide(t, author, 1, { title: `Gearbox overhaul ${i}` });
    await makeComment(t, user, 'guide', g.guideid, { text: 'How long does this take?' });
  }
  if (t.dialect === 'postgres') {
    // PostgreSQL plans by statistics: on a handful of rows any plan is cheapest. A site of
    // some size, written in bulk (the triggers index it), and analyzed.
    const base = 1_000_000;
    await sql`insert into guides (guideid, langid, revisionid, userid, type, category, title, created_date, modified_date, public)
      select ${base} + i, 'en', 1, ${author.userid}, 'replacement', 'Bulk', 'Bulk part ' || i || ' replacement', 0, 0, case when i % 20 = 0 then 0 else 1 end
      from generate_series(1, 5000) i`.execute(t.db);
    await sql`insert into comments (context, contextid, langid, text_raw, date, userid)
      select 'guide', ${base} + 1 + (i % 5000), 'en', 'A bulk comment', 0, ${user.userid} from generate_series(1, 10000) i`.execute(t.db);
    await sql`insert into quizzes (title, category, created_date, released_date, sessions_submitted, deleted)
      select 'Quiz ' || i, 'Bulk', 0, i, i % 7, case when i % 50 = 0 then 1 else 0 end from generate_series(1, 5000) i`.execute(t.db);
    await sql`analyze`.execute(t.db);
  }
});

/** The queries `run` sends, each with its parameters. */
async function captured(run: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const out: CompiledQuery[] = [];
  const listen = t.app.dbHandle.setQueryListener;
  if (!listen) throw new Error('this database handle takes no query listener');
  listen((event) => { if (event.level === 'query') out.push(event.query); });
  try {
    await run();
  } finally {
    listen(null);
  }
  return out;
}

/** The plan of `q`; `topLevel`: only the outer query's steps (not its subqueries'). */
async function planOf(db: Kysely<any>, q: CompiledQuery, opts: { topLevel?: boolean } = {}): Promise<string> {
  if (t.dialect === 'postgres') {
    const r = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
    const lines = r.rows.map((x) => x['QUERY PLAN']);
    // The outer query's steps are the lines before its first SubPlan.
    const subplan = lines.findIndex((l) => /SubPlan/.test(l));
    return (opts.topLevel && subplan >= 0 ? lines.slice(0, subplan) : lines).join('\n');
  }
  const r = await db.executeQuery<{ parent: number; detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
  return r.rows.filter((x) => !opts.topLevel || x.parent === 0).map((x) => x.detail).join('\n');
}

describe('query plans of hot reads', () => {
  it('GET /comments?context=guide probes the guides of the page (never hashes or scans every readable guide)', async () => {
    const [q] = await captured(() => listComments(t.db, null, false, { context: 'guide', offset: 0, limit: 20 } as any));
    const plan = await planOf(t.db, q);
    if (t.dialect === 'postgres') expect(plan).not.toMatch(/hashed SubPlan/);
    else expect(plan).not.toMatch(/^SCAN g\b/m);
    expect(plan).toMatch(/guides/);
  });

  it('suggest asks only the title-prefix tier when it fills the page, and that tier reads an index', async () => {
    const queries = await captured(() => searchDocs(t.db, 'gearbox', { targets: [{ type: 'guide' }] }, { offset: 0, limit: 2 }));
    expect(queries).toHaveLength(1);
    const plan = await planOf(t.db, queries[0]);
    // A titled row is its own target: the title tier looks up no target.
    expect(plan).not.toMatch(/sqlite_autoindex_search_docs_1|search_docs_key/);
    if (t.dialect === 'postgres') {
      expect(plan).toMatch(/search_docs_title_prefix/);
    } else {
      // A btree range on the title key, walked in its order (no sort), not the full-text index's ^ anchor.
      expect(plan).toMatch(/USING COVERING INDEX search_docs_title_key \(<expr>>\? AND <expr><\?\)/);
      expect(plan).not.toMatch(/VIRTUAL TABLE|TEMP B-TREE/);
      // Covering also when wikis of some namespaces are asked for, whose filter reads each
      // candidate's namespace (migration 2026_11_27_0110): no candidate is looked up in the table.
      const withWikis = await captured(() => searchDocs(t.db, 'gearbox', { targets: [{ type: 'guide' }, { type: 'wiki', namespaces: ['CATEGORY', 'ITEM'] }] }, { offset: 0, limit: 2 }));
      expect(await planOf(t.db, withWikis[0])).toMatch(/USING COVERING INDEX search_docs_title_key \(<expr>>\? AND <expr><\?\)/);
    }
    const more = await captured(() => searchDocs(t.db, 'gearbox', { targets: [{ type: 'guide' }] }, { offset: 0, limit: 10 }));
    // Three titles cannot fill ten: the full-text tiers fill up (on SQLite after the index's
    // log is looked at, and replayed if it holds the setup's writes).
    expect(more.filter((q) => !/search_fts_log|^(begin|commit)/.test(q.sql))).toHaveLength(2);
  });

  // PostgreSQL only: its planner chose by the estimate, and the bulk rows are written there.
  it.skipIf(!process.env.TEST_DATABASE_URL)('suggest reads a common title prefix from the index in its order, up to the limit (no bitmap of every match, no sort)', async () => {
    // 5 000 guides titled 'Bulk part ...', analyzed: the planner expects thousands of matches.
    const queries = await captured(() => searchDocs(t.db, 'bulk', { targets: [{ type: 'guide' }] }, { offset: 0, limit: 2 }));
    expect(queries).toHaveLength(1);
    const plan = await planOf(t.db, queries[0]);
    expect(plan).toMatch(/Index Scan using search_docs_title_prefix/);
    expect(plan).not.toMatch(/Bitmap|Sort/);
  });

  it('GET /quizzes sorted by title or by sessions reads its page in order from an index (no sort of every quiz)', async () => {
    for (const sort of ['quiz_title', 'sessions_submitted'] as const) {
      for (const order of ['ASC', 'DESC'] as const) {
        const [q] = await captured(() => listQuizEntries(t.db, t.app.config, { offset: 0, limit: 20, sort, order }));
        const plan = await planOf(t.db, q, { topLevel: true });
        const index = sort === 'quiz_title' ? 'quizzes_title_sort' : 'quizzes_sessions_sort';
        expect(plan, `${sort} ${order}`).toMatch(new RegExp(index));
        expect(plan, `${sort} ${order}`).not.toMatch(t.dialect === 'postgres' ? /\bSort\b/ : /TEMP B-TREE FOR ORDER BY/);
      }
    }
  });

  // PostgreSQL only: its plan cache. A named statement is planned anew on every run while
  // its custom plans cost less than its generic one (db/prepared.ts `plannedAsAnyArray`).
  it.skipIf(!process.env.TEST_DATABASE_URL)('the heads and stored records of concurrent guide reads are planned once, not on every run', async () => {
    const guides = await Promise.all([1, 2, 3, 4, 5].map((n) => makePublishedGuide(t, author, 1, { title: `Concurrent read ${n}` })));
    for (const g of guides) expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200);
    await flushStoredRecords(t.app);
    guideCaches(t.app).guides.clear();
    const queries = await captured(() => Promise.all(guides.map(async (g) => expect((await t.get(`/guides/${g.guideid}`)).statusCode).toBe(200))));
    // The reads that asked while the first's were out: their heads, and their records, in one query each (of several keys).
    const batched = queries.filter((q) => /= any\(/.test(q.sql));
    const kinds = new Set(batched.map((q) => (/from "guide_records"/.test(q.sql) ? 'records' : 'heads')));
    expect([...kinds].sort(), queries.map((q) => q.sql).join('\n')).toEqual(['heads', 'records']);
    const client = new pg.Client({ connectionString: t.app.dbHandle.location });
    await client.connect();
    try {
      for (const [i, q] of batched.entries()) {
        // As the app runs it: a named statement, run again and again on one connection.
        for (let run = 0; run < 7; run++) await client.query({ name: `plan_test_${i}`, text: q.sql, values: [...q.parameters] });
        const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [`plan_test_${i}`]);
        // Five custom plans, then the generic one, planned no more.
        expect([Number(rows[0].custom_plans), Number(rows[0].generic_plans)], q.sql).toEqual([5, 2]);
      }
    } finally {
      await client.end();
    }
  });

  it('GET /guides at a deep offset finds the page\'s keys in an index first and reads only its rows', async () => {
    const queries = await captured(async () => expect((await t.get('/guides?offset=4000&limit=20')).statusCode).toBe(200));
    const page = queries.find((q) => /"page"/.test(q.sql));
    expect(page, 'the page query').toBeDefined();
    const plan = await planOf(t.db, page!);
    if (t.dialect === 'postgres') {
      // The limit applies to the keys, below the joins that read the rows and their owners.
      expect(plan.split('\n')[0]).not.toMatch(/^Limit/);
      expect(plan).toMatch(/->\s+Limit/);
    } else {
      expect(plan).toMatch(/SEARCH k USING COVERING INDEX guides_list/);
      expect(plan).toMatch(/SEARCH g USING INDEX sqlite_autoindex_guides_1 \(guideid=\? AND langid=\?\)/);
    }
  });

  it('a kept list page and a kept suggestion, after an edit of another guide, are checked by their rows\' keys and stamps alone, one table, one index', async () => {
    const page = '/guides?offset=40&limit=20';
    const suggest = '/suggest/gearbox';
    const other = await makePublishedGuide(t, author, 0, { title: 'Edited elsewhere' });
    expect((await t.get(page)).statusCode).toBe(200);
    expect((await t.get(suggest)).statusCode).toBe(200);
    // A column lists show and the search does not: the suggestion's hits stay as they were.
    const edit = await t.patch(`/guides/${other.guideid}?revisionid=${other.revisionid}`, { token: author.token, body: { difficulty: 'Difficult' } });
    expect(edit.statusCode, edit.body).toBe(200);
    await flushStoredRecords(t.app);
    const queries = await captured(async () => {
      expect((await t.get(page)).statusCode).toBe(200);
      expect((await t.get(suggest)).statusCode).toBe(200);
    });
    const checks = queries.filter((q) => /"cache_stamp"/.test(q.sql) && /from "guides"/.test(q.sql));
    expect(checks.map((q) => q.sql), queries.map((q) => q.sql).join('\n')).toHaveLength(2);
    for (const q of checks) {
      expect(q.sql).not.toMatch(/join/);
      const plan = await planOf(t.db, q);
      // The rows' stamps by their keys (one index, its table), no scan.
      if (t.dialect === 'postgres') {
        expect(plan, q.sql).toMatch(/Index (Only )?Scan using guides_(list|pk) on guides [gk]/);
        expect(plan, q.sql).not.toMatch(/Seq Scan/);
      } else expect(plan, q.sql).toMatch(/^SEARCH [gk] USING INDEX guides_list \(deleted=\? AND public=\?[^\n]*$/);
    }
  });
});
