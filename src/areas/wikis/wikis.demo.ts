import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DemoContext } from '../area.js';
import { addTag } from '../tags/tags.queries.js';
import { plainExcerpt } from './wikis.queries.js';

interface DemoWiki {
  namespace: string;
  title: string;
  display_title?: string;
  summary?: string;
  contents: string;
  parent?: string;
  item_type?: 'part' | 'tool';
  suppliers?: unknown[];
  identification?: string;
  stub?: boolean;
}

/** Inserts a wiki with its first revision, or fills in a bare row another seeder made (categories of the guides demo). */
async function seedWiki(db: Kysely<Database>, ctx: DemoContext, w: DemoWiki): Promise<number> {
  const now = ctx.clock.now();
  const parentid = w.parent ? (await db.selectFrom('wikis').select('wikiid').where('namespace', '=', 'CATEGORY').where('title', '=', w.parent).executeTakeFirstOrThrow()).wikiid : null;
  const values = {
    langid: ctx.config.languages[0], display_title: w.display_title ?? '', summary: w.summary ?? '', contents_raw: w.contents,
    identification_raw: w.identification ?? '', imageid: null, table_of_contents: 0, parentid, stub: w.stub ? 1 : 0,
    item_type: w.item_type ?? null, suppliers: JSON.stringify(w.suppliers ?? []), userid: ctx.users.author ?? ctx.users.admin ?? null,
    created_date: now, modified_date: now,
  };
  const existing = await db.selectFrom('wikis').selectAll().where('namespace', '=', w.namespace).where('title', '=', w.title).executeTakeFirst();
  let wikiid: number;
  if (existing) {
    wikiid = existing.wikiid;
    // Keep what the other seeder wrote; fill in what it left empty.
    await db.updateTable('wikis').set({
      ...values,
      display_title: existing.display_title || values.display_title,
      summary: existing.summary || values.summary,
      contents_raw: existing.contents_raw || values.contents_raw,
      parentid: existing.parentid ?? parentid,
      created_date: existing.created_date || now,
      userid: existing.userid ?? values.userid,
    }).where('wikiid', '=', wikiid).execute();
  } else {
    wikiid = (await db.insertInto('wikis').values({ namespace: w.namespace, title: w.title, ...values }).returning('wikiid').executeTakeFirstOrThrow()).wikiid;
  }
  const row = await db.selectFrom('wikis').selectAll().where('wikiid', '=', wikiid).executeTakeFirstOrThrow();
  const rev = await db.insertInto('wiki_revisions').values({
    wikiid, langid: row.langid, display_title: row.display_title, summary: row.summary, contents_raw: row.contents_raw, identification_raw: row.identification_raw,
    fields: JSON.stringify({ imageid: row.imageid, table_of_contents: row.table_of_contents, stub: row.stub, item_type: row.item_type, suppliers: row.suppliers, parentid: row.parentid }),
    action: 'create', userid: row.userid, date: now,
  }).returning('revisionid').executeTakeFirstOrThrow();
  await db.updateTable('wikis').set({ revisionid: rev.revisionid, excerpt: plainExcerpt(row.contents_raw) }).where('wikiid', '=', wikiid).execute();
  ctx.ids[`wiki:${w.namespace}:${w.title}`] = wikiid;
  return wikiid;
}

