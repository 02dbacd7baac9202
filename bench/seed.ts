// The benchmark's data generator: a realistic site at scale, repeatable from a seed.
//
//   npm run seed:bench -- --guides 100000                        # ./data/bench.sqlite
//   npm run seed:bench -- --guides 10000 --database postgres://postgres@127.0.0.1:5432/bench
//   npm run seed:bench -- --guides 1000 --database sqlite:/tmp/x.sqlite --seed 7 --hash-cost 12
//
// For N guides: N/10 users unless `--users` (the first four are the demo accounts admin@,
// author@, moderator@, user@example.com; every seeded user shares one password hash, since
// hashing is deliberately slow), a CATEGORY tree of depth 4 (5 x 5 x 5 x 5), N/2 wikis in
// all (categories, ITEM wikis and the rest), N guides of 5 to 15 steps of 2 to 6 lines of
// wiki syntax, an image record per step, tags, flags, prerequisites, one kept revision per
// guide and per step, 2 comments per guide, view history; and a workforce in proportion to
// the users (bench/lib/workforce.ts): teams of about 25 with a lead each, users/8 courses
// assigned to teams and users, completions, supervisor ratings, finished work log entries.
//
//   npm run seed:bench -- --guides 10000 --users 5000           # a plant of 5 000 people
//
// The schema comes from the project's migrations, run in two parts: those before the
// search index, then the rows go in with bulk inserts inside transactions (prepared
// statements on SQLite; COPY FROM STDIN on PostgreSQL, or `unnest` of arrays with
// --pg-load unnest) while no trigger exists yet,
// then the rest, whose createSearchSource (src/db/search.ts) indexes wikis, users and
// comments, guides and steps in one statement each and whose triggers keep the search
// index and the cache stamps from then on.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { rmSync, existsSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { dialectOf, openDatabase, sqlitePath } from '../src/db/database.js';
import { Migrator, sql } from 'kysely';
import { migrateUpOne } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { hashPassword } from '../src/http/passwords.js';
import { SERVER_PASSWORD } from './lib/server-process.js';
import { loadConfig } from '../src/config.js';
import { buildApp, BASE_PATH } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { storeAllGuideRecords } from '../src/areas/guides/guides.stored-build.js';
import { storedTtl } from '../src/areas/guides/guides.stored.js';
import { WORKFORCE_COLUMNS, workforceRows, type WorkforceTable } from './lib/workforce.js';

export const DEFAULT_DATABASE = 'sqlite:data/bench.sqlite';
/** Migrations from this one on run after the rows are loaded. */
const FIRST_LATE_MIGRATION = '2026_11_22_1130_search';

/** A small fast deterministic PRNG (mulberry32). */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  return { next, int, pick };
}

// ------------------------------------------------------------------ words

const DEVICES = ['Conveyor', 'Pump', 'Compressor', 'Forklift', 'Lathe', 'Press', 'Mixer', 'Boiler', 'Chiller', 'Robot Arm', 'Packer', 'Labeler', 'Scanner', 'Printer', 'Generator', 'Turbine', 'Valve', 'Fan', 'Furnace', 'Drill'];
const PARTS = ['Drive Belt', 'Bearing', 'Seal', 'Filter', 'Motor', 'Gearbox', 'Sensor', 'Fuse', 'Relay', 'Display', 'Battery', 'Hose', 'Nozzle', 'Impeller', 'Coupling', 'Switch', 'Cable', 'Gasket', 'Spring', 'Blade'];
const TYPES = ['replacement', 'repair', 'installation', 'disassembly', 'maintenance', 'how-to', 'troubleshooting'];
const VERBS = ['Remove', 'Undo', 'Loosen', 'Tighten', 'Check', 'Clean', 'Inspect', 'Lift', 'Slide', 'Disconnect', 'Reconnect', 'Align', 'Measure', 'Replace', 'Press', 'Turn'];
const THINGS = ['the cover', 'the guard', 'the four screws', 'the retaining clip', 'the connector', 'the housing', 'the shaft', 'the bracket', 'the panel', 'the old part', 'the tension arm', 'the locking nut'];
const TOOLS = ['Phillips #1 Screwdriver', 'Torx T10 Screwdriver', 'Spudger', 'Hex Key Set', 'Torque Wrench', 'Multimeter', 'Tweezers', 'Socket Set'];
const WORDS = ['carefully', 'gently', 'firmly', 'slowly', 'by hand', 'with care', 'until it clicks', 'in a cross pattern', 'and set it aside', 'before moving on'];
const BULLETS = ['black', 'black', 'black', 'red', 'orange', 'green', 'blue', 'icon_note', 'icon_caution', 'icon_reminder'];
const TAGS = Array.from({ length: 200 }, (_, i) => `tag-${['safety', 'quick', 'advanced', 'electrical', 'mechanical', 'hydraulic', 'cleaning', 'calibration'][i % 8]}-${i}`);
const FIRST = ['Ada', 'Ben', 'Cleo', 'Dan', 'Eva', 'Finn', 'Gia', 'Hugo', 'Ines', 'Jon', 'Kai', 'Lea', 'Milo', 'Nora', 'Otto', 'Pia', 'Quinn', 'Rosa', 'Sam', 'Tara'];
const LAST = ['Adams', 'Berg', 'Costa', 'Dietz', 'Evans', 'Fischer', 'Garcia', 'Hale', 'Ivers', 'Jansen', 'Klein', 'Lopez', 'Meyer', 'Novak', 'Olsen', 'Petit'];

