// The audit chain under several processes and a crash (docs/audit.md "The chain"), with the
// real server as child processes, on a SQLite file or (TEST_DATABASE_URL) a PostgreSQL
// database of its own:
// - WEB_CONCURRENCY=2: bursts of audited writes (account PATCHes, guide edits, logins and
//   failed logins) spread over both server processes leave one gapless chain that both
//   verifiers (GET /audit/verify and `npm run audit:verify` as a child process) accept, with
//   exactly one entry for each change answered.
// - SIGKILL while audited writes are in flight, then a new process on the same database:
//   every change answered has its entry (matched by the answer's X-Request-Id), every entry
//   names a change that was committed (its resource exists in the state it records), and
//   the chain verifies.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { call, login, REPO_ROOT, startServer, type Answer, type ServerProcess } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { openInspector, waitFor, type Db } from '../reliability/lib/inspector.js';
import { LONG } from '../reliability/lib/settings.js';

const KIND = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';
const { dir, newDatabase } = scratchDatabases('auditproc');
const inspectorOf = (databaseUrl: string) => openInspector(KIND, databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : databaseUrl);
const USER_PASSWORD = 'audited user password';

/** `npm run audit:verify` (src/audit/verify-cli.ts) as a child process, with the server's database and data folder. */
function verifyCli(databaseUrl: string, args: string[] = []): Promise<{ code: number | null; result: any; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, DATA_DIR: dir };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/audit/verify-cli.ts', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      let result: any = null;
      try {
        result = JSON.parse(out.trim().split('\n').at(-1) ?? '');
      } catch {}
      resolve({ code, result, output: out + err });
    });
  });
}

/** Both verifiers agree that the chain holds, with `entries` entries and `head` as its newest. */
async function expectChainHolds(server: ServerProcess, token: string, databaseUrl: string): Promise<{ entries: number; head: { auditid: number; hash: string } }> {
  const api = await call(server.url, 'GET', '/audit/verify', token);
  expect(api.status, api.text).toBe(200);
  expect(api.body, api.text).toMatchObject({ ok: true });
  const cli = await verifyCli(databaseUrl, ['--expect-head', `${api.body.head.auditid}:${api.body.head.hash}`]);
  expect(cli.code, cli.output).toBe(0);
  expect(cli.result).toEqual(api.body);
  return api.body;
}

interface AuditRow { auditid: number; action: string; resource_type: string; resource_id: string; userid: number | null; request_id: string | null; revisionid_after: number | null; changes: string | null }

async function entriesAfter(db: Db, auditid: number): Promise<AuditRow[]> {
  const rows = await db.query<AuditRow>(`select auditid, action, resource_type, resource_id, userid, request_id, revisionid_after, changes from audit_log where auditid > ${auditid} order by auditid`);
  return rows.map((r) => ({ ...r, auditid: Number(r.auditid), revisionid_after: r.revisionid_after === null ? null : Number(r.revisionid_after) }));
}

async function headId(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number | null }>('select max(auditid) as n from audit_log');
  return Number(row?.n ?? 0);
}

/** An audited write answered, and the one entry its answer promises. */
interface Acknowledged { requestId: string; action: string; resource_type: string; resource_id: string; revisionid_after?: number }

/** The entry a write's answer promises; null when the answer promises none (no answer: the process died; or an unexpected status). */
type Expect = (a: Answer) => Omit<Acknowledged, 'requestId'> | null;

