// The load benchmark: the built server as its own process (logging at warn), driven from
// this process with autocannon, scenario by scenario; in the same run a baseline server
// (bench/baseline-server.ts: a bare Fastify route answering the same bytes from memory)
// is driven the same way, so each read is also given as a ratio to the framework's ceiling.
//
//   npm run seed:bench -- --guides 100000 && npm run bench
//   npm run bench -- --database postgres://postgres@127.0.0.1:5432/bench --duration 10
//   npm run bench -- --duration 2 --only guide,suggest --json /tmp/x.json
//
// Writes bench/results/<label>.json and bench/results/<label>.md (label: the database
// kind and the number of guides, or --label). Seed the database first (bench/seed.ts).
// Speed is measured here, never in a timed test: the targets are reported, not enforced
// (the exit code is non-zero only when a valid request failed).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir, release } from 'node:os';
import { dirname, join } from 'node:path';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import autocannon, { type Request as LoadRequest } from 'autocannon';
import { dialectOf, openDatabase, sqlitePath } from '../src/db/database.js';
import { ADMITTED_AT_OFFER } from '../src/areas/shared/byte-cache.js';
import { freePort, login, startServer, REPO_ROOT, type ServerProcess } from './lib/server-process.js';
import { fingerprint, fingerprintKey, type NodeKey } from '../src/node-keys.js';
import { BENCH_SERVER_ENV, DEFAULT_DATABASE, prng } from './seed.js';
import { removeUploads, startS3, uploadImages, type BenchS3 } from './lib/images.js';

const API = '/api/2.0';
/**
 * How many distinct guides the reads of one guide ask for: a hot set whose records fit
 * the server's cache (GUIDE_CACHE_MB, 80 MB: the 2 000 records of this hot set at 100 000
 * guides take 70 MB, so about 10 MB are to spare; with 64 MB, the default until
 * 2026-11-24, they did not fit, and about one read in ten was a miss that cost twenty
 * hits; 96 MB from then until the memory work of the same day). The `guide-cold`
 * scenario asks for any public guide instead.
 */
const HOT_SET = 2000;
/** The reads (and the mixed profile) run again with the server as several processes (`--processes N`). */
const PROCESS_SCENARIOS = ['list', 'guide', 'suggest', 'mixed'];
/**
 * The node keys the benchmark's server is given (docs/operations.md, "Node keys"), the same
 * every run: the database keeps their fingerprints from the first start and refuses a node
 * with other keys, and MEDIA_STORAGE=s3 requires them set (32 bytes at least).
 * MEDIA_URL_SECRET is BENCH_SERVER_ENV's, which the stored guide records were built with.
 */
const BENCH_NODE_KEYS: Record<Exclude<NodeKey, 'MEDIA_URL_SECRET'>, string> = {
  WEBHOOK_SECRETS_KEY: 'the benchmark webhook secrets key, fs and s3',
  AUDIT_CHAIN_KEY: 'the benchmark audit chain key, fs and s3 alike',
};

/**
 * Forgets the fingerprints of node keys other than the benchmark's in a benchmark's
 * database: until 2026-12-04 its server made WEBHOOK_SECRETS_KEY and AUDIT_CHAIN_KEY in its
 * temporary data folder, new each run, and since the database kept fingerprints (8a3e8dc)
 * the second run on a site refused to start. A benchmark's site only: its audit log does
 * not verify across such a change (it never did across runs).
 */
async function forgetOtherNodeKeys(databaseUrl: string, keys: Record<NodeKey, string>): Promise<void> {
  const h = openDatabase(databaseUrl);
  try {
    for (const [name, key] of Object.entries(keys) as Array<[NodeKey, string]>) {
      const r = await h.db.deleteFrom('site_state').where('key', '=', fingerprintKey(name)).where('value', '!=', fingerprint(Buffer.from(key, 'utf8'))).executeTakeFirst();
      if (Number(r.numDeletedRows) > 0) console.log(`the database's fingerprint of ${name} was of another key (a run before the benchmark's keys were fixed): forgotten`);
    }
  } finally {
    await h.destroy();
  }
}

/** The image variant the image scenarios ask for: 592 × 444 at most, what a guide's step shows. */
const IMAGE_VARIANT = 'medium';
/** Images whose variant `image-variant` reads over and over. */
const WARM_IMAGES = 8;
/**
 * Variants a second that `image-variant-cold` is given images for by default (`--images`):
 * each of its requests needs an image of its own, and an upload costs about ten cold reads.
 */
const COLD_PER_SECOND = 100;

export interface Measure {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /**
   * Connection errors, timeouts and answers of another status than the scenario's success:
   * any non-2xx, or for a conditional read (`guide-304`) anything but 304.
   */
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** The server's peak RSS; with several processes, the peak of their sum (supervisor and workers). */
  peakRssMb: number | null;
  /** With several processes: the peak of the workers' sum alone (the supervisor left out). */
  peakRssWorkersMb?: number;
  /** Bytes per answer, headers included (autocannon's count): shows what went on the wire (a gzipped record, a 304). */
  bytesPerAnswer: number;
}

export interface ScenarioResult extends Measure {
  name: string;
  request: string;
  kind: 'read' | 'write' | 'login' | 'mixed';
  /** Writes run with the write connections and must all succeed. */
  write: boolean;
  connections: number;
  /** Server processes (WEB_CONCURRENCY); 1 unless a `×N processes` row. */
  processes: number;
  baseline?: Measure;
  /** rps / baseline rps. */
  ratio?: number;
}

export interface BenchReport {
  label: string;
  date: string;
  /** Where the server kept its files (MEDIA_STORAGE; s3: s3rver on loopback). */
  storage?: 'fs' | 's3';
  /** The images uploaded for the image scenarios. */
  images?: { count: number; averageKb: number; uploadSeconds: number };
  machine: { cpu: string; cores: number; memoryGb: number; os: string; node: string; shared: string; loadAverage: { start: number; end: number } };
  database: { kind: string; version: string; sizeMb: number };
  data: { guides: number; publicGuides: number; steps: number; lines: number; wikis: number; users: number; comments: number; assignees?: number };
  durationSeconds: number;
  connections: number;
  writeConnections: number;
  scenarios: ScenarioResult[];
  peakRssMb: number | null;
  targets: Array<{ target: string; value: string; met: boolean }>;
  failures: string[];
}

/** Resident set size of a process, in MB (Linux /proc), or null. */
function rssOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** A process's children (Linux /proc): the workers of a WEB_CONCURRENCY supervisor. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces, so split after its ')'.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {}
  }
  return out;
}