/** A line of wiki syntax: bold, italic, code, links, now and then. */
function lineText(r: ReturnType<typeof prng>, guides: number): string {
  const base = `${r.pick(VERBS)} ${r.pick(THINGS)} ${r.pick(WORDS)}`;
  switch (r.int(0, 7)) {
    case 0: return `${base} with a '''${r.pick(TOOLS)}'''.`;
    case 1: return `${base}; it is ''${r.pick(['tight', 'fragile', 'hot', 'sharp'])}''.`;
    case 2: return `${base}: torque to \`\`${r.int(2, 40)} Nm\`\`.`;
    case 3: return `${base}, see [guide|${r.int(1, guides)}].`;
    case 4: return `${base} ([https://example.com/specs/${r.int(1, 999)} spec sheet]).`;
    default: return `${base}.`;
  }
}

// ------------------------------------------------------------------ sinks

/** Columns as `name:type` (type for PostgreSQL arrays: int8, int4, text, float8). */
type Columns = string[];

interface Sink {
  insert(table: string, columns: Columns, rows: unknown[][]): Promise<void>;
  /** Seconds spent in insert() and commit(): the database's share of loading the rows. */
  seconds: number;
  begin(): Promise<void>;
  commit(): Promise<void>;
  run(text: string): Promise<void>;
  close(): Promise<void>;
}

function sqliteSink(file: string): Sink {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = OFF');
  const statements = new Map<string, SQLite.Statement>();
  const sink: Sink = {
    seconds: 0,
    async insert(table, columns, rows) {
      const t0 = performance.now();
      const key = `${table}(${columns.join()})`;
      let stmt = statements.get(key);
      if (!stmt) {
        const names = columns.map((c) => c.split(':')[0]);
        stmt = db.prepare(`insert into ${table} (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`);
        statements.set(key, stmt);
      }
      for (const row of rows) stmt.run(row);
      sink.seconds += (performance.now() - t0) / 1000;
    },
    async begin() { db.exec('begin'); },
    async commit() {
      const t0 = performance.now();
      db.exec('commit');
      sink.seconds += (performance.now() - t0) / 1000;
    },
    async run(text) { db.exec(text); },
    async close() {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
  return sink;
}

/** A value in COPY's text format: \N for NULL; backslash, tab, newline and carriage return escaped. */
function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const text = typeof v === 'string' ? v : String(v);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : text;
}

/**
 * PostgreSQL: `load` 'copy' streams each batch with COPY FROM STDIN (text format), the
 * fastest way in; 'unnest' sends it as one `insert ... select * from unnest($1::int4[], ...)`
 * (kept to compare: `--pg-load unnest`). Both write the same rows.
 */
async function postgresSink(url: string, load: 'copy' | 'unnest'): Promise<Sink> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  // No foreign-key checks while loading (their per-row triggers), as the SQLite sink loads
  // with foreign_keys OFF: the rows are consistent by construction, and no trigger of the
  // app's exists on the tables loaded while this is set. Only a superuser may; otherwise
  // the checks run.
  await client.query('set session_replication_role = replica').catch(() => {});
  const sink: Sink = {
    seconds: 0,
    async insert(table, columns, rows) {
      if (rows.length === 0) return;
      const t0 = performance.now();
      const names = columns.map((c) => c.split(':')[0]);
      if (load === 'copy') {
        // Lines of about 64 KB at a time: few writes, no string of the whole batch.
        async function* lines() {
          let chunk = '';
          for (const row of rows) {
            chunk += row.map(copyValue).join('\t') + '\n';
            if (chunk.length > 65536) { yield chunk; chunk = ''; }
          }
          if (chunk) yield chunk;
        }
        await pipeline(Readable.from(lines()), client.query(copyFrom(`copy ${table} (${names.join(', ')}) from stdin`)));
      } else {
        const types = columns.map((c) => c.split(':')[1] ?? 'text');
        const arrays = names.map((_, i) => rows.map((r) => r[i]));
        await client.query(`insert into ${table} (${names.join(', ')}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`, arrays);
      }
      sink.seconds += (performance.now() - t0) / 1000;
    },
    async begin() { await client.query('begin'); },
    async commit() {
      const t0 = performance.now();
      await client.query('commit');
      sink.seconds += (performance.now() - t0) / 1000;
    },
    async run(text) { await client.query(text); },
    async close() { await client.end(); },
  };
  return sink;
}

// ------------------------------------------------------------------ progress

