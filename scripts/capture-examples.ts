// `npx tsx scripts/capture-examples.ts > src/http/openapi.examples.data.ts`: the example
// records of the OpenAPI document, taken from the demo site. Builds the app on an
// in-memory database, seeds the demo content, calls every GET operation as the demo
// Admin and keeps, for each named record, the first value it answers (lists cut to two
// items, so that a guide appears in full once and stays small). The output is committed;
// src/http/openapi.examples.ts puts the records in `components.examples`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { ManualClock } from '../src/clock.js';
import { buildApp, BASE_PATH } from '../src/app.js';
import { seedDemoOnce } from '../src/demo/seed.js';

const PASSWORD = 'demo-password-1234';
const config = {
  ...loadConfig({}),
  dataDir: mkdtempSync(join(tmpdir(), 'cp-examples-')),
  databaseUrl: 'sqlite::memory:',
  publicUrl: 'https://demo.example.com',
  languages: ['en', 'de'],
  adminPassword: PASSWORD,
  passwordHashCost: 4,
  jobPollMs: 0,
  logLevel: 'silent',
};
const handle = openDatabase(config.databaseUrl);
await migrateToLatest(handle.db);
const clock = new ManualClock();
const app = await buildApp({ config, handle, clock, logger: false });
await app.ready();
const db = handle.db;
await seedDemoOnce(db, config, clock, () => {});
const login = await app.inject({ method: 'POST', url: `${BASE_PATH}/user/token`, payload: { email: config.adminEmail, password: PASSWORD } });
const token = login.json().authToken as string;

const first = async (q: Promise<Record<string, unknown> | undefined>, key: string) => String((await q)?.[key] ?? 1);
const admin = await db.selectFrom('users').select(['userid', 'email', 'sso_userid', 'employee_id']).orderBy('userid').executeTakeFirst();
const wiki = await db.selectFrom('wikis').select(['wikiid', 'namespace', 'title']).where('namespace', '=', 'ITEM').orderBy('wikiid').executeTakeFirst();
const params: Record<string, string> = {
  userid: String(admin?.userid ?? 1),
  email: admin?.email ?? 'admin@example.com',
  sso_userid: admin?.sso_userid ?? 'sso-1',
  employee_id: admin?.employee_id ?? 'E-1',
  search: 'a',
  query: 'belt',
  teamid: await first(db.selectFrom('teams').select('teamid').orderBy('teamid').executeTakeFirst(), 'teamid'),
  imageid: await first(db.selectFrom('images').select('imageid').orderBy('imageid').executeTakeFirst(), 'imageid'),
  videoid: await first(db.selectFrom('videos').select('videoid').orderBy('videoid').executeTakeFirst(), 'videoid'),
  type: 'GuideImage',
  itemId: await first(db.selectFrom('images').select('imageid').orderBy('imageid').executeTakeFirst(), 'imageid'),
  // the guide with the most steps shows every part of a guide; lists are cut to two items
  guideid: await first(db.selectFrom('guide_steps').select((eb) => ['guideid', eb.fn.countAll().as('n')]).groupBy('guideid').orderBy('n', 'desc').orderBy('guideid').executeTakeFirst(), 'guideid'),
  namespace: wiki?.namespace ?? 'ITEM',
  title: wiki?.title ?? 'Item',
  wikiid: String(wiki?.wikiid ?? 1),
  commentid: await first(db.selectFrom('comments').select('commentid').orderBy('commentid').executeTakeFirst(), 'commentid'),
  postid: await first(db.selectFrom('posts').select('postid').orderBy('postid').executeTakeFirst(), 'postid'),
  doc_type: 'guide',
  entryid: await first(db.selectFrom('translation_glossary').select('entryid').orderBy('entryid').executeTakeFirst(), 'entryid'),
};
params.docid = params.guideid;

const doc = app.swagger() as any;
const schemas: Record<string, any> = doc.components.schemas;
const records: Record<string, unknown> = {};

/** Lists cut to two items. */
const trim = (v: unknown): unknown => (Array.isArray(v) ? v.slice(0, 2).map(trim) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x)])) : v);

/** Walks a value along its schema and keeps the first value of each named record met. */
function collect(schema: any, value: unknown): void {
  if (!schema || value === undefined || value === null) return;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop();
    if (!(name in records)) records[name] = trim(value);
    collect(schemas[name], value);
    return;
  }
  for (const s of schema.allOf ?? []) collect(s, value);
  // OpenAPI 3.1 writes a nullable value as `anyOf: [schema, {type: 'null'}]`: the value (not null here) is the schema's.
  const nonNull = (schema.anyOf ?? schema.oneOf ?? []).filter((s: any) => s.type !== 'null');
  if (nonNull.length === 1) collect(nonNull[0], value);
  if (Array.isArray(value)) {
    for (const item of value) collect(schema.items, item);
    return;
  }
  if (typeof value === 'object') {
    for (const [k, s] of Object.entries<any>(schema.properties ?? {})) collect(s, (value as Record<string, unknown>)[k]);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') for (const v of Object.values(value)) collect(schema.additionalProperties, v);
  }
}

for (const [path, item] of Object.entries<any>(doc.paths)) {
  const op = item.get;
  if (!op) continue;
  const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? '1'));
  const res = await app.inject({ method: 'GET', url: BASE_PATH + url, headers: { authorization: `api ${token}` } });
  const schema = op.responses?.[String(res.statusCode)]?.content?.['application/json']?.schema;
  if (res.statusCode >= 300 || !schema || !(res.headers['content-type'] ?? '').includes('json')) continue;
  collect(schema, res.json());
}

const names = Object.keys(records).sort();
process.stdout.write(`// Generated by scripts/capture-examples.ts from the demo site: do not edit by hand.
// One example value per named record of the OpenAPI document (see openapi.examples.ts).
export const RECORD_EXAMPLES: Record<string, unknown> = ${JSON.stringify(Object.fromEntries(names.map((n) => [n, records[n]])), null, 1)};
`);
await app.close();
await handle.destroy();