/** The RSS of a process and, with `tree`, the sum of its children's too, at one instant. */
function rssOfTree(pid: number | undefined, tree: boolean): { total: number; children: number } | null {
  if (!pid) return null;
  const own = rssOf(pid);
  if (own === null) return null;
  const children = tree ? childrenOf(pid).reduce((sum, child) => sum + (rssOf(child) ?? 0), 0) : 0;
  return { total: own + children, children };
}

export interface DriveOptions {
  /** The server's pid, for its peak RSS. */
  pid?: number;
  /** Sum the RSS of the pid's children too (the workers of WEB_CONCURRENCY). */
  tree?: boolean;
  /** The statuses that count as success (default: any 2xx). */
  ok?: number[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One autocannon run: throughput, latency percentiles from every response, errors, the server's peak RSS. */
export function drive(url: string, requests: LoadRequest[], duration: number, connections: number, options: DriveOptions = {}): Promise<Measure> {
  const { pid, tree = false, ok } = options;
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    let bytes = 0;
    let peak: number | null = null;
    let peakWorkers = 0;
    const sample = () => {
      const rss = rssOfTree(pid, tree);
      if (rss === null) return;
      peak = Math.max(peak ?? 0, rss.total);
      peakWorkers = Math.max(peakWorkers, rss.children);
    };
    sample();
    const timer = setInterval(sample, 200);
    const instance = autocannon({ url, connections, duration, timeout: 10, requests }, (err, res) => {
      clearInterval(timer);
      if (err) return reject(err);
      const sorted = Float64Array.from(times).sort();
      const statusCodes = Object.fromEntries(Object.entries(res.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
      const r2 = (x: number) => +x.toFixed(2);
      // autocannon counts every non-2xx as an error; a scenario with its own success
      // statuses (a 304) is judged from the per-status counts instead.
      const failed = ok ? Object.entries(statusCodes).reduce((n, [code, count]) => n + (ok.includes(Number(code)) ? 0 : count), 0) : res.non2xx;
      resolve({
        requests: res.requests.total,
        rps: Math.round(res.requests.total / Math.max(res.duration, 0.001)),
        p50: r2(percentile(sorted, 50)),
        p95: r2(percentile(sorted, 95)),
        p99: r2(percentile(sorted, 99)),
        max: r2(sorted[sorted.length - 1] ?? NaN),
        errors: res.errors + res.timeouts + failed,
        non2xx: res.non2xx,
        statusCodes,
        peakRssMb: peak === null ? null : +(peak as number).toFixed(1),
        ...(tree ? { peakRssWorkersMb: +peakWorkers.toFixed(1) } : {}),
        bytesPerAnswer: times.length ? Math.round(bytes / times.length) : 0,
      });
    });
    instance.on('response', (_client, _status, answerBytes, responseTime) => {
      times.push(responseTime);
      bytes += answerBytes;
    });
  });
}

// ------------------------------------------------------------------ what the scenarios need

interface Pool {
  /** The hot set: distinct public guides (id, revisionid) that most reads ask for. */
  guides: Array<{ guideid: number; revisionid: number }>;
  /** Every public guide's id. */
  all: number[];
  prefixes: string[];
  /** Courses with assignees (GET /course_assignees/course/{wikiid}/users). */
  courses: number[];
  /** The workforce's reads (bench/lib/workforce.ts seeds it). */
  workforce: WorkforcePool;
  /** Wikis of every namespace, one in 25 (GET /wikis/{namespace}/{title}). */
  wikis: string[];
  counts: BenchReport['data'];
  database: BenchReport['database'];
}

async function loadPool(databaseUrl: string, seed: number): Promise<Pool> {
  const h = openDatabase(databaseUrl);
  try {
    const db = h.db;
    const r = prng(seed);
    const all = await db.selectFrom('guides').select(['guideid', 'revisionid', 'title']).where('public', '=', 1).where('deleted', '=', 0).orderBy('guideid').execute();
    if (all.length < 100) throw new Error(`the database holds ${all.length} public guides: seed it first (npm run seed:bench -- --guides N${databaseUrl === DEFAULT_DATABASE ? '' : ` --database ${databaseUrl}`})`);
    const hot = new Map<number, { guideid: number; revisionid: number }>();
    while (hot.size < Math.min(HOT_SET, all.length)) {
      const g = all[r.int(0, all.length - 1)];
      hot.set(g.guideid, { guideid: g.guideid, revisionid: g.revisionid });
    }
    const guides = [...hot.values()];
    const wikiTitles = await db.selectFrom('wikis').select(['namespace', 'title']).where(sql<boolean>`wikiid % 25 = 0`).limit(1000).execute();
    const titles = [...Array.from({ length: 1000 }, () => all[r.int(0, all.length - 1)].title), ...wikiTitles.map((w) => w.title)];
    const prefixes = titles.map((t) => t.slice(0, r.int(3, Math.min(12, t.length))).trim()).filter((p) => p.length >= 3);
    const count = async (table: 'guides' | 'guide_steps' | 'guide_lines' | 'wikis' | 'users' | 'comments') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const counts = { guides: await count('guides'), publicGuides: all.length, steps: await count('guide_steps'), lines: await count('guide_lines'), wikis: await count('wikis'), users: await count('users'), comments: await count('comments') };
    let database: Pool['database'];
    if (h.dialect === 'postgres') {
      const v = await sql<{ v: string; size: number }>`select current_setting('server_version') as v, pg_database_size(current_database()) as size`.execute(db);
      database = { kind: 'PostgreSQL', version: v.rows[0].v, sizeMb: Math.round(Number(v.rows[0].size) / 2 ** 20) };
    } else {
      const v = await sql<{ v: string }>`select sqlite_version() as v`.execute(db);
      const file = sqlitePath(databaseUrl);
      database = { kind: 'SQLite', version: v.rows[0].v, sizeMb: Math.round(statSync(file).size / 2 ** 20) };
    }
    const courses = (await db.selectFrom('courses').select('wikiid').where('deleted', '=', 0).where('assignee_count', '>', 0).orderBy('wikiid').execute()).map((c) => c.wikiid);
    const wikis = wikiTitles.map((w) => `${w.namespace}/${encodeURIComponent(w.title)}`);
    return { guides, all: all.map((g) => g.guideid), prefixes, courses, workforce: await loadWorkforce(db, r), wikis, counts: { ...counts, assignees: await countAssignees(db) }, database };
  } finally {
    await h.destroy();
  }
}

/** Leads (not the demo accounts) whose reads of their team the workforce scenarios make. */
const LEADS = 8;

export interface WorkforcePool {
  /** Team leads with what they read: their team, its members but themself (at most 100), the guides of its courses (at most 100). */
  leads: Array<{ email: string; userid: number; teamid: number; members: number[]; guideids: number[] }>;
  /** Users with an active course (at most 2 000, drawn from all of them). */
  assigned: number[];
  /** Pages of 20 of the users with an active course, and of the teams (the summaries). */
  userPages: number;
  teamPages: number;
}

async function countAssignees(db: ReturnType<typeof openDatabase>['db']): Promise<number> {
  return Number((await db.selectFrom('course_assignees').select((eb) => eb.fn.countAll().as('n')).where('active', '=', 1).executeTakeFirstOrThrow()).n);
}

async function loadWorkforce(db: ReturnType<typeof openDatabase>['db'], r: ReturnType<typeof prng>): Promise<WorkforcePool> {
  const leadRows = await db.selectFrom('team_members as m').innerJoin('users as u', 'u.userid', 'm.userid').select(['m.userid', 'm.teamid', 'u.email'])
    .where('m.is_lead', '=', 1).where('m.userid', '>', 4).orderBy('m.userid').limit(LEADS).execute();
  const leads: WorkforcePool['leads'] = [];
  for (const l of leadRows) {
    const members = (await db.selectFrom('team_members').select('userid').where('teamid', '=', l.teamid).where('userid', '!=', l.userid).orderBy('userid').limit(100).execute()).map((m) => m.userid);
    const guideids = (await db.selectFrom('course_assignments as a').innerJoin('course_stages as s', 's.wikiid', 'a.wikiid').select('s.docid').distinct()
      .where('a.assignee_teamid', '=', l.teamid).where('a.cancelled', '=', 0).where('s.active', '=', 1).where('s.doctype', '=', 'guide').orderBy('s.docid').limit(100).execute()).map((g) => g.docid);
    if (members.length && guideids.length) leads.push({ email: l.email!, userid: l.userid, teamid: l.teamid, members, guideids });
  }
  const assignedAll = (await db.selectFrom('course_assignees').select('userid').distinct().where('active', '=', 1).orderBy('userid').execute()).map((a) => a.userid);
  const assigned = assignedAll.length <= 2000 ? assignedAll : Array.from({ length: 2000 }, () => assignedAll[r.int(0, assignedAll.length - 1)]);
  const teams = Number((await db.selectFrom('teams').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { leads, assigned, userPages: Math.ceil(assignedAll.length / 20), teamPages: Math.ceil(teams / 20) };
}

/**
 * Reads an SQLite file once from start to end, so that the system's page cache holds it
 * before the measure, as it does on a server that has been up for a while. A file just
 * seeded or copied is often only partly in that cache (on this machine, 1.4 of 2.6 GB
 * after seeding), and then the cold guide reads measured the disk: 583 µs per stored
 * record against 100 to 150 µs from the cache. Takes a second or two per GB.
 */
function warmSqliteFile(file: string) {
  const size = statSync(file).size;
  const started = Date.now();
  const fd = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(8 * 2 ** 20);
  try {
    let at = 0;
    while (at < size) {
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (n <= 0) break;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  console.log(`read ${file} (${(size / 2 ** 30).toFixed(1)} GB) into the system's page cache in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// ------------------------------------------------------------------ scenarios

interface Scenario {
  name: string;
  /** As shown in the table. */
  request: string;
  kind: ScenarioResult['kind'];
  write?: boolean;
  /** The requests one connection cycles through. */
  requests(): LoadRequest[];
  /** A path whose answer the baseline serves (reads). */
  sample?(): string;
  /** The sample is read with the benchmark's token (a route for logged-in users). */
  authSample?: boolean;
  /** A sample read with a request of its own (another method, a body, another token) instead of GET `sample()`. */
  sampleFetch?(url: string): Promise<Response>;
  /** The statuses that count as success (default: any 2xx). */
  ok?: number[];
  /** A conditional read: its baseline answers 304 with the tag of the sample. */
  conditional?: boolean;
  /** Its requests accept gzip: the sample, and the baseline's answer, are the gzipped bytes the server sent. */
  gzip?: boolean;
  /** A file, not JSON: the baseline answers the sample's bytes with its Content-Type. */
  binary?: boolean;
  /** Run only when named in --only (its setup takes minutes). */
  optIn?: boolean;
  /** Before its warm-up (each time it runs): what it must find made. */
  prepare?(url: string, parallel: number): Promise<void>;
  /** After its measure: what makes the run invalid, if anything. */
  check?(): string | undefined;
}

/** The images of the image scenarios: signed paths of their IMAGE_VARIANT. */
interface ImagePool {
  warm: string[];
  cold: string[];
}

const get = (path: () => string): LoadRequest => ({ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) });

/** The ETags the server gave for the hot set's guides (GET /guides/{id}), by guide id. */
type Tags = Map<number, string>;

/** The tokens of the pool's leads, in its order. */
type LeadTokens = string[];

function scenarios(pool: Pool, token: string, offset: number, tags: Tags, leadTokens: LeadTokens = [], images?: ImagePool): Scenario[] {
  let n = 0;
  const r = prng(7);
  const randomGuide = () => pool.guides[r.int(0, pool.guides.length - 1)];
  const auth = { 'content-type': 'application/json', authorization: `api ${token}` };
  // Edits go round the last 200 guides of the hot set, never to a guide whose last edit
  // is still in flight, each with the revisionid its last answer carried (a 409 carries
  // the current one too). Autocannon clears a connection's context at the end of each
  // pass through its requests, so this state lives here.
  const own = pool.guides.slice(-200);
  const revisions = new Map(own.map((g) => [g.guideid, g.revisionid]));
  const busy = new Set<number>();
  let nextOwn = 0;
  const patch = (): LoadRequest => ({
    method: 'PATCH',
    setupRequest: (req) => {
      let g = own[nextOwn++ % own.length];
      for (let i = 0; i < own.length && busy.has(g.guideid); i++) g = own[nextOwn++ % own.length];
      busy.add(g.guideid);
      return { ...req, path: `${API}/guides/${g.guideid}?revisionid=${revisions.get(g.guideid)}`, headers: auth, body: JSON.stringify({ summary: `Edited by the benchmark, ${++n}.` }) };
    },
    onResponse: (_status, body) => {
      try {
        const g = JSON.parse(body) as { guideid: number; revisionid: number };
        revisions.set(g.guideid, g.revisionid);
        busy.delete(g.guideid);
      } catch {}
    },
  });
  const comment = (): LoadRequest => ({
    method: 'POST',
    setupRequest: (req) => ({ ...req, path: `${API}/comments/guide/${randomGuide().guideid}`, headers: auth, body: JSON.stringify({ text: `A benchmark comment, number ${++n}.` }) }),
  });
  const guidePath = () => `${API}/guides/${randomGuide().guideid}`;
  // The hot set again, each request naming the tag the server gave for that guide: a 304
  // without a body is the answer, and the success, of every one.
  const conditionalGuide = (): LoadRequest => ({
    method: 'GET',
    setupRequest: (req) => {
      const g = randomGuide();
      return { ...req, path: `${API}/guides/${g.guideid}`, headers: { 'if-none-match': tags.get(g.guideid) ?? '"none"' } };
    },
  });
  const coldPath = () => `${API}/guides/${pool.all[r.int(0, pool.all.length - 1)]}`;
  // A client that takes gzip (every browser, curl --compressed, most HTTP libraries): a
  // stored record not kept by the process goes out as it is stored (byte-cache.ts).
  const coldGzip = (): LoadRequest => ({ method: 'GET', setupRequest: (req) => ({ ...req, path: coldPath(), headers: ACCEPT_GZIP }) });
  const suggestPath = () => `${API}/suggest/${encodeURIComponent(pool.prefixes[r.int(0, pool.prefixes.length - 1)])}`;
  // CloudPrem's load-test journeys: 30 % of their requests, `/search/{q}?limit=20`.
  const searchPath = () => `${API}/search/${encodeURIComponent(pool.prefixes[r.int(0, pool.prefixes.length - 1)])}?limit=20`;
  const wikiPath = () => `${API}/wikis/${pool.wikis[r.int(0, pool.wikis.length - 1)]}`;
  const assigneesPath = () => `${API}/course_assignees/course/${pool.courses[r.int(0, pool.courses.length - 1)]}/users?orderby=due_date&page=${r.int(1, 3)}`;
  const reads: Scenario[] = [
    // The app's floor: every hook of an API request (auth, security headers, CORS,
    // metrics, output formats) and a schema-serialized answer, and no database.
    { name: 'floor', request: 'GET /suggest (no query, no database)', kind: 'read', requests: () => [get(() => `${API}/suggest`)], sample: () => `${API}/suggest` },
    { name: 'list', request: 'GET /guides?limit=20', kind: 'read', requests: () => [get(() => `${API}/guides?limit=20`)], sample: () => `${API}/guides?limit=20` },
    { name: 'list-offset', request: `GET /guides?offset=${offset}&limit=20`, kind: 'read', requests: () => [get(() => `${API}/guides?offset=${offset}&limit=20`)], sample: () => `${API}/guides?offset=${offset}&limit=20` },
    { name: 'guide', request: `GET /guides/{id} (random of ${pool.guides.length})`, kind: 'read', requests: () => [get(guidePath)], sample: guidePath },
    { name: 'guide-304', request: `GET /guides/{id} (random of ${pool.guides.length}) with If-None-Match: 304`, kind: 'read', ok: [304], conditional: true, requests: () => [conditionalGuide()], sample: guidePath },
    { name: 'guide-cold', request: `GET /guides/{id} (random of ${pool.all.length})`, kind: 'read', requests: () => [get(coldPath)], sample: coldPath },
    { name: 'guide-cold-gzip', request: `GET /guides/{id} (random of ${pool.all.length}), Accept-Encoding: gzip`, kind: 'read', gzip: true, requests: () => [coldGzip()], sample: coldPath },
    { name: 'hierarchy', request: 'GET /wikis/CATEGORY?display=hierarchy', kind: 'read', requests: () => [get(() => `${API}/wikis/CATEGORY?display=hierarchy`)], sample: () => `${API}/wikis/CATEGORY?display=hierarchy` },
    ...(pool.wikis.length ? [{ name: 'wiki', request: `GET /wikis/{namespace}/{title} (random of ${pool.wikis.length})`, kind: 'read' as const, requests: () => [get(wikiPath)], sample: wikiPath }] : []),
    { name: 'suggest', request: 'GET /suggest/{prefix} (3+ chars)', kind: 'read', requests: () => [get(suggestPath)], sample: suggestPath },
    { name: 'search', request: 'GET /search/{prefix}?limit=20 (3+ chars; every tier ranked, for the count)', kind: 'read', requests: () => [get(searchPath)], sample: searchPath },
    ...(pool.courses.length ? [{
      name: 'assignees', request: `GET /course_assignees/course/{wikiid}/users?orderby=due_date (random of ${pool.courses.length} courses, as the Admin)`, kind: 'read' as const,
      requests: (): LoadRequest[] => [{ method: 'GET', setupRequest: (req) => ({ ...req, path: assigneesPath(), headers: auth }) }], sample: assigneesPath, authSample: true,
    }] : []),
    { name: 'comments', request: 'GET /comments?context=guide', kind: 'read', requests: () => [get(() => `${API}/comments?context=guide`)], sample: () => `${API}/comments?context=guide` },
    ...workforceScenarios(pool.workforce, token, leadTokens),
    ...(images ? imageScenarios(images) : []),
  ];
  // 90 reads and 10 writes, interleaved the same way every run.
  const mixed = (): LoadRequest[] => {
    const list: LoadRequest[] = [
      ...Array.from({ length: 40 }, () => get(guidePath)),
      ...Array.from({ length: 20 }, () => get(() => `${API}/guides?limit=20`)),
      ...Array.from({ length: 15 }, () => get(suggestPath)),
      ...Array.from({ length: 10 }, () => get(() => `${API}/comments?context=guide`)),
      ...Array.from({ length: 5 }, () => get(() => `${API}/guides?offset=${offset}&limit=20`)),
      ...Array.from({ length: 5 }, comment),
      ...Array.from({ length: 5 }, patch),
    ];
    const s = prng(42);
    for (let i = list.length - 1; i > 0; i--) {
      const j = s.int(0, i);
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  };
  return [
    ...reads,
    { name: 'comment', request: 'POST /comments/guide/{id}', kind: 'write', write: true, requests: () => [comment()] },
    { name: 'patch', request: 'PATCH /guides/{id}?revisionid=', kind: 'write', write: true, requests: () => [patch()] },
    { name: 'login', request: 'POST /user/token', kind: 'login', requests: () => [{ method: 'POST', path: `${API}/user/token`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'user@example.com', password: 'server test password' }) }] },
    { name: 'mixed', request: 'mixed: 90% reads, 10% writes', kind: 'mixed', write: true, requests: mixed },
  ];
}

/**
 * The reads a plant makes of its workforce every day: a lead's skills matrix of their team
 * and their team's course averages (as that lead: the access filter is part of what is
 * measured), the completion summaries of users and of teams, and a user's assignments (as
 * the Admin, any page or user of the site).
 */
function workforceScenarios(w: WorkforcePool, adminToken: string, leadTokens: LeadTokens): Scenario[] {
  const r = prng(11);
  const out: Scenario[] = [];
  const as = (token: string, body?: string) => ({ authorization: `api ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) });
  const leads = w.leads.map((l, i) => ({ ...l, token: leadTokens[i], body: JSON.stringify({ userids: l.members, guideids: l.guideids }) })).filter((l) => l.token);
  if (leads.length) {
    const lead = () => leads[r.int(0, leads.length - 1)];
    const teamPath = (teamid: number) => `${API}/skills/teams/${teamid}/courses`;
    out.push({
      name: 'skills-matrix', request: `POST /skills/matrix (a team's members × its courses' guides, as its lead; ${leads.length} leads)`, kind: 'read',
      requests: (): LoadRequest[] => [{ method: 'POST', setupRequest: (req) => {
        const l = lead();
        return { ...req, path: `${API}/skills/matrix`, headers: as(l.token, l.body), body: l.body };
      } }],
      sampleFetch: (url) => fetch(`${url}${API}/skills/matrix`, { method: 'POST', headers: as(leads[0].token, leads[0].body), body: leads[0].body }),
    });
    out.push({
      name: 'team-courses', request: `GET /skills/teams/{teamid}/courses (as its lead; ${leads.length} leads)`, kind: 'read',
      requests: (): LoadRequest[] => [{ method: 'GET', setupRequest: (req) => {
        const l = lead();
        return { ...req, path: teamPath(l.teamid), headers: as(l.token) };
      } }],
      sampleFetch: (url) => fetch(`${url}${teamPath(leads[0].teamid)}`, { headers: as(leads[0].token) }),
    });
  }
  const adminGet = (name: string, request: string, path: () => string): Scenario => ({
    name, request, kind: 'read', requests: () => [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path(), headers: as(adminToken) }) }], sample: path, authSample: true,
  });
  if (w.userPages) out.push(adminGet('summaries', `GET /course_assignments/individualSummaries?page=…&limit=20 (random of ${w.userPages} pages, as the Admin)`, () => `${API}/course_assignments/individualSummaries?page=${r.int(1, w.userPages)}&limit=20`));
  if (w.teamPages) out.push(adminGet('team-summaries', `GET /course_assignments/teamSummaries?page=…&limit=20 (random of ${w.teamPages} pages, as the Admin)`, () => `${API}/course_assignments/teamSummaries?page=${r.int(1, w.teamPages)}&limit=20`));
  if (w.assigned.length) out.push(adminGet('user-assignments', `GET /course_assignments/completion/user/{userid}?limit=20 (random of ${w.assigned.length} users, as the Admin)`, () => `${API}/course_assignments/completion/user/${w.assigned[r.int(0, w.assigned.length - 1)]}?limit=20`));
  return out;
}

/**
 * An image variant served by the app from storage (media.files.ts), as an <img> of a
 * guide's step asks for it with the record's signed URL. Warm: the same few variants,
 * made before the measure; each request still reads the stored variant from storage (its
 * size looked up twice, then its bytes: on s3 two HEADs and a GET; the app keeps no file
 * in memory). Cold:
 * each request the variant of an image never asked for, so the app finds no stored
 * variant, reads the original from storage (on s3: downloaded to a temporary file), makes
 * the variant with sharp in its image queue (IMAGE_CONCURRENCY, 2), stores it, and then
 * serves it from storage like a warm one. Opt-in: it needs an upload per request.
 */
function imageScenarios(images: ImagePool): Scenario[] {
  const r = prng(13);
  let next = 0;
  let repeated = 0;
  const cold = () => {
    if (next >= images.cold.length) repeated++;
    return images.cold[next++ % images.cold.length];
  };
  const sample = () => images.warm[0];
  return [
    {
      name: 'image-variant', request: `GET /files/images/{guid}.${IMAGE_VARIANT} (random of ${images.warm.length}, made before)`, kind: 'read', binary: true,
      requests: () => [get(() => images.warm[r.int(0, images.warm.length - 1)])], sample,
      prepare: (url, parallel) => prewarm(url, images.warm, parallel),
    },
    ...(images.cold.length ? [{
      name: 'image-variant-cold', request: `GET /files/images/{guid}.${IMAGE_VARIANT} (each of ${images.cold.length} images once: made from the original)`, kind: 'read' as const, binary: true, optIn: true,
      requests: () => [get(cold)], sample,
      check: () => repeated ? `image-variant-cold: ${repeated} of ${next} requests found no image left whose variant was still to make (upload more: --images)` : undefined,
    }] : []),
  ];
}

// ------------------------------------------------------------------ the run

/**
 * The statement times of the server's measured windows (--statements): the server runs
 * with bench/lib/statement-times.mjs preloaded, which writes what it counted since the
 * last signal at each SIGWINCH; `mark` sends one and waits for the file.
 */
class StatementTimes {
  private dumps = 0;
  readonly env: Record<string, string>;
  readonly nodeArgs: string[];
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.env = { STATEMENT_TIMES_DIR: dir };
    this.nodeArgs = ['--import', pathToFileURL(join(REPO_ROOT, 'bench/lib/statement-times.mjs')).href];
  }