function progress(label: string, total: number) {
  const start = Date.now();
  let last = 0;
  const tty = process.stderr.isTTY;
  return {
    tick(done: number) {
      const now = Date.now();
      if (now - last < (tty ? 200 : 5000) && done < total) return;
      last = now;
      const width = 30;
      const filled = Math.round((done / total) * width);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${((now - start) / 1000).toFixed(1)} s`;
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    },
    done() {
      const line = `${label}: ${total} in ${((Date.now() - start) / 1000).toFixed(1)} s`;
      process.stderr.write(tty ? `\r${line}\x1b[K\n` : `${line}\n`);
    },
  };
}

// ------------------------------------------------------------------ the site

export interface SeedOptions {
  guides: number;
  /** The workforce: users (default guides / 10, at least 10); teams, courses and progress follow. */
  users?: number;
  databaseUrl: string;
  seed: number;
  hashCost: number;
  /** Build and store every public guide's record after seeding (guides.stored-build.ts); default true. */
  storeRecords?: boolean;
  /** PostgreSQL: how the rows go in (COPY by default; 'unnest' to compare). */
  pgLoad?: 'copy' | 'unnest';
  /** Processes that build the stored records (storeBenchRecords); 1: this one. */
  recordProcesses?: number;
  log?: (line: string) => void;
}

/**
 * The configuration the benchmark's server runs with that stored guide records depend on
 * (guides.stored.ts `builderOf`: the public URL, the media URL key and lifetime): the seed
 * builds the records with it, so that the server serves them. Media URLs are signed for a
 * day (the default is an hour): stored records serve while their URLs keep life
 * (`storedTtl`), so records built by the seed serve a benchmark run the same day instead
 * of 50 minutes.
 */
/**
 * The benchmark server's settings that its stored guide records depend on (builderOf in
 * guides.stored.ts). MEDIA_URL_SECRET has the 32 bytes a node key needs with
 * MEDIA_STORAGE=s3 (`npm run bench -- --storage s3`), so that runs on fs and on s3 serve
 * the same stored records (until 2026-12-04 it was 30 bytes: a site seeded before needs
 * `--records only` once).
 */
export const BENCH_SERVER_ENV = { PUBLIC_URL: 'http://bench.localhost', MEDIA_URL_SECRET: 'the benchmark media url secret, fs and s3', MEDIA_URL_TTL: '86400' };

export interface SeedSummary {
  guides: number; users: number; teams: number; categories: number; wikis: number; steps: number; lines: number; images: number; comments: number;
  courses: number; assignees: number; completions: number; seconds: number;
}

const BATCH = 1000;
const T0 = 1_767_225_600; // 2026-01-01

export async function seedBench(o: SeedOptions): Promise<SeedSummary> {
  const started = Date.now();
  const log = o.log ?? ((l: string) => console.log(l));
  const dialect = dialectOf(o.databaseUrl);
  const openSink = () => (dialect === 'sqlite' ? sqliteSink(sqlitePath(o.databaseUrl)) : postgresSink(o.databaseUrl, o.pgLoad ?? 'copy'));
  // Where the time goes: each stage's seconds, and for the rows the database's share.
  let stageStart = Date.now();
  const stage = (what: string, sink?: Sink) => {
    const seconds = (Date.now() - stageStart) / 1000;
    log(`  ${what}: ${seconds.toFixed(1)} s${sink ? ` (${sink.seconds.toFixed(1)} s of it in the database, the rest generating)` : ''}`);
    stageStart = Date.now();
  };
  if (dialect === 'sqlite') {
    const file = sqlitePath(o.databaseUrl);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) rmSync(f);
  } else {
    // A fresh schema in the database named by the URL.
    const c = new pg.Client({ connectionString: o.databaseUrl });
    await c.connect();
    await c.query('drop schema public cascade; create schema public');
    await c.end();
  }
  // The schema up to the search index: the rows go in before any trigger exists; the
  // later migrations then index them in one statement each (createSearchSource back-fills)
  // and install the cache stamps' triggers (migration 1300) over the loaded site.
  const handle = openDatabase(o.databaseUrl);
  const early = Object.keys(migrations).filter((name) => name < FIRST_LATE_MIGRATION);
  const { error } = await new Migrator({ db: handle.db, provider: { getMigrations: async () => Object.fromEntries(early.map((n) => [n, migrations[n]])) } }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  await handle.destroy();
  stage('schema (migrations before the search index)');
  let sink = await openSink();
  const r = prng(o.seed);
  const N = o.guides;
  const nUsers = o.users ?? Math.max(10, Math.floor(N / 10));
  if (!Number.isInteger(nUsers) || nUsers < 10) throw new Error(`users: a whole number from 10, not ${nUsers}`);
  // Teams of about 25 (a shift, a crew), each led by one of its members.
  const nTeams = Math.max(2, Math.round(nUsers / 25));
  // The workforce's own stream of random numbers: the text of the guides, wikis and
  // comments is the same for any --users (only the user ids drawn for them differ).
  const w = prng(o.seed + 1);
  const nWikis = Math.max(800, Math.floor(N / 2));
  const hash = await hashPassword(SERVER_PASSWORD, o.hashCost);
  let t = 0;
  const tick = () => T0 + (t += 7);

  // users and teams
  const users: unknown[][] = [];
  const demo = [['admin@example.com', 'Ada Admin', 'admin', 'Admin,User'], ['author@example.com', 'Arthur Author', 'author', 'Author,User'], ['moderator@example.com', 'Mona Moderator', 'moderator', 'Moderator,User'], ['user@example.com', 'Uma User', 'user', 'User']];
  for (let i = 1; i <= nUsers; i++) {
    const d = demo[i - 1];
    const name = d ? d[1] : `${w.pick(FIRST)} ${w.pick(LAST)} ${i}`;
    users.push([i, d ? d[0] : `user${i}@bench.example`, hash, name, name.toLowerCase(), d ? d[2] : `user_${i}`, tick(), w.int(1, 5000), d ? d[3] : (i % 50 === 0 ? 'Author,User' : 'User'), 1, 0]);
  }
  await sink.begin();
  const userCols = ['userid:int4', 'email:text', 'password_hash:text', 'username:text', 'username_lower:text', 'unique_username:text', 'join_date:int8', 'reputation:int4', 'privileges:text', 'enabled:int4', 'banned:int8'];
  for (let i = 0; i < users.length; i += BATCH) await sink.insert('users', userCols, users.slice(i, i + BATCH));
  // User u is a member of team (u mod teams) + 1; users 5 to teams + 4 (not the demo
  // accounts) lead theirs, one lead per team, who also owns it.
  const teamOf = (u: number) => (u % nTeams) + 1;
  const leadOf = new Map<number, number>();
  for (let u = 5; u < 5 + nTeams; u++) leadOf.set(teamOf(u), u);
  const membersOf = new Map<number, number[]>();
  const members: unknown[][] = [];
  for (let u = 1; u <= nUsers; u++) {
    members.push([teamOf(u), u, leadOf.get(teamOf(u)) === u ? 1 : 0, tick()]);
    const list = membersOf.get(teamOf(u));
    if (list) list.push(u);
    else membersOf.set(teamOf(u), [u]);
  }
  const teams: unknown[][] = [];
  for (let i = 1; i <= nTeams; i++) teams.push([i, `Team ${w.pick(DEVICES)} ${i}`, `team ${i}`, 'A maintenance crew.', leadOf.get(i) ?? 1, '', 0, `join${i}`, tick()]);
  await sink.insert('teams', ['teamid:int4', 'name:text', 'name_lower:text', 'description:text', 'owner:int4', 'location:text', 'reputation:int4', 'join_code:text', 'created_date:int8'], teams);
  for (let i = 0; i < members.length; i += BATCH) await sink.insert('team_members', ['teamid:int4', 'userid:int4', 'is_lead:int4', 'join_date:int8'], members.slice(i, i + BATCH));
  await sink.commit();

  // wikis: the category tree (5 x 5 x 5 x 5), ITEM wikis for parts and tools, then the rest
  const wikiCols = ['wikiid:int4', 'namespace:text', 'title:text', 'langid:text', 'display_title:text', 'summary:text', 'contents_raw:text', 'revisionid:int4', 'parentid:int4', 'stub:int4', 'item_type:text', 'userid:int4', 'created_date:int8', 'modified_date:int8'];
  const revCols = ['revisionid:int4', 'wikiid:int4', 'langid:text', 'display_title:text', 'summary:text', 'contents_raw:text', 'identification_raw:text', 'fields:text', 'action:text', 'userid:int4', 'date:int8'];
  let wikiid = 0;
  const leaves: string[] = [];
  const wikiRows: unknown[][] = [];
  const addWiki = (namespace: string, title: string, parentid: number | null, itemType: string | null) => {
    wikiid++;
    const contents = `== About ==\n${title} is ''documented'' here. See [https://example.com/${wikiid} the maker's page].\n* ${r.pick(VERBS)} ${r.pick(THINGS)}\n* ${r.pick(VERBS)} ${r.pick(THINGS)}`;
    wikiRows.push([wikiid, namespace, title, 'en', title, `${title}: summary.`, contents, wikiid, parentid, 0, itemType, r.int(1, nUsers), tick(), tick()]);
    return wikiid;
  };
  const level = (depth: number, parent: number | null, prefix: string) => {
    for (let i = 0; i < 5; i++) {
      const title = depth === 0 ? `${DEVICES[i * 4 % DEVICES.length]} Line` : `${prefix} ${String.fromCharCode(65 + i)}${depth}`;
      const id = addWiki('CATEGORY', title, parent, null);
      if (depth < 3) level(depth + 1, id, title);
      else leaves.push(title);
    }
  };
  level(0, null, '');
  const categories = wikiid;
  for (const p of PARTS) addWiki('ITEM', p, null, 'part');
  for (const tool of TOOLS) addWiki('ITEM', tool, null, 'tool');
  const NS = ['WIKI', 'ITEM', 'INFO', 'TEAM'];
  while (wikiid < nWikis) addWiki(r.pick(NS), `${r.pick(DEVICES)} ${r.pick(PARTS)} notes ${wikiid + 1}`, null, null);
  const wp = progress('wikis', wikiRows.length);
  for (let i = 0; i < wikiRows.length; i += BATCH) {
    const chunk = wikiRows.slice(i, i + BATCH);
    await sink.begin();
    await sink.insert('wikis', wikiCols, chunk);
    await sink.insert('wiki_revisions', revCols, chunk.map((w) => [w[0], w[0], 'en', w[4], w[5], w[6], '', '{}', 'create', w[11], w[13]]));
    await sink.commit();
    wp.tick(i + chunk.length);
  }
  wp.done();
  stage('users, teams, wikis', sink);
  sink.seconds = 0;
  await sink.begin();
  await sink.insert('tags', ['tagid:int4', 'tag:text'], TAGS.map((tag, i) => [i + 1, tag]));
  await sink.commit();

  // guides, with their steps, lines, images, revisions, tags, flags, comments, views
  let stepid = 0, lineid = 0, imageid = 0, commentid = 0, viewid = 0;
  const gp = progress('guides', N);
  const guideCols = ['guideid:int4', 'langid:text', 'revisionid:int4', 'userid:int4', 'type:text', 'category:text', 'title:text', 'subject:text', 'summary:text', 'introduction:text', 'conclusion:text', 'difficulty:text', 'time_required:text', 'time_required_min:int4', 'time_required_max:int4', 'public:int4', 'deleted:int4', 'step_imageid:int4', 'parts:text', 'tools:text', 'documents:text', 'created_date:int8', 'modified_date:int8', 'published_date:int8'];
  const stepCols = ['stepid:int4', 'guideid:int4', 'langid:text', 'orderby:int4', 'revisionid:int4', 'title:text', 'media_type:text', 'created_date:int8', 'modified_date:int8'];
  const lineCols = ['lineid:int4', 'stepid:int4', 'orderby:int4', 'text:text', 'bullet:text', 'level:int4'];
  const imageCols = ['imageid:int4', 'guid:text', 'userid:int4', 'width:int4', 'height:int4', 'mime:text', 'created_date:int8'];
  const stepRevCols = ['revisionid:int4', 'stepid:int4', 'guideid:int4', 'langid:text', 'userid:int4', 'date:int8', 'action:text', 'snapshot:text'];
  const guideRevCols = ['revisionid:int4', 'guideid:int4', 'langid:text', 'userid:int4', 'date:int8', 'action:text', 'snapshot:text'];
  const commentCols = ['commentid:int4', 'context:text', 'contextid:int4', 'userid:int4', 'langid:text', 'title:text', 'text_raw:text', 'date:int8', 'modified_date:int8', 'status:text', 'status_reason:text'];
  const viewCols = ['viewid:int4', 'userid:int4', 'doc_type:text', 'docid:int4', 'langid:text', 'date:int8'];
  const DIFF = ['Very easy', 'Easy', 'Moderate', 'Difficult', 'Very difficult'];
  let totalLines = 0;
  for (let g0 = 1; g0 <= N; g0 += BATCH) {
    const ids: unknown[][] = [], guides: unknown[][] = [], steps: unknown[][] = [], lines: unknown[][] = [], images: unknown[][] = [], stepImages: unknown[][] = [];
    const stepRevs: unknown[][] = [], guideRevs: unknown[][] = [], docTags: unknown[][] = [], flags: unknown[][] = [], prereqs: unknown[][] = [], comments: unknown[][] = [], views: unknown[][] = [];
    for (let g = g0; g < Math.min(N + 1, g0 + BATCH); g++) {
      const owner = r.int(1, nUsers);
      const created = tick();
      const device = r.pick(DEVICES), part = r.pick(PARTS), type = r.pick(TYPES);
      const category = r.pick(leaves);
      const subject = `${part} ${g}`;
      const title = `${device} ${subject} ${type === 'how-to' ? 'How-To' : type.charAt(0).toUpperCase() + type.slice(1)}`;
      const isPublic = g % 20 === 0 ? 0 : 1;
      const snapSteps: Array<{ stepid: number; revisionid: number }> = [];
      let firstImage: number | null = null;
      const nSteps = r.int(5, 15);
      for (let s = 1; s <= nSteps; s++) {
        stepid++;
        const stitle = `${r.pick(VERBS)} ${r.pick(THINGS)}`;
        steps.push([stepid, g, 'en', s, stepid, stitle, 'image', created, created]);
        imageid++;
        firstImage ??= imageid;
        images.push([imageid, `bench${imageid.toString(36).padStart(8, '0')}`, owner, 1600, 1200, 'image/jpeg', created]);
        stepImages.push([stepid, 1, imageid]);
        const nLines = r.int(2, 6);
        const snapLines: unknown[] = [];
        for (let l = 1; l <= nLines; l++) {
          lineid++;
          const text = lineText(r, N);
          const bullet = r.pick(BULLETS);
          const lvl = l === 1 ? 0 : r.int(0, 1);
          lines.push([lineid, stepid, l, text, bullet, lvl]);
          snapLines.push({ lineid, text, bullet, bullet_styleid: null, level: lvl });
        }
        totalLines += nLines;
        stepRevs.push([stepid, stepid, g, 'en', owner, created, 'create', JSON.stringify({ title: stitle, lines: snapLines, media: { type: 'image', imageids: [imageid] } })]);
        snapSteps.push({ stepid, revisionid: stepid });
      }
      const intro = `Replace the ${part.toLowerCase()} of the ''${device}''. It takes about '''${r.int(5, 90)} minutes'''.`;
      const conclusion = `Reassemble ${r.pick(THINGS)} in reverse order.`;
      const parts = JSON.stringify([{ title: part, quantity: 1, notes: '' }]);
      const tools = JSON.stringify([{ title: r.pick(TOOLS), quantity: 1, notes: '' }]);
      const tmax = r.int(5, 120) * 60;
      const difficulty = r.pick(DIFF);
      const prereq = g > 10 && r.next() < 0.05 ? r.int(1, g - 1) : null;
      const tags = [...new Set(Array.from({ length: r.int(0, 3) }, () => r.int(1, TAGS.length)))];
      ids.push([g, created]);
      guides.push([g, 'en', g, owner, type, category, title, subject, `How to replace the ${part.toLowerCase()} of a ${device.toLowerCase()}.`, intro, conclusion, difficulty, `${tmax / 60} minutes`, Math.floor(tmax / 2), tmax, isPublic, 0, firstImage, parts, tools, '[]', created, created, isPublic ? created : null]);
      guideRevs.push([g, g, 'en', owner, created, 'create', JSON.stringify({
        fields: { userid: owner, type, category, title, subject, summary: '', introduction: intro, conclusion, difficulty, time_required: `${tmax / 60} minutes`, time_required_min: Math.floor(tmax / 2), time_required_max: tmax, public: isPublic === 1, imageid: null, parts: JSON.parse(parts), tools: JSON.parse(tools), documents: [] },
        deleted: false, prerequisites: prereq ? [prereq] : [], tags: tags.map((x) => TAGS[x - 1]).sort(), steps: snapSteps,
      })]);
      for (const tagid of tags) docTags.push([tagid, 'guide', g]);
      if (g % 100 === 0) flags.push([g, 'GUIDE_STARRED', 3, created]);
      if (g % 37 === 0) flags.push([g, 'DANGER', owner, created]);
      if (prereq) prereqs.push([g, 'en', prereq, 1]);
      for (let c = 0; c < 2; c++) {
        commentid++;
        comments.push([commentid, 'guide', g, r.int(1, nUsers), 'en', '', `${r.pick(['Thanks', 'Worked for me', 'Careful', 'Tip'])}: ${r.pick(VERBS).toLowerCase()} ${r.pick(THINGS)} ${r.pick(WORDS)}.`, tick(), 0, 'open', 'manual']);
      }
      viewid++;
      views.push([viewid, r.int(1, nUsers), 'guide', g, 'en', tick()]);
    }
    await sink.begin();
    await sink.insert('comments', commentCols, comments);
    await sink.insert('guide_ids', ['guideid:int4', 'created_date:int8'], ids);
    await sink.insert('images', imageCols, images);
    await sink.insert('guides', guideCols, guides);
    await sink.insert('guide_steps', stepCols, steps);
    await sink.insert('guide_step_images', ['stepid:int4', 'orderby:int4', 'imageid:int4'], stepImages);
    await sink.insert('guide_lines', lineCols, lines);
    await sink.insert('guide_step_revisions', stepRevCols, stepRevs);
    await sink.insert('guide_revisions', guideRevCols, guideRevs);
    await sink.insert('doc_tags', ['tagid:int4', 'doctype:text', 'docid:int4'], docTags);
    await sink.insert('guide_flags', ['guideid:int4', 'flagid:text', 'userid:int4', 'date:int8'], flags);
    await sink.insert('guide_prereqs', ['guideid:int4', 'langid:text', 'prereq_guideid:int4', 'orderby:int4'], prereqs);
    await sink.insert('view_history', viewCols, views);
    await sink.commit();
    gp.tick(Math.min(N, g0 + BATCH - 1));
  }
  gp.done();
  stage('guides and their rows', sink);

  await sink.close();
  const late = Date.now();
  const h1 = openDatabase(o.databaseUrl);
  // One at a time, each that took half a second or more named as it is done: over a large
  // site the search index's take minutes, which would otherwise pass in silence.
  const lateMigrations = Object.keys(migrations).filter((name) => name >= FIRST_LATE_MIGRATION).length;
  log(`later migrations: ${lateMigrations}, the search index's over the site among them`);
  for (let done = 0; ; ) {
    const started = Date.now();
    const ran = await migrateUpOne(h1.db);
    if (!ran.length) break;
    done += ran.length;
    const seconds = (Date.now() - started) / 1000;
    if (seconds >= 0.5) log(`  ${ran.join(', ')}: ${seconds.toFixed(1)} s (${done} of ${lateMigrations})`);
  }
  if (dialect === 'sqlite') {
    // The index was filled in bulk and the server no longer merges as it writes (migration
    // 0700): merged here once (seconds), a benchmark does not measure the worker merging
    // a backlog beside it.
    await sql`insert into search_fts(search_fts) values ('optimize')`.execute(h1.db);
  }
  await h1.destroy();
  log(`later migrations (search index of wikis, users, comments, guides and steps, merged; cache stamps) over the site: ${((Date.now() - late) / 1000).toFixed(1)} s`);
  stageStart = Date.now();
  sink = await openSink();

  // The workforce (after the migrations that create its tables): courses, assignments,
  // progress, supervisor ratings and finished work log entries (bench/lib/workforce.ts), in
  // transactions of BATCH rows per table.
  const userNames = new Map(users.map((u) => [u[0] as number, u[4] as string]));
  const wf = workforceRows({ r: w, users: nUsers, usernameLower: (id) => userNames.get(id) ?? '', membersOf, leadOf, teams: nTeams, guides: N, titles: leaves, tick, now: Math.floor(Date.now() / 1000) });
  const wfTables = Object.keys(WORKFORCE_COLUMNS) as WorkforceTable[];
  const wfTotal = wfTables.reduce((n, table) => n + wf[table].length, 0);
  const wfp = progress('workforce rows', wfTotal);
  let wfDone = 0;
  for (const table of wfTables) {
    for (let i = 0; i < wf[table].length; i += BATCH) {
      const chunk = wf[table].slice(i, i + BATCH);
      await sink.begin();
      await sink.insert(table, [...WORKFORCE_COLUMNS[table]], chunk);
      await sink.commit();
      wfp.tick((wfDone += chunk.length));
    }
  }
  wfp.done();
  stage('workforce', sink);
  log(`workforce: ${nUsers} users in ${nTeams} teams; ${wf.courses.length} courses (${wf.course_stages.length} stages), ${wf.course_assignments.length} assignments, ` +
    `${wf.course_assignees.length} assignees, ${wf.course_stage_completions.length} stage completions, ${wf.skills_supervisor_ratings.length} supervisor ratings, ${wf.work_log.length} work log entries`);

  if (dialect === 'postgres') {
    // Ids were given explicitly: move each identity past them.
    for (const [table, col] of [['users', 'userid'], ['teams', 'teamid'], ['wikis', 'wikiid'], ['wiki_revisions', 'revisionid'], ['tags', 'tagid'], ['guide_ids', 'guideid'],
      ['images', 'imageid'], ['guide_steps', 'stepid'], ['guide_lines', 'lineid'], ['guide_step_revisions', 'revisionid'], ['guide_revisions', 'revisionid'], ['comments', 'commentid'], ['view_history', 'viewid'],
      ['courses', 'wikiid'], ['course_stages', 'course_stageid'], ['course_assignments', 'course_assignmentid'], ['course_assignees', 'course_assigneeid'], ['course_stage_completions', 'course_assignment_stage_completionid'],
      ['work_log', 'entryid']]) {
      await sink.run(`select setval(pg_get_serial_sequence('${table}', '${col}'), greatest(1, (select coalesce(max(${col}), 0) from ${table})))`);
    }
  }
  await sink.run(dialect === 'postgres' ? 'vacuum analyze' : 'analyze');
  await sink.close();
  stage(dialect === 'postgres' ? 'identities, vacuum analyze' : 'analyze');
  // Mark the demo as loaded so a server never adds its demo site to the benchmark's.
  const h2 = openDatabase(o.databaseUrl);
  await sql`insert into site_state (key, value) values ('demo_seeded', ${String(T0)}) on conflict (key) do nothing`.execute(h2.db);
  if (o.storeRecords !== false) await storeBenchRecords(h2, o.databaseUrl, log, o.recordProcesses);
  await h2.destroy();
  return {
    guides: N, users: nUsers, teams: nTeams, categories, wikis: wikiid, steps: stepid, lines: totalLines, images: imageid, comments: commentid,
    courses: wf.courses.length, assignees: wf.course_assignees.length, completions: wf.course_stage_completions.length, seconds: +((Date.now() - started) / 1000).toFixed(1),
  };
}

/**
 * Every public guide's record built and stored, as the app's first anonymous read would
 * (with the benchmark server's configuration). Also on its own (`--records only`): stored
 * records serve for 50 minutes after they are built, so a benchmark long after seeding
 * refreshes them first.
 *
 * A build is JavaScript (rendering, serializing, compressing): one process keeps one core
 * busy, and at 100 000 guides this was the longest stage of a seed. So `processes` child
 * processes (one per core, at most 4, by default) each build the guides whose id falls to
 * their part (guides.stored-build.ts `part`), on connections of their own; their progress
 * is printed here, summed.
 */
export async function storeBenchRecords(handle: ReturnType<typeof openDatabase>, databaseUrl: string, log: (line: string) => void = (l) => console.log(l), processes = RECORD_PROCESSES) {
  const t0 = Date.now();
  const done = processes <= 1
    ? await storeRecordsPart(handle, databaseUrl, undefined, throttled(log))
    : await storeRecordsInProcesses(databaseUrl, processes, log);
  const config = loadConfig({ ...BENCH_SERVER_ENV, DATABASE_URL: databaseUrl });
  log(`stored guide records: ${done.stored} in ${((Date.now() - t0) / 1000).toFixed(1)} s${processes > 1 ? ` (${processes} processes)` : ''} (served for ${(storedTtl(config) / 3600).toFixed(1)} hours after this, MEDIA_URL_TTL minus two GUIDE_CACHE_TTL, or until a write)`);
}

/** One process per core, at most 4 (each is an app with its connections; SQLite takes one writer at a time). */
const RECORD_PROCESSES = Math.min(availableParallelism(), 4);

/** A log that prints at most a line every 5 s. */
function throttled(log: (line: string) => void) {
  let last = 0;
  return (line: string) => {
    if (Date.now() - last < 5000) return;
    log(line);
    last = Date.now();
  };
}

/** The records of one part of the guides (all of them without `part`), built by an app in this process. */
async function storeRecordsPart(handle: ReturnType<typeof openDatabase>, databaseUrl: string, part: { index: number; of: number } | undefined, log: (line: string) => void, progress?: (done: PartProgress) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-seed-'));
  const config = loadConfig({ ...BENCH_SERVER_ENV, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', SEED_DEMO: 'false', JOB_POLL_MS: '0' });
  const app = await buildApp({ config, handle, clock: systemClock, logger: false });
  try {
    await app.ready();
    return await storeAllGuideRecords(app, { basePath: BASE_PATH, batch: 500, concurrency: dialectOf(databaseUrl) === 'postgres' ? 8 : 2, part, log, progress });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Progress a child process sends (`--records-part`). */
interface PartProgress { read: number; stored: number }

/** `processes` children of this script, one part each; their progress summed every 5 s. */
async function storeRecordsInProcesses(databaseUrl: string, processes: number, log: (line: string) => void): Promise<PartProgress> {
  const started = Date.now();
  const progress: PartProgress[] = Array.from({ length: processes }, () => ({ read: 0, stored: 0 }));
  const total = () => progress.reduce((a, p) => ({ read: a.read + p.read, stored: a.stored + p.stored }), { read: 0, stored: 0 });
  const timer = setInterval(() => {
    const t = total();
    log(`stored guide records: ${t.read} guides read, ${t.stored} stored, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 5000);
  try {
    await Promise.all(progress.map((p, index) => new Promise<void>((resolve, reject) => {
      // The same script, under the same loader (tsx's flags are in execArgv).
      const child = fork(fileURLToPath(import.meta.url), ['--database', databaseUrl, '--records-part', `${index}/${processes}`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      child.on('message', (m: PartProgress) => Object.assign(p, m));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`stored records, part ${index} of ${processes}: the process ended with ${code}`))));
    })));
  } finally {
    clearInterval(timer);
  }
  return total();
}

async function main() {
  const { values } = parseArgs({
    options: {
      guides: { type: 'string', default: '100000' },
      users: { type: 'string' },
      database: { type: 'string', default: DEFAULT_DATABASE },
      seed: { type: 'string', default: '20261122' },
      'hash-cost': { type: 'string', default: '12' },
      records: { type: 'string', default: 'all' },
      'pg-load': { type: 'string', default: 'copy' },
      'record-processes': { type: 'string', default: String(RECORD_PROCESSES) },
      'records-part': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`npm run seed:bench -- [--guides 100000] [--users guides/10] [--database ${DEFAULT_DATABASE}|postgres://...] [--seed 20261122] [--hash-cost 12] [--pg-load copy|unnest] [--records all|none|only] [--record-processes N]\n` +
      `Replaces the database's content (SQLite: the file; PostgreSQL: the public schema); --users sets the workforce (teams of about 25, users/8 courses, their progress; default guides/10); --records only builds the stored guide records of the site already there again, --record-processes N of them at once (default ${RECORD_PROCESSES} here: one per core, at most 4). Every account's password: "${SERVER_PASSWORD}".`);
    return;
  }
  const recordProcesses = Number(values['record-processes']);
  if (!Number.isInteger(recordProcesses) || recordProcesses < 1) throw new Error(`--record-processes: a whole number from 1, not ${values['record-processes']}`);
  if (values['records-part'] !== undefined) {
    // A child of storeRecordsInProcesses: one part of the guides, its progress sent to the parent.
    const [index, of] = values['records-part'].split('/').map(Number);
    const handle = openDatabase(values.database!);
    try {
      const report = (p: PartProgress) => new Promise<void>((resolve) => (process.send ? process.send(p, () => resolve()) : resolve()));
      await report(await storeRecordsPart(handle, values.database!, { index, of }, () => {}, (p) => void report(p)));
    } finally {
      await handle.destroy();
    }
    return;
  }
  if (values.records === 'only') {
    // The site as it is; its stored records built again (they serve for 50 minutes).
    const handle = openDatabase(values.database!);
    try {
      await storeBenchRecords(handle, values.database!, undefined, recordProcesses);
    } finally {
      await handle.destroy();
    }
    return;
  }
  if (values.records !== 'all' && values.records !== 'none') throw new Error(`--records: all, none or only, not ${values.records}`);
  const pgLoad = values['pg-load'];
  if (pgLoad !== 'copy' && pgLoad !== 'unnest') throw new Error(`--pg-load: copy or unnest, not ${pgLoad}`);
  const users = values.users === undefined ? undefined : Number(values.users);
  if (users !== undefined && (!Number.isInteger(users) || users < 10)) throw new Error(`--users: a whole number from 10, not ${values.users}`);
  const summary = await seedBench({ guides: Number(values.guides), users, databaseUrl: values.database!, seed: Number(values.seed), hashCost: Number(values['hash-cost']), pgLoad, storeRecords: values.records !== 'none', recordProcesses });
  console.log(`seeded ${values.database!.replace(/\/\/[^@]*@/, '//')}: ${JSON.stringify(summary)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
