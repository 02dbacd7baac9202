// Crash safety: the real server as a child process, on a SQLite file (or, when
// TEST_DATABASE_URL is set, a fresh PostgreSQL database). Writers create records through
// every create route the OpenAPI document lists (and edit a profile); the process is
// killed with SIGKILL while requests are in flight; a new process starts on the same
// database. Every write that was answered 2xx must be there, the database must pass its
// integrity checks, and a job that was running when the process died (a password-reset
// mail whose SMTP server hung) must be claimed again and delivered once its lease expires.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, login, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { fakeSmtp } from './lib/smtp.js';
import { operations, type Operation } from './lib/openapi.js';
import { example } from './lib/gen.js';
import { LONG } from './lib/settings.js';
import { openInspector, waitFor, type Db } from './lib/inspector.js';
import { adminQuery, dropDatabase, withDatabase } from '../helpers/pg.js';

const PG = process.env.TEST_DATABASE_URL;
const CYCLES = LONG ? 4 : 1;
const WRITERS = LONG ? 16 : 8;
const WRITES_BEFORE_KILL = LONG ? 400 : 80;

/** Integrity: SQLite's own checks; on PostgreSQL every constraint valid and no orphaned foreign key. */
async function integrityProblems(kind: 'sqlite' | 'postgres', db: Db): Promise<string[]> {
  if (kind === 'sqlite') {
    const check = await db.query<{ integrity_check: string }>('PRAGMA integrity_check');
    const fks = await db.query('PRAGMA foreign_key_check');
    return [...check.filter((r) => r.integrity_check !== 'ok').map((r) => r.integrity_check), ...fks.map((r) => `foreign key: ${JSON.stringify(r)}`)];
  }
  const out: string[] = [];
  for (const r of await db.query<{ conname: string }>("select conname from pg_constraint where connamespace = 'public'::regnamespace and not convalidated")) out.push(`constraint not validated: ${r.conname}`);
  const fks = await db.query<{ t: string; c: string; rt: string; rc: string }>(`
    select cl.relname as t, a.attname as c, rcl.relname as rt, ra.attname as rc
    from pg_constraint co
    join pg_class cl on cl.oid = co.conrelid join pg_class rcl on rcl.oid = co.confrelid
    join pg_attribute a on a.attrelid = co.conrelid and a.attnum = co.conkey[1]
    join pg_attribute ra on ra.attrelid = co.confrelid and ra.attnum = co.confkey[1]
    where co.contype = 'f' and co.connamespace = 'public'::regnamespace and array_length(co.conkey, 1) = 1`);
  for (const fk of fks) {
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from "${fk.t}" x where x."${fk.c}" is not null and not exists (select 1 from "${fk.rt}" y where y."${fk.rc}" = x."${fk.c}")`);
    if (n > 0) out.push(`${n} rows of ${fk.t}.${fk.c} point to no ${fk.rt}`);
  }
  return out;
}

interface Acknowledged { check: string; name?: string }

/** Create routes a check can read back: POST {path} answering {id}, with GET {path}/{id}. */
function creates(ops: Operation[]) {
  return ops.flatMap((op) => {
    if (op.method !== 'POST' || !op.responses['201'] || op.pathParams.length || op.path.startsWith('/user/token')) return [];
    const props = Object.keys(op.rawResponses['201']?.properties ?? {});
    const get = ops.find((g) => g.method === 'GET' && g.pathParams.length === 1 && g.path === `${op.path}/{${g.pathParams[0].name}}` && props.includes(g.pathParams[0].name));
    return get ? [{ op, idKey: get.pathParams[0].name }] : [];
  });
}

async function drive(server: ServerProcess, token: string, ops: Operation[], acked: Acknowledged[], stopAfter: number, beforeKill: () => Promise<void>): Promise<number> {
  const routes = creates(ops);
  const me = (await call(server.url, 'GET', '/user', token)).body.userid as number;
  let n = 0;
  let stop = false;
  let answered = 0;
  const writer = async (w: number) => {
    while (!stop) {
      const i = n++;
      const choice = i % (routes.length + 1);
      if (choice === routes.length) {
        const about = `crash edit ${i}`;
        const r = await call(server.url, 'PATCH', `/users/${me}`, token, { about });
        if (r.status === 200) answered++;
        else if (r.status !== 0) throw new Error(`PATCH answered ${r.status} ${r.text}`);
        continue;
      }
      const { op, idKey } = routes[choice];
      const body = example((op.body?.content['application/json']) ?? {}, '', {}, i * 100 + w);
      const r = await call(server.url, 'POST', op.path, token, body);
      if (r.status === 0) return; // the process is gone
      if (r.status >= 500) throw new Error(`${op.id} answered ${r.status} ${r.text}`);
      if (r.status === 201) {
        answered++;
        acked.push({ check: `${op.path}/${encodeURIComponent(String(r.body[idKey]))}`, name: typeof r.body.name === 'string' ? r.body.name : undefined });
      }
      if (answered >= stopAfter) stop = true;
    }
  };
  const running = Array.from({ length: WRITERS }, (_, w) => writer(w));
  // Kill while writes are in flight: as soon as enough were answered.
  while (answered < stopAfter && n < stopAfter * 20) await new Promise((r) => setTimeout(r, 10));
  await beforeKill();
  await server.kill();
  stop = true;
  await Promise.all(running);
  return answered;
}

/** A one-second MP4 made with ffmpeg, or null without it. */
function makeVideo(dir: string): Buffer | null {
  const out = join(dir, 'crash.mp4');
  const r = spawnSync(process.env.FFMPEG_PATH || 'ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x64:rate=10', '-pix_fmt', 'yuv420p', '-y', out], { timeout: 20_000 });
  return r.status === 0 && existsSync(out) ? readFileSync(out) : null;
}

describe(`crash safety on ${PG ? 'PostgreSQL' : 'SQLite'}`, () => {
  it(`SIGKILL mid-load ${CYCLES}x: every answered write survives, the database is intact, a running job resumes`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-crash-'));
    let pgName: string | null = null;
    let databaseUrl: string;
    let inspectAt: string;
    if (PG) {
      pgName = `cp_crash_${process.pid}_${randomBytes(3).toString('hex')}`;
      await adminQuery(`CREATE DATABASE ${pgName}`);
      databaseUrl = withDatabase(PG, pgName);
      inspectAt = databaseUrl;
    } else {
      inspectAt = join(dir, 'crash.sqlite');
      databaseUrl = `sqlite:${inspectAt}`;
    }
    const kind = PG ? 'postgres' : 'sqlite';
    const smtp = await fakeSmtp('stall');
    const env = { MAIL_TRANSPORT: `smtp://127.0.0.1:${smtp.port}`, JOB_LEASE_SECONDS: '1', JOB_POLL_MS: '100' };
    let server: ServerProcess | null = null;
    const acked: Acknowledged[] = [];
    try {
      server = await startServer({ databaseUrl, dataDir: dir, env });
      const ops = operations(await (await fetch(`${server.url}/api/2.0/openapi.json`)).json());
      expect(creates(ops).length, 'create routes to drive').toBeGreaterThan(0);
      let token = await login(server.url);

      // A mail job that will be in the middle of delivery when the process dies.
      expect((await call(server.url, 'POST', '/users/reset_password', undefined, { email: 'user@example.com' })).status).toBe(200);
      let inspector = openInspector(kind, inspectAt);
      const job = await waitFor('the mail job to be running', async () => (await inspector.query<{ jobid: number; attempts: number }>("select jobid, attempts from jobs where type = 'mail.send' and status = 'running'"))[0]);
      await inspector.close();

      // A video upload, where the API takes one, so that an encoding job is likely running at the kill.
      const upload = ops.find((o) => o.method === 'POST' && o.body?.content['application/octet-stream'] && o.queryParams.some((q) => q.name === 'file'));
      const video = upload ? makeVideo(dir) : null;
      if (upload && video) {
        const r = await fetch(`${server.url}/api/2.0${upload.path}?file=crash.mp4`, { method: 'POST', headers: { authorization: `api ${token}`, 'content-type': 'application/octet-stream' }, body: video });
        expect(r.status, await r.text()).toBeLessThan(300);
      }

      // Every job running when a process dies must be taken up again by the next one.
      const interrupted = new Map<number, number>();
      const noteRunning = async () => {
        const db = openInspector(kind, inspectAt);
        try {
          for (const j of await db.query<{ jobid: number; attempts: number }>("select jobid, attempts from jobs where status = 'running'")) if (!interrupted.has(j.jobid)) interrupted.set(j.jobid, j.attempts);
        } finally {
          await db.close();
        }
      };

      let total = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        total += await drive(server, token, ops, acked, WRITES_BEFORE_KILL, noteRunning);
        if (cycle === CYCLES - 1) smtp.mode = 'work';
        server = await startServer({ databaseUrl, dataDir: dir, env });
        token = await login(server.url);
      }

      // Every answered write is there, read through the new process.
      const missing: string[] = [];
      for (const a of acked) {
        const r = await call(server.url, 'GET', a.check, token);
        if (r.status !== 200 || (a.name !== undefined && Array.isArray(r.body) === false && r.body?.name !== undefined && r.body.name !== a.name)) missing.push(`${a.check}: ${r.status}`);
      }
      expect(missing, `of ${acked.length} acknowledged creations`).toEqual([]);
      expect(total).toBeGreaterThanOrEqual(WRITES_BEFORE_KILL * CYCLES);

      inspector = openInspector(kind, inspectAt);
      try {
        expect(await integrityProblems(kind, inspector)).toEqual([]);
        // The job left running is claimed again once its lease is over, and delivered.
        const done = await waitFor('the interrupted mail job to finish', async () => {
          const [row] = await inspector.query<{ status: string; attempts: number }>(`select status, attempts from jobs where jobid = ${job.jobid}`);
          return row?.status === 'done' ? row : null;
        });
        expect(done.attempts).toBeGreaterThan(job.attempts);
        expect(smtp.messages.some((m) => /user@example\.com/.test(m) && /Reset your password/.test(m))).toBe(true);
        // Every other job that was running at a kill was claimed again (and ran, or will retry).
        await waitFor('the interrupted jobs to be taken up again', async () => {
          for (const [jobid, attempts] of interrupted) {
            const [row] = await inspector.query<{ status: string; attempts: number }>(`select status, attempts from jobs where jobid = ${jobid}`);
            if (row && row.status === 'running' && row.attempts <= attempts) return false;
          }
          return true;
        }, 60_000);
        // No job is left running with an expired lease.
        await waitFor('no stale running jobs', async () => (await inspector.query<{ n: number }>(`select count(*) as n from jobs where status = 'running' and locked_until < ${Math.floor(Date.now() / 1000) - 1}`))[0].n == 0);
      } finally {
        await inspector.close();
      }
      // And the restarted server takes writes again.
      expect((await call(server.url, 'POST', '/teams', token, { name: 'After the crash' })).status).toBe(201);
      console.log(`[crash] ${kind}: ${CYCLES} SIGKILL(s), ${total} writes answered before them, ${acked.length} creations verified, ${interrupted.size} interrupted job(s) taken up again (the mail job ${job.jobid} delivered)${video ? ', with a video upload in flight' : ''}`);
    } finally {
      await server?.kill();
      await smtp.close();
      if (pgName) await dropDatabase(pgName);
      rmSync(dir, { recursive: true, force: true });
    }
  }, LONG ? 600_000 : 120_000);
});