  /** Ends the server's current window (kept as DIR/<name>.txt when named) and starts the next. */
  async mark(pid: number, name?: string) {
    const file = join(this.dir, `statements-${++this.dumps}.txt`);
    process.kill(pid, 'SIGWINCH');
    for (let waited = 0; ; waited += 10) {
      try {
        statSync(file);
        break;
      } catch {
        if (waited > 10_000) throw new Error(`--statements: the server wrote no ${file}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    if (name) renameSync(file, join(this.dir, `${name}.txt`));
    else rmSync(file);
  }
}

/** Reads each path once, `parallel` at a time (the hot set, before it is measured); `onAnswer` sees each answer. */
async function prewarm(url: string, paths: string[], parallel: number, onAnswer?: (path: string, res: Response) => void) {
  const queue = [...paths];
  await Promise.all(Array.from({ length: parallel }, async () => {
    for (let p = queue.pop(); p !== undefined; p = queue.pop()) {
      const res = await fetch(`${url}${p}`);
      await res.arrayBuffer();
      onAnswer?.(p, res);
    }
  }));
}

/** Reads the hot set and keeps the ETag of each guide (for `guide-304`). */
async function collectTags(url: string, pool: Pool, tags: Tags, parallel: number) {
  tags.clear();
  await prewarm(url, pool.guides.map((g) => `${API}/guides/${g.guideid}`), parallel, (path, res) => {
    const tag = res.headers.get('etag');
    if (res.status === 200 && tag) tags.set(Number(path.slice(path.lastIndexOf('/') + 1)), tag);
  });
}

/** A conditional read's sample: the guide's tag, and proof that naming it gives a 304. */
async function conditionalSample(url: string, path: string): Promise<{ status: 304; etag: string }> {
  const first = await fetch(`${url}${path}`);
  await first.arrayBuffer();
  const etag = first.headers.get('etag');
  if (first.status !== 200 || !etag) throw new Error(`${path} answered ${first.status} without an ETag`);
  const again = await fetch(`${url}${path}`, { headers: { 'if-none-match': etag } });
  const body = await again.text();
  if (again.status !== 304 || body !== '') throw new Error(`${path} with If-None-Match: ${etag} answered ${again.status} (${body.length} bytes), not a 304 without a body`);
  return { status: 304, etag };
}

const ACCEPT_GZIP = { 'accept-encoding': 'gzip' };

/** What the baseline answers for a scenario (bench/baseline-server.ts): a body, a 304 with a tag, gzipped bytes (base64), or a file's bytes (base64) and type. */
type Sample = string | { status: 304; etag: string } | { gzip: string } | { file: string; type: string };

/**
 * A gzipped answer's sample: the bytes as sent (fetch would decode them). A guide read
 * that is built, not read from the stored records, goes out in identity: another is tried.
 */
async function gzipSample(url: string, path: () => string): Promise<Buffer> {
  for (let tries = 0; tries < 10; tries++) {
    const { status, headers, body } = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      httpGet(`${url}${path()}`, { headers: ACCEPT_GZIP }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      }).on('error', reject);
    });
    if (status === 200 && headers['content-encoding'] === 'gzip') return body;
  }
  throw new Error('guide-cold-gzip: ten stored guide records went out in identity, not gzipped: records stored before 2026-11-28 are raw deflate (npm run seed:bench -- --records only --database URL stores them again)');
}

function startBaseline(port: number, samplesFile: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', String(port), samplesFile], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    proc.once('exit', (code) => reject(new Error(`the baseline server exited (${code})`)));
    proc.stdout!.on('data', (d) => { if (String(d).includes('ready')) resolve(proc); });
  });
}

const fmt = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));

export function markdown(report: BenchReport): string {
  const out: string[] = [];
  out.push(`**${report.label}**: ${report.database.kind} ${report.database.version}, ${report.data.guides.toLocaleString('en')} guides (${report.data.steps.toLocaleString('en')} steps, ${report.data.lines.toLocaleString('en')} lines, ${report.data.wikis.toLocaleString('en')} wikis, ${report.data.comments.toLocaleString('en')} comments; ${report.database.sizeMb} MB), ` +
    `${report.data.users.toLocaleString('en')} users${report.data.assignees !== undefined ? ` (${report.data.assignees.toLocaleString('en')} course assignees)` : ''}, ` +
    `${report.machine.cores} × ${report.machine.cpu}, ${report.machine.memoryGb} GB, Node ${report.machine.node}, load average ${report.machine.loadAverage.start} → ${report.machine.loadAverage.end} (shared machine); ${report.durationSeconds} s per scenario, ${report.connections} connections (writes ${report.writeConnections}); ${report.date}.` +
    (report.images ? ` Files on ${report.storage === 's3' ? 'S3 (`MEDIA_STORAGE=s3`, s3rver on loopback)' : 'the filesystem (`MEDIA_STORAGE=fs`)'}: ${report.images.count} images of 1600 × 1200 uploaded before the scenarios (JPEG, ${report.images.averageKb} KB on average, in ${report.images.uploadSeconds} s).` : ''));
  out.push('');
  out.push('| Scenario | Conn. | req/s | p50 ms | p95 ms | p99 ms | errors | peak RSS MB | baseline req/s | ratio |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of report.scenarios) {
    out.push(`| \`${s.request}\` | ${s.connections} | ${s.rps} | ${fmt(s.p50, 2)} | ${fmt(s.p95, 2)} | ${fmt(s.p99, 2)} | ${s.errors} | ${fmt(s.peakRssMb, 0)}${s.peakRssWorkersMb !== undefined ? ` (workers ${fmt(s.peakRssWorkersMb, 0)})` : ''} | ${s.baseline ? s.baseline.rps : '–'} | ${s.ratio !== undefined ? `${Math.round(s.ratio * 100)} %` : '–'} |`);
  }
  const multi = report.scenarios.filter((s) => s.processes > 1);
  if (multi.length) {
    const n = multi[0].processes;
    out.push('');
    out.push(`Rows marked ×${n} processes: the same database served by ${n} server processes (\`WEB_CONCURRENCY=${n}\`: a supervisor and ${n} workers on one port), after the other rows; reported, not judged, and with no baseline. Their peak RSS is the peak of the sum over all ${n + 1} processes (the supervisor and its ${n} workers, its children, read from \`/proc\` at the same instants), and in brackets the peak of the workers' sum alone; the RSS target is judged on the one-process rows only.`);
  }
  out.push('');
  out.push('| Target | Measured | Met |');
  out.push('|---|---|---|');
  for (const t of report.targets) out.push(`| ${t.target} | ${t.value} | ${t.met ? 'yes' : '**no**'} |`);
  return out.join('\n') + '\n';
}

function judge(report: BenchReport): BenchReport['targets'] {
  const by = new Map(report.scenarios.map((s) => [s.name, s]));
  const targets: BenchReport['targets'] = [];
  const ratio = (name: string, what: string) => {
    const s = by.get(name);
    if (s?.ratio !== undefined) targets.push({ target: `${what} ≥ 60 % of the baseline's req/s`, value: `${Math.round(s.ratio * 100)} %`, met: s.ratio >= 0.6 });
  };
  ratio('guide', '`GET /guides/{id}`');
  ratio('list', '`GET /guides?limit=20`');
  ratio('list-offset', '`GET /guides?offset=…&limit=20`');
  const suggest = by.get('suggest');
  if (suggest) targets.push({ target: `suggest p99 < 10 ms at ${suggest.connections} connections`, value: `${fmt(suggest.p99, 2)} ms`, met: suggest.p99 < 10 && suggest.connections >= 8 });
  const writes = report.scenarios.filter((s) => s.write);
  if (writes.length) targets.push({ target: `writes: 0 errors at ${report.writeConnections} connections`, value: writes.map((s) => `${s.name} ${s.errors}`).join(', '), met: writes.every((s) => s.errors === 0) });
  if (report.peakRssMb !== null) targets.push({ target: 'server RSS < 300 MB', value: `${fmt(report.peakRssMb, 0)} MB peak`, met: report.peakRssMb < 300 });
  return targets;
}

async function main() {
  const { values } = parseArgs({
    options: {
      database: { type: 'string', default: DEFAULT_DATABASE },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '8' },
      'write-connections': { type: 'string', default: '32' },
      only: { type: 'string' },
      label: { type: 'string' },
      json: { type: 'string' },
      md: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'no-baseline': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      statements: { type: 'string' },
      // Default: 2 server processes for the second part when the machine has 2 cores or more.
      processes: { type: 'string', default: String(cpus().length >= 2 ? 2 : 0) },
      storage: { type: 'string', default: 'fs' },
      images: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`npm run bench -- [--database ${DEFAULT_DATABASE}|postgres://...] [--duration 10] [--connections 8] [--write-connections 32] [--only guide,suggest,...] [--label name] [--json file] [--md file] [--no-build] [--no-baseline] [--cpu-prof dir] [--statements dir] [--processes N] [--storage fs|s3] [--images N]\n` +
      '--statements DIR (SQLite): the time of each SQL statement the server ran in each measured window, into DIR/<scenario>.txt (bench/lib/statement-times.mjs).\n' +
      `--processes N (default ${cpus().length >= 2 ? 2 : 0} here; 0 or 1: none): afterwards, ${PROCESS_SCENARIOS.join(', ')} again with the server as N processes (WEB_CONCURRENCY=N), as rows of their own.\n` +
      '--storage s3: the server keeps its files in a bucket of s3rver (a devDependency) on loopback, started with a temporary folder (default fs: its data folder).\n' +
      `--images N: the images uploaded for the image scenarios (default ${WARM_IMAGES}, or with image-variant-cold ${WARM_IMAGES} + ${COLD_PER_SECOND} per second of its warm-up and measure).\n` +
      'Scenarios: floor, list, list-offset, guide, guide-304, guide-cold, hierarchy, wiki, suggest, search, assignees, comments, skills-matrix, team-courses, summaries, team-summaries, user-assignments, image-variant, image-variant-cold (only when named in --only), comment, patch, login, mixed. Seed the database first: npm run seed:bench -- --guides N [--users N] [--database URL].');
    return;
  }
  const databaseUrl = values.database!;
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const writeConnections = Number(values['write-connections']);
  // A warm-up before each measure (none in runs of a second or two: smoke runs).
  const warmup = duration >= 3 ? Math.min(2, Math.floor(duration / 3)) : 0;
  const only = values.only?.split(',').map((s) => s.trim());
  const processes = Number(values.processes);
  if (!Number.isInteger(processes) || processes < 0) throw new Error(`--processes: a whole number (0 or 1: none), not ${values.processes}`);
  const statementsDir = values.statements;
  const storage = values.storage;
  if (storage !== 'fs' && storage !== 's3') throw new Error(`--storage: fs or s3, not ${storage}`);
  const wantCold = only?.includes('image-variant-cold') ?? false;
  const wantImages = wantCold || !only || only.includes('image-variant');
  const imageCount = values.images !== undefined ? Number(values.images) : WARM_IMAGES + (wantCold ? COLD_PER_SECOND * (duration + warmup) : 0);
  if (!Number.isInteger(imageCount) || imageCount < WARM_IMAGES + (wantCold ? 1 : 0)) throw new Error(`--images: a whole number from ${WARM_IMAGES + (wantCold ? 1 : 0)}, not ${values.images}`);
  if (statementsDir !== undefined && dialectOf(databaseUrl) !== 'sqlite') throw new Error('--statements times SQLite\'s statements (on PostgreSQL, its log does: log_min_duration_statement)');

  if (!values['no-build']) {
    console.log('building (npm run build)...');
    const b = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('npm run build failed');
  }
  if (dialectOf(databaseUrl) === 'sqlite' && sqlitePath(databaseUrl) !== ':memory:') warmSqliteFile(sqlitePath(databaseUrl));
  const loadStart = +loadavg()[0].toFixed(2);
  const pool = await loadPool(databaseUrl, 20261122);
  const label = values.label ?? `${dialectOf(databaseUrl)}-${pool.counts.guides >= 1000 ? `${Math.round(pool.counts.guides / 1000)}k` : pool.counts.guides}${storage === 's3' ? '-s3' : ''}`;
  const offset = Math.min(10000, Math.floor(pool.counts.publicGuides / 2));
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-'));
  let server: ServerProcess | null = null;
  let baseline: ChildProcess | null = null;
  let s3: BenchS3 | null = null;
  let uploaded: number[] = [];
  const failures: string[] = [];
  try {
    if (storage === 's3') s3 = await startS3();
    await forgetOtherNodeKeys(databaseUrl, { MEDIA_URL_SECRET: BENCH_SERVER_ENV.MEDIA_URL_SECRET, ...BENCH_NODE_KEYS });
    const serverEnv = { ...BENCH_SERVER_ENV, ...BENCH_NODE_KEYS, LOG_LEVEL: 'warn', SEED_DEMO: 'false', LOGIN_RATE_LIMIT: '100000000', JOB_POLL_MS: '1000', ...s3?.env };
    const statementTimes = statementsDir === undefined ? undefined : new StatementTimes(statementsDir);
    server = await startServer({
      databaseUrl, dataDir: dir, built: true, env: { ...serverEnv, ...statementTimes?.env },
      nodeArgs: [...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []), ...(statementTimes?.nodeArgs ?? [])],
    });
    const token = await login(server.url);
    // The leads log in only when one of their scenarios runs (a login hashes the password).
    const leadNames = ['skills-matrix', 'team-courses'];
    const leadTokens = !only || only.some((n) => leadNames.includes(n)) ? await Promise.all(pool.workforce.leads.map((l) => login(server!.url, l.email))) : [];
    const tags: Tags = new Map();
    let images: ImagePool | undefined;
    let imageReport: BenchReport['images'];
    if (wantImages) {
      console.log(`uploading ${imageCount} images (${storage})...`);
      const up = await uploadImages(server.url, token, imageCount, 4);
      uploaded = up.images.map((i) => i.imageid);
      const paths = up.images.map((i) => i.paths[IMAGE_VARIANT]);
      images = { warm: paths.slice(0, WARM_IMAGES), cold: wantCold ? paths.slice(WARM_IMAGES) : [] };
      imageReport = { count: up.images.length, averageKb: Math.round(up.bytes / up.images.length / 1024), uploadSeconds: +up.seconds.toFixed(1) };
    }
    const all = scenarios(pool, token, offset, tags, leadTokens, images);
    const list = all.filter((s) => (!only && !s.optIn) || only?.includes(s.name));
    // What the baseline answers: one real answer per read scenario (for a conditional
    // read, the tag and a 304 without a body).
    const samples: Record<string, Sample> = {};
    for (const s of list) {
      if (!s.sample && !s.sampleFetch) continue;
      if (s.conditional && s.sample) {
        samples[s.name] = await conditionalSample(server.url, s.sample());
        continue;
      }
      if (s.gzip && s.sample) {
        samples[s.name] = { gzip: (await gzipSample(server.url, s.sample)).toString('base64') };
        continue;
      }
      if (s.binary && s.sample) {
        const res = await fetch(`${server.url}${s.sample()}`);
        if (res.status !== 200) throw new Error(`${s.name}: ${res.url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        samples[s.name] = { file: Buffer.from(await res.arrayBuffer()).toString('base64'), type: res.headers.get('content-type') ?? 'application/octet-stream' };
        continue;
      }
      const res = s.sampleFetch ? await s.sampleFetch(server.url) : await fetch(`${server.url}${s.sample!()}`, s.authSample ? { headers: { authorization: `api ${token}` } } : undefined);
      if (res.status !== 200) throw new Error(`${s.name}: ${res.url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      samples[s.name] = await res.text();
    }
    let baseUrl: string | null = null;
    if (!values['no-baseline'] && Object.keys(samples).length) {
      const port = await freePort();
      writeFileSync(join(dir, 'samples.json'), JSON.stringify(samples));
      baseline = await startBaseline(port, join(dir, 'samples.json'));
      baseUrl = `http://127.0.0.1:${port}`;
    }
    console.log(`bench ${label}: ${pool.database.kind} ${pool.database.version}, ${pool.counts.guides} guides, ${duration} s per scenario (+${warmup} s warm-up), ${connections} connections, writes ${writeConnections}` +
      (processes > 1 ? `; then ${PROCESS_SCENARIOS.join(', ')} with ${processes} server processes` : ''));
    const results: ScenarioResult[] = [];
    const serverLogErrors = (srv: ServerProcess) => {
      const lines = srv.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
      if (lines.length) failures.push(`${lines.length} errors in the server's log, the first: ${lines[0].slice(0, 300)}`);
    };
    const run = async (s: Scenario, srv: ServerProcess, n: number) => {
      const c = s.write ? writeConnections : connections;
      // The hot set is read before it is measured (by each process: a process has its own
      // cache), for the mixed load too (40 of its 100 requests read it): measured alone
      // (--only mixed) it was otherwise read from the stored records for its first reads.
      // Three times: what a process reads from the stored records it keeps the third time (ByteLru.admitsFromBelow).
      if (s.name === 'guide' || s.name === 'mixed') await prewarm(srv.url, Array.from({ length: ADMITTED_AT_OFFER * n }, () => pool.guides.map((g) => `${API}/guides/${g.guideid}`)).flat(), connections);
      // The tags are taken just before the measure, from the answers of this server.
      if (s.conditional) await collectTags(srv.url, pool, tags, connections);
      await s.prepare?.(srv.url, connections);
      if (warmup) await drive(srv.url, s.requests(), warmup, c, { ok: s.ok });
      if (n === 1 && statementTimes) await statementTimes.mark(srv.proc.pid!);
      const m = await drive(srv.url, s.requests(), duration, c, { pid: srv.proc.pid, tree: n > 1, ok: s.ok });
      if (n === 1 && statementTimes) await statementTimes.mark(srv.proc.pid!, s.name);
      const result: ScenarioResult = n > 1
        ? { name: `${s.name}-x${n}`, request: `${s.request} ×${n} processes`, kind: s.kind, write: s.write === true, connections: c, processes: n, ...m }
        : { name: s.name, request: s.request, kind: s.kind, write: s.write === true, connections: c, processes: 1, ...m };
      const sample = samples[s.name];
      if (n === 1 && baseUrl && sample !== undefined) {
        const req = [{ method: 'GET', path: `/b/${s.name}/x`, headers: typeof sample === 'object' && 'etag' in sample ? { 'if-none-match': sample.etag } : s.gzip ? ACCEPT_GZIP : undefined }];
        if (warmup) await drive(baseUrl, req, warmup, c, { ok: s.ok });
        result.baseline = await drive(baseUrl, req, duration, c, { pid: baseline!.pid, ok: s.ok });
        result.ratio = +(m.rps / result.baseline.rps).toFixed(3);
      }
      if (m.errors) failures.push(`${result.name}: ${m.errors} errors (${JSON.stringify(m.statusCodes)})`);
      const invalid = s.check?.();
      if (invalid) failures.push(invalid);
      results.push(result);
      console.log(`  ${result.request.padEnd(42)} ${String(m.rps).padStart(6)} req/s  p50 ${fmt(m.p50, 2)}  p95 ${fmt(m.p95, 2)}  p99 ${fmt(m.p99, 2)} ms  errors ${m.errors}  RSS ${fmt(m.peakRssMb, 0)} MB  ${m.bytesPerAnswer} B/answer` +
        (result.baseline ? `  | baseline ${result.baseline.rps} req/s: ${Math.round(result.ratio! * 100)} %` : ''));
    };
    for (const s of list) await run(s, server, 1);
    serverLogErrors(server);
    // The same database served by N processes (WEB_CONCURRENCY=N: a supervisor and N
    // workers on one port), a few scenarios again; their rows are reported, not judged.
    // The scenarios are the same objects, so the edits carry on from the revisions the
    // one-process run left.
    const again = all.filter((s) => PROCESS_SCENARIOS.includes(s.name) && (!only || only.includes(s.name)));
    if (processes > 1 && again.length) {
      await server.stop();
      server = null;
      server = await startServer({ databaseUrl, dataDir: dir, built: true, env: { ...serverEnv, WEB_CONCURRENCY: String(processes) } });
      const srv = server;
      // Ready when every process listens (the supervisor says so), not when the first does.
      for (const deadline = Date.now() + 60_000; !srv.output().includes(`${processes} server processes`);) {
        if (Date.now() > deadline) throw new Error(`the ${processes} server processes did not all listen within 60 s:\n${srv.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const s of again) await run(s, srv, processes);
      serverLogErrors(srv);
    }
    // The RSS target is about one process: the ×N rows' sums are reported, not judged.
    const peaks = results.filter((s) => s.processes === 1).map((s) => s.peakRssMb).filter((x): x is number => x !== null);
    const cpu = cpus();
    const report: BenchReport = {
      label,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      storage,
      ...(imageReport ? { images: imageReport } : {}),
      machine: { cpu: cpu[0]?.model.trim() ?? 'unknown', cores: cpu.length, memoryGb: Math.round(totalmem() / 2 ** 30), os: `${process.platform} ${release()}`, node: process.versions.node, shared: 'shared with other work; the load generator runs on the same machine', loadAverage: { start: loadStart, end: +loadavg()[0].toFixed(2) } },
      database: pool.database,
      data: pool.counts,
      durationSeconds: duration,
      connections,
      writeConnections,
      scenarios: results,
      peakRssMb: peaks.length ? Math.max(...peaks) : null,
      targets: [],
      failures,
    };
    report.targets = judge(report);
    const json = values.json ?? join(REPO_ROOT, 'bench/results', `${label}.json`);
    const md = values.md ?? json.replace(/\.json$/, '.md');
    mkdirSync(dirname(json), { recursive: true });
    writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
    writeFileSync(md, markdown(report));
    console.log('\n' + markdown(report));
    console.log(`written: ${json}, ${md}`);
    if (failures.length) {
      console.log(`FAILED: ${failures.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    baseline?.kill('SIGTERM');
    await server?.stop();
    await s3?.close();
    await removeUploads(databaseUrl, uploaded);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
