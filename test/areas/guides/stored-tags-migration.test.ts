// Migration 2026_11_26_1300_stored_record_tags on a site that already has stored records:
// the rows stored before it get their answer's tag and length (as a read would have stored
// them), and a row whose bytes do not inflate is dropped (it is rebuilt by its next read).
import { deflateRawSync } from 'node:zlib';
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { flushStoredRecords } from '../../../src/areas/guides/guides.stored.js';
import { flushWikiRecords } from '../../../src/areas/wikis/wikis.cache.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { etagOf } from '../../../src/http/conditional.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

describe('stored records from before their tags', () => {
  it('are given the tag and length of their bytes by the migration; bytes that do not inflate are dropped', async () => {
    const a = await makePublishedGuide(t, author, 2);
    const b = await makePublishedGuide(t, author, 1);
    const w = await makeWiki(t, author);
    const guide = await t.get(`/guides/${a.guideid}`);
    await t.get(`/guides/${b.guideid}`);
    const wiki = await t.get(`/wikis/${w.namespace}/${encodeURIComponent(w.title)}`);
    await flushStoredRecords(t.app);
    await flushWikiRecords(t.app);

    const migrator = new Migrator({ db: t.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_11_25_0910_dependents_when_required');
    expect(down.error).toBeUndefined();
    const db = t.db as never as Kysely<any>;
    expect(Object.keys(await db.selectFrom('guide_records').selectAll().where('guideid', '=', a.guideid).executeTakeFirstOrThrow())).not.toContain('etag');
    await db.updateTable('guide_records').set({ body: deflateRawSync('{"not":"this"}').subarray(0, 3) }).where('guideid', '=', b.guideid).execute();

    await migrateToLatest(t.db);
    const rows = await t.db.selectFrom('guide_records').select(['guideid', 'etag', 'size']).where('guideid', 'in', [a.guideid, b.guideid]).execute();
    expect(rows).toEqual([{ guideid: a.guideid, etag: etagOf(Buffer.from(guide.body)), size: Buffer.byteLength(guide.body) }]);
    const wikiRow = await t.db.selectFrom('wiki_records').select(['etag', 'size']).where('wikiid', '=', w.wikiid).executeTakeFirstOrThrow();
    expect({ ...wikiRow, size: Number(wikiRow.size) }).toEqual({ etag: etagOf(Buffer.from(wiki.body)), size: Buffer.byteLength(wiki.body) });
    // The app reads them as before.
    expect((await t.get(`/guides/${a.guideid}`)).body).toBe(guide.body);
    expect((await t.get(`/guides/${b.guideid}`)).statusCode).toBe(200);
  });
});
