// Migration 2026_12_04_1000_guide_reader_view on a site with a guide under an approval
// process and a pending draft: after it, readers see the approved revision in lists and
// search, never the draft (the search index is rebuilt from the reader's texts).
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { makeCategoryAt, makeProcess } from './helpers.js';

let admin: TestUser;
let author: TestUser;
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  author = await makeAuthor(t);
});

describe('the reader columns of guides already under a process', () => {
  it('are filled by the migration: lists and suggest show the approved title, not the draft', async () => {
    const process = await makeProcess(t, admin.token, [{ userid: admin.userid }]);
    const cat = await makeCategoryAt(t);
    const g = await makePublishedGuide(t, author, 0, { category: cat.title, title: 'Migratedapproved guide' });
    expect((await t.put(`/approvals/${cat.wikiid}/${process.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
    expect((await t.patch(`/guides/${g.guideid}?revisionid=${g.revisionid}`, { token: author.token, body: { title: 'Migrateddraft guide' } })).statusCode).toBe(200);

    const migrator = new Migrator({ db: t.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_12_03_1500_team_owner_index');
    expect(down.error).toBeUndefined();
    // Before: the index held the current (draft) title.
    const before = await sql<{ title: string }>`select title from search_docs where kind = 'guide' and docid = ${g.guideid}`.execute(t.db);
    expect(before.rows[0].title).toBe('Migrateddraft guide');
    await migrateToLatest(t.db);

    const row = await t.db.selectFrom('guides').select(['reader_view', 'reader_revisionid', 'revisionid']).where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ reader_view: 1, reader_revisionid: g.revisionid });
    const after = await sql<{ title: string }>`select title from search_docs where kind = 'guide' and docid = ${g.guideid}`.execute(t.db);
    expect(after.rows[0].title).toBe('Migratedapproved guide');
    // A fresh app-level read: the list and suggest show what readers see.
    expect((await t.get(`/guides?guideids=${g.guideid}&limit=5`)).json()[0].title).toBe('Migratedapproved guide');
    expect((await t.get('/suggest/Migrateddraft')).json().results).toEqual([]);
    expect(JSON.stringify((await t.get('/suggest/Migratedapproved')).json().results)).toContain('Migratedapproved guide');
  });
});