/** A category tree three levels deep, parts and tools, an INFO page, a WIKI page, team and user pages. */
export async function seedWikisDemo(ctx: DemoContext) {
  const { db } = ctx;
  const categories: DemoWiki[] = [
    { namespace: 'CATEGORY', title: 'Equipment', summary: 'Everything on the shop floor.', contents: 'All production equipment, by kind.' },
    { namespace: 'CATEGORY', title: 'Pumps', parent: 'Equipment', summary: 'Centrifugal and diaphragm pumps.', contents: 'Pumps move the coolant and the wash water.' },
    { namespace: 'CATEGORY', title: 'Centrifugal Pump CP-200', parent: 'Pumps', summary: 'The coolant pump of line 1.', contents: 'A single-stage centrifugal pump.', identification: 'The model plate is on the motor housing: CP-200, serial number starting with 2.' },
    { namespace: 'CATEGORY', title: 'Diaphragm Pump DP-50', parent: 'Pumps', summary: 'Air-operated double diaphragm pump.', contents: 'Used for the wash water.' },
    { namespace: 'CATEGORY', title: 'Conveyors', parent: 'Equipment', summary: 'Belt and roller conveyors.', contents: 'Conveyors link the stations of each line.' },
    { namespace: 'CATEGORY', title: 'Belt Conveyor BC-10', parent: 'Conveyors', summary: 'The 10 m belt conveyor of line 2.', contents: 'Flat belt, variable speed drive.' },
    { namespace: 'CATEGORY', title: 'Vehicles', summary: 'Vehicles of the warehouse.', contents: 'Forklifts and tuggers.' },
    { namespace: 'CATEGORY', title: 'Forklifts', parent: 'Vehicles', summary: 'Electric forklifts.', contents: 'Daily checks are mandatory.' },
    { namespace: 'CATEGORY', title: 'Forklift FL-3', parent: 'Forklifts', summary: 'The 3 t electric forklift.', contents: 'Battery swap takes ten minutes.' },
    { namespace: 'CATEGORY', title: 'Compressors', parent: 'Equipment', stub: true, contents: '' },
  ];
  for (const c of categories) await seedWiki(db, ctx, c);
  const items: DemoWiki[] = [
    { namespace: 'ITEM', title: 'O-Ring 40 mm', item_type: 'part', summary: 'NBR o-ring, 40 x 3 mm.', contents: 'Seals the pump housing of the CP-200.', suppliers: [{ name: 'Seal Supply Co.', url: 'https://seals.example/oring-40', price: '0.80', currency: 'EUR', sku: 'OR-40-3' }] },
    { namespace: 'ITEM', title: 'Drive Belt B-1200', item_type: 'part', summary: 'Flat drive belt for the BC-10.', contents: 'Replace every 2000 operating hours.', suppliers: [{ name: 'Conveyor Parts Ltd', url: null, price: '145.00', currency: 'EUR', sku: 'B1200' }] },
    { namespace: 'ITEM', title: 'Torque Wrench 20-100 Nm', item_type: 'tool', summary: 'Click-type torque wrench.', contents: 'Calibrate yearly.', suppliers: [{ name: 'Tool House', url: 'https://tools.example/tw100', price: '89.90', currency: 'EUR', sku: null }] },
    { namespace: 'ITEM', title: 'Hex Key Set', item_type: 'tool', summary: 'Metric hex keys 1.5 to 10 mm.', contents: 'Ball-end hex keys.', suppliers: [] },
  ];
  for (const i of items) await seedWiki(db, ctx, i);
  await seedWiki(db, ctx, { namespace: 'INFO', title: 'About', display_title: 'About this site', summary: 'What this platform is for.', contents: 'This site holds the maintenance guides of the plant.\n\nAsk questions in the comments of any guide or page.' });
  await seedWiki(db, ctx, { namespace: 'WIKI', title: 'Safety Rules', summary: 'Read before any maintenance.', contents: 'Lock out and tag out every machine before opening it.\n\nWear safety glasses.' });
  if (ctx.teams.maintenance) await seedWiki(db, ctx, { namespace: 'TEAM', title: String(ctx.teams.maintenance), display_title: 'Maintenance crew', contents: 'We keep the lines running, day and night.' });
  if (ctx.users.author) await seedWiki(db, ctx, { namespace: 'USER', title: String(ctx.users.author), display_title: 'Arthur Author', contents: 'I write the pump guides.' });
  await addTag(db, 'wiki', ctx.ids['wiki:CATEGORY:Pumps'], 'fluids');
  await addTag(db, 'wiki', ctx.ids['wiki:ITEM:Torque Wrench 20-100 Nm'], 'calibrated');
  ctx.log('wikis: categories Equipment > Pumps > Centrifugal Pump CP-200 (and more, three levels), 4 parts and tools, INFO About, WIKI Safety Rules');
}
