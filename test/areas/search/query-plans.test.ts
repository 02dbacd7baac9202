// The plans of hot queries, so that a change that makes one scan the site shows here
// rather than in a benchmark months later. Each query is captured as the app sends it and
// explained on the test's own database (PostgreSQL: EXPLAIN; SQLite: EXPLAIN QUERY PLAN).
// Tables here are small, so what is asserted is the plan's shape, not its costs.
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeComment } from '../../helpers/factories/wikis.js';
import { listComments } from '../../../src/areas/comments/comments.queries.js';
import { searchDocs } from '../../../src/db/search.js';

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

async function planOf(db: Kysely<any>, q: CompiledQuery): Promise<string> {
  if (t.dialect === 'postgres') {
    const r = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
    return r.rows.map((x) => x['QUERY PLAN']).join('\n');
  }
  const r = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
  return r.rows.map((x) => x.detail).join('\n');
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
    if (t.dialect === 'postgres') {
      expect(plan).toMatch(/search_docs_title_prefix/);
    } else {
      // A btree range on the title key, not the full-text index's ^ anchor.
      expect(plan).toMatch(/USING (COVERING )?INDEX search_docs_title_key \(<expr>>\? AND <expr><\?\)/);
      // Each candidate probes its target by the unique key (not a walk of every row of a kind).
      expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_search_docs_1 \(kind=\? AND docid=\? AND langid=\?\)/);
      expect(plan).not.toMatch(/VIRTUAL TABLE/);
    }
    const more = await captured(() => searchDocs(t.db, 'gearbox', { targets: [{ type: 'guide' }] }, { offset: 0, limit: 10 }));
    expect(more).toHaveLength(2); // three titles cannot fill ten: the full-text tiers fill up
  });
});