function acknowledge(acked: Acknowledged[], answer: Answer, expected: Expect): boolean {
  if (answer.status === 0) return false;
  if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${answer.text}`);
  const entry = expected(answer);
  if (!entry) throw new Error(`unexpected answer ${answer.status}: ${answer.text}`);
  expect(answer.requestId).toBeTruthy();
  acked.push({ requestId: answer.requestId!, ...entry });
  return true;
}

/** Each acknowledged write has exactly one entry, with its action, resource and revision. */
function expectEveryAcknowledgedEntry(acked: Acknowledged[], entries: AuditRow[]) {
  const byRequest = new Map<string, AuditRow[]>();
  for (const e of entries) if (e.request_id) byRequest.set(e.request_id, [...(byRequest.get(e.request_id) ?? []), e]);
  const wrong: string[] = [];
  for (const a of acked) {
    const found = byRequest.get(a.requestId) ?? [];
    const ok = found.length === 1 && found[0].action === a.action && found[0].resource_type === a.resource_type && found[0].resource_id === a.resource_id &&
      (a.revisionid_after === undefined || found[0].revisionid_after === a.revisionid_after);
    if (!ok) wrong.push(`${a.requestId} (${a.action} ${a.resource_type} ${a.resource_id}): ${JSON.stringify(found)}`);
  }
  expect(wrong, `of ${acked.length} acknowledged writes`).toEqual([]);
}

// The writes. Each names the entry its answer promises.

const failedLogin = (url: string, tag: string) => call(url, 'POST', '/user/token', undefined, { email: `nobody-${tag}@example.com`, password: 'wrong' });
const failedLoginEntry: Expect = (a) => (a.status === 401 ? { action: 'user.login_failed', resource_type: 'user', resource_id: '' } : null);

const userLogin = (url: string, email: string) => call(url, 'POST', '/user/token', undefined, { email, password: USER_PASSWORD });
const userLoginEntry = (userid: number): Expect => (a) =>
  a.status === 201 ? { action: 'user.login', resource_type: 'user', resource_id: String(userid) }
    : a.status === 403 ? { action: 'user.login_failed', resource_type: 'user', resource_id: String(userid) } : null;

const setEnabled = (url: string, token: string, userid: number, enabled: boolean) => call(url, 'PATCH', `/users/${userid}`, token, { enabled });
const setEnabledEntry = (userid: number, enabled: boolean): Expect => (a) =>
  a.status === 200 ? { action: enabled ? 'user.enabled' : 'user.disabled', resource_type: 'user', resource_id: String(userid) } : null;

const editGuide = (url: string, token: string, guideid: number, revisionid: number, title: string) => call(url, 'PATCH', `/guides/${guideid}?revisionid=${revisionid}`, token, { title });
const editGuideEntry = (guideid: number): Expect => (a) =>
  a.status === 200 ? { action: 'guide.edited', resource_type: 'guide', resource_id: String(guideid), revisionid_after: a.body.revisionid } : null;

interface World { users: Array<{ userid: number; email: string }>; guides: Array<{ guideid: number; revisionid: number }> }

/** `n` accounts (enabled, with USER_PASSWORD) and up to `n` guides with their current revisions. */
async function world(url: string, token: string, n: number, tag: string): Promise<World> {
  const users: World['users'] = [];
  for (let i = 0; i < n; i++) {
    const email = `audited-${tag}-${i}@example.com`;
    const made = await call(url, 'POST', '/users', token, { email, password: USER_PASSWORD, username: `Audited ${tag} ${i}` });
    expect(made.status, made.text).toBe(201);
    users.push({ userid: made.body.userid, email });
  }
  const listed = await call(url, 'GET', '/guides?limit=50', token);
  expect(listed.status, listed.text).toBe(200);
  const guides: World['guides'] = [];
  for (const g of (listed.body as Array<{ guideid: number }>).slice(0, n)) {
    const full = await call(url, 'GET', `/guides/${g.guideid}`, token);
    expect(full.status, full.text).toBe(200);
    guides.push({ guideid: g.guideid, revisionid: full.body.revisionid });
  }
  expect(guides.length).toBeGreaterThan(0);
  return { users, guides };
}

/** The first 24 characters of a request id: drawn by each process when it starts (http/request-ids.ts). */
const processOf = (requestId: string) => requestId.slice(0, 24);

describe(`the audit chain with WEB_CONCURRENCY=2 (${KIND})`, () => {
  it('bursts of audited writes spread over both processes leave one gapless chain that both verifiers accept, one entry per change answered', { timeout: 420_000 }, async () => {
    const databaseUrl = await newDatabase('cluster');
    const server = await startServer({ databaseUrl, dataDir: dir, env: { WEB_CONCURRENCY: '2' }, readyTimeoutMs: 120_000 });
    const db = inspectorOf(databaseUrl);
    try {
      // Ready is one process listening; the supervisor says when both are.
      await waitFor('both server processes', async () => /2 server processes/.test(server.output()), 120_000);
      const token = await login(server.url);
      const { users, guides } = await world(server.url, token, 25, 'cluster');
      const before = await headId(db);
      const acked: Acknowledged[] = [];
      // Two bursts, each of 50 and more writes at once: 25 failed logins of no account, 13
      // logins, 12 accounts disabled (then enabled again), and each guide edited.
      for (const round of [0, 1]) {
        const writes: Array<Promise<void>> = [];
        for (let i = 0; i < users.length; i++) {
          const tag = `${round}-${i}`;
          writes.push(failedLogin(server.url, tag).then((a) => { acknowledge(acked, a, failedLoginEntry); }));
          // Logins by the first half (enabled throughout), PATCHes of the second half.
          const u = users[i];
          if (i < users.length / 2) writes.push(userLogin(server.url, u.email).then((a) => { acknowledge(acked, a, userLoginEntry(u.userid)); }));
          else writes.push(setEnabled(server.url, token, u.userid, round === 1).then((a) => { acknowledge(acked, a, setEnabledEntry(u.userid, round === 1)); }));
        }
        for (const g of guides) {
          writes.push(editGuide(server.url, token, g.guideid, g.revisionid, `Audited through two processes ${round}`).then((a) => {
            acknowledge(acked, a, editGuideEntry(g.guideid));
            g.revisionid = a.body.revisionid;
          }));
        }
        expect(writes.length).toBeGreaterThanOrEqual(50);
        await Promise.all(writes);
      }
      expect(acked.length).toBeGreaterThanOrEqual(100);
      // Both processes took writes (each process draws its request ids' prefix when it starts).
      expect(new Set(acked.map((a) => processOf(a.requestId))).size).toBe(2);

      const entries = await entriesAfter(db, before);
      expect(entries.length, 'entries written by the bursts').toBe(acked.length);
      expectEveryAcknowledgedEntry(acked, entries);
      const ids = (await db.query<{ auditid: number }>('select auditid from audit_log order by auditid')).map((r) => Number(r.auditid));
      expect(ids).toEqual(ids.map((_, i) => i + 1));
      const verified = await expectChainHolds(server, token, databaseUrl);
      expect(verified.entries).toBe(ids.length);
      expect(verified.head.auditid).toBe(ids.at(-1));
    } finally {
      await db.close();
      await server.stop();
    }
  });
});

describe(`the audit chain after SIGKILL during writes (${KIND})`, () => {
  const WRITERS = LONG ? 12 : 6;
  const ANSWERED_BEFORE_KILL = LONG ? 300 : 60;

  it('every change answered has its entry, every entry names a committed change, and the chain verifies', { timeout: 420_000 }, async () => {
    const databaseUrl = await newDatabase('crash');
    let server = await startServer({ databaseUrl, dataDir: dir, readyTimeoutMs: 120_000 });
    const db = inspectorOf(databaseUrl);
    try {
      let token = await login(server.url);
      const { users, guides } = await world(server.url, token, WRITERS, 'crash');
      const before = await headId(db);
      const acked: Acknowledged[] = [];
      let answered = 0;
      let stop = false;
      // Each writer changes its own account and its own guide (so every write it sends is a
      // change), between failed logins of no account; it stops when the process is gone.
      const writer = async (w: number) => {
        const user = users[w % users.length];
        const guide = guides[w % guides.length];
        const ownsGuide = w < guides.length;
        let enabled = true;
        for (let i = 0; !stop; i++) {
          let a: Answer;
          if (i % 3 === 0) {
            a = await setEnabled(server.url, token, user.userid, !enabled);
            if (!acknowledge(acked, a, setEnabledEntry(user.userid, !enabled))) return;
            enabled = !enabled;
          } else if (i % 3 === 1 && ownsGuide) {
            a = await editGuide(server.url, token, guide.guideid, guide.revisionid, `Crash ${w}.${i}`);
            if (!acknowledge(acked, a, editGuideEntry(guide.guideid))) return;
            guide.revisionid = a.body.revisionid;
          } else {
            a = await failedLogin(server.url, `crash-${w}-${i}`);
            if (!acknowledge(acked, a, failedLoginEntry)) return;
          }
          answered++;
        }
      };
      const running = Array.from({ length: WRITERS }, (_, w) => writer(w));
      // Killed while writes are in flight: as soon as enough were answered.
      await waitFor('writes to be answered', async () => answered >= ANSWERED_BEFORE_KILL, 120_000);
      await server.kill();
      stop = true;
      await Promise.all(running);
      expect(acked.length).toBeGreaterThanOrEqual(ANSWERED_BEFORE_KILL);

      server = await startServer({ databaseUrl, dataDir: dir, readyTimeoutMs: 120_000 });
      token = await login(server.url);
      const entries = (await entriesAfter(db, before)).filter((e) => e.action !== 'user.login');

      // Every change answered has its entry.
      expectEveryAcknowledgedEntry(acked, entries);
      // Every entry names a change that was committed (an answer lost with the process may have
      // been committed; one not committed must have no entry): the guide's revision it names
      // exists with the title it records, and each account's last entry is its state now.
      const wrong: string[] = [];
      const lastOfUser = new Map<string, AuditRow>();
      for (const e of entries) {
        if (e.action === 'guide.edited') {
          const [rev] = await db.query<{ guideid: number; snapshot: string }>(`select guideid, snapshot from guide_revisions where revisionid = ${Number(e.revisionid_after)}`);
          const recorded = JSON.parse(e.changes ?? '{}').title?.new;
          if (!rev || String(rev.guideid) !== e.resource_id || JSON.parse(rev.snapshot).fields.title !== recorded) wrong.push(`${e.auditid} ${e.action}: revision ${e.revisionid_after} ${rev ? JSON.parse(rev.snapshot).fields.title : 'missing'}, recorded ${recorded}`);
        } else if (e.action === 'user.enabled' || e.action === 'user.disabled') {
          const previous = lastOfUser.get(e.resource_id);
          if (previous?.action === e.action) wrong.push(`${e.auditid} ${e.action} follows ${previous.auditid} ${previous.action}: one of them changed nothing`);
          lastOfUser.set(e.resource_id, e);
        } else if (e.action !== 'user.login_failed') {
          wrong.push(`${e.auditid}: ${e.action} written by no writer of this test`);
        }
      }
      for (const [userid, e] of lastOfUser) {
        const [row] = await db.query<{ enabled: number | boolean }>(`select enabled from users where userid = ${Number(userid)}`);
        if (Boolean(Number(row?.enabled)) !== (e.action === 'user.enabled')) wrong.push(`user ${userid}: enabled ${row?.enabled}, last entry ${e.auditid} ${e.action}`);
      }
      expect(wrong).toEqual([]);
      // Writes lost with the process that did commit are the only entries without an answer.
      const unanswered = entries.length - acked.length;
      expect(unanswered).toBeGreaterThanOrEqual(0);
      expect(unanswered).toBeLessThanOrEqual(WRITERS);

      // The chain verifies, and the new process appends to it.
      const head = await expectChainHolds(server, token, databaseUrl);
      const after = await failedLogin(server.url, 'after-the-crash');
      expect(after.status).toBe(401);
      const verified = await expectChainHolds(server, token, databaseUrl);
      expect(verified.entries).toBeGreaterThan(head.entries);
      console.log(`[audit crash] ${KIND}: ${acked.length} audited writes answered before SIGKILL, ${unanswered} committed without an answer, chain of ${verified.entries} entries verified`);
    } finally {
      await db.close();
      await server.kill();
    }
  });
});
