// PostgreSQL: every trigger function that reads the row (NEW or OLD) plans its statements
// once per connection (migration 2026_11_27_0800_trigger_generic_plans): `plan_cache_mode`
// is set on each, and on no other (the setting costs every call). A migration that creates
// or replaces such a function without it fails here. SQLite has no plan cache.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { makeAuthor, makeUser } from '../helpers/factories.js';
import { makeWiki } from '../helpers/factories/wikis.js';
import * as triggerGenericPlans from '../../src/db/migrations/2026_11_27_0800_trigger_generic_plans.js';

const t = appForFile();
const onPostgres = !!process.env.TEST_DATABASE_URL;

/** The schema's PL/pgSQL trigger functions with their settings. */
const triggerFunctions = async () => (await sql<{ name: string; config: string[] | null; readsRow: boolean }>`
  select p.proname as name, p.proconfig as config, p.prosrc ~* '\\m(new|old)\\.' as "readsRow" from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype
    and p.prolang = (select oid from pg_language where lanname = 'plpgsql')
  order by 1`.execute(t.db)).rows;

describe.skipIf(!onPostgres)('trigger functions and their plans', () => {
  const generic = (f: { config: string[] | null }) => (f.config ?? []).includes('plan_cache_mode=force_generic_plan');

  it('every trigger function that reads NEW or OLD keeps generic plans; the others carry no setting', async () => {
    const functions = await triggerFunctions();
    expect(functions.filter((f) => f.readsRow).length).toBeGreaterThan(40);
    expect(functions.filter((f) => !f.readsRow).length).toBeGreaterThan(20);
    expect(functions.filter((f) => f.readsRow && !generic(f)).map((f) => f.name)).toEqual([]);
    expect(functions.filter((f) => !f.readsRow && f.config !== null).map((f) => f.name)).toEqual([]);
    expect(functions.find((f) => f.name === 'search_comments_sync')).toMatchObject({ readsRow: true });
  });

  it('the triggers still do their work: a comment is in the search index at once', async () => {
    const user = await makeUser(t);
    const wiki = await makeWiki(t, await makeAuthor(t), { display_title: 'Gearbox oil' });
    const res = await t.post(`/comments/wiki/${wiki.wikiid}`, { token: user.token, body: { text: 'Sump drained with quokkaplan once' } });
    expect(res.statusCode).toBe(201);
    const doc = await t.db.selectFrom('search_docs').select(['kind', 'docid', 'target_type', 'target_id']).where('kind', '=', 'comment').where('docid', '=', res.json().commentid).executeTakeFirst();
    expect(doc).toEqual({ kind: 'comment', docid: res.json().commentid, target_type: 'wiki', target_id: wiki.wikiid });
  });

  it('down resets the setting on every function; up sets it again', async () => {
    await triggerGenericPlans.down(t.db);
    expect((await triggerFunctions()).filter((f) => f.config !== null)).toEqual([]);
    await triggerGenericPlans.up(t.db);
    expect((await triggerFunctions()).every((f) => generic(f) === f.readsRow)).toBe(true);
  });
});
