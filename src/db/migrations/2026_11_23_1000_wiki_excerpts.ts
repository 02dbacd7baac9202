// Frozen in time: never edit a migration that has landed; add a new one.
// Wiki excerpts are computed when a text is written, not at every read (a regular
// expression at read time was quadratic on hostile text): an `excerpt` column beside
// `contents_raw` on wikis and wiki_translations, filled here for the rows that exist with
// the markup module's linear parser (the excerpt as this version computes it).
import type { Kysely } from 'kysely';
import { plainText, wikiToDoc } from '../../markup/index.js';

const BATCH = 200;

async function backfill(db: Kysely<any>, table: 'wikis' | 'wiki_translations') {
  const key = table === 'wikis' ? ['wikiid'] : ['wikiid', 'langid'];
  let after: { wikiid: number; langid: string } | null = null;
  for (;;) {
    let q = db.selectFrom(table).select(['wikiid', 'langid', 'contents_raw']).orderBy('wikiid').orderBy('langid').limit(BATCH);
    if (after) {
      const a = after;
      q = q.where((eb) => eb.or([eb('wikiid', '>', a.wikiid), eb.and([eb('wikiid', '=', a.wikiid), eb('langid', '>', a.langid)])]));
    }
    const rows: Array<{ wikiid: number; langid: string; contents_raw: string }> = await q.execute();
    if (rows.length === 0) return;
    for (const r of rows) {
      let u = db.updateTable(table).set({ excerpt: plainText(wikiToDoc(r.contents_raw), 200) }).where('wikiid', '=', r.wikiid);
      if (key.length === 2) u = u.where('langid', '=', r.langid);
      await u.execute();
    }
    after = rows[rows.length - 1];
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['wikis', 'wiki_translations'] as const) {
    await db.schema.alterTable(table).addColumn('excerpt', 'text', (c) => c.notNull().defaultTo('')).execute();
    await backfill(db, table);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['wikis', 'wiki_translations']) await db.schema.alterTable(table).dropColumn('excerpt').execute();
}
