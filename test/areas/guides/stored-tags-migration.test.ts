// Migration 2026_11_26_1300_stored_record_tags on a site that already has stored records:
// the rows stored before it keep serving, with the tag of their bytes computed as before,
// and storing the site's records ahead (storeAllGuideRecords, `seed:bench --records only`)
// stores them again with their tag and length.
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { guideCaches } from '../../../src/areas/guides/guides.cache.js';
import { flushStoredRecords, storedRecords } from '../../../src/areas/guides/guides.stored.js';
import { storeAllGuideRecords } from '../../../src/areas/guides/guides.stored-build.js';
import { flushWikiRecords, wikiCache } from '../../../src/areas/wikis/wikis.cache.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { etagOf } from '../../../src/http/conditional.js';
import { BASE_PATH } from '../../../src/app.js';

let author: TestUser;
const t = appForFile({}, async () => {
  author = await makeAuthor(t);
});

describe('stored records from before their tags', () => {
  it('serve with the tag of their bytes, and are stored again with it by storeAllGuideRecords', async () => {
    const g = await makePublishedGuide(t, author, 2);
    const w = await makeWiki(t, author);
    const wikiPath = `/wikis/${w.namespace}/${encodeURIComponent(w.title)}`;
    const guide = await t.get(`/guides/${g.guideid}`);
    const wiki = await t.get(wikiPath);
    await flushStoredRecords(t.app);
    await flushWikiRecords(t.app);

    const migrator = new Migrator({ db: t.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_11_25_0910_dependents_when_required');
    expect(down.error).toBeUndefined();
    const db = t.db as never as Kysely<any>;
    expect(Object.keys(await db.selectFrom('guide_records').selectAll().where('guideid', '=', g.guideid).executeTakeFirstOrThrow())).not.toContain('etag');
    await migrateToLatest(t.db);
    expect(await t.db.selectFrom('guide_records').select(['etag', 'size']).where('guideid', '=', g.guideid).execute()).toEqual([{ etag: null, size: null }]);
    expect(await t.db.selectFrom('wiki_records').select(['etag', 'size']).where('wikiid', '=', w.wikiid).execute()).toEqual([{ etag: null, size: null }]);

    // Served from the stored bytes (not built: nothing is stored), with the tag of their digest.
    const store = storedRecords(t.app);
    const hits = store.hits;
    guideCaches(t.app).guides.clear();
    const cold = await t.get(`/guides/${g.guideid}`);
    expect(cold.body).toBe(guide.body);
    expect(cold.headers.etag).toBe(etagOf(Buffer.from(guide.body)));
    expect(store.hits).toBe(hits + 1);
    wikiCache(t.app).clear();
    const coldWiki = await t.get(wikiPath);
    expect(coldWiki.body).toBe(wiki.body);
    expect(coldWiki.headers.etag).toBe(wiki.headers.etag);

    // Stored again ahead of reads, now with the tag and length.
    const { stored } = await storeAllGuideRecords(t.app, { basePath: BASE_PATH });
    expect(stored).toBeGreaterThanOrEqual(1);
    const row = await t.db.selectFrom('guide_records').select(['etag', 'size']).where('guideid', '=', g.guideid).executeTakeFirstOrThrow();
    expect({ etag: row.etag, size: Number(row.size) }).toEqual({ etag: etagOf(Buffer.from(guide.body)), size: Buffer.byteLength(guide.body) });
    // ...and a second pass finds nothing left to store.
    expect((await storeAllGuideRecords(t.app, { basePath: BASE_PATH })).read).toBe(0);
  });
});
