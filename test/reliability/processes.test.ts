// Several server processes on one database: each keeps caches in memory (guide records,
// list pages, the category hierarchy), checked against stamps the database keeps, so a
// write through one process is never read stale through another. And WEB_CONCURRENCY=N
// runs N processes on one port behind one supervisor that migrates and seeds once and
// shuts them down gracefully. Both databases (a database of its own on PostgreSQL).
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startServer, SERVER_MALLOC_ENV, SERVER_NODE_FLAGS, type ServerProcess } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';
import { childrenOf } from '../helpers/processes.js';

const { dir, newDatabase } = scratchDatabases('processes');

describe('two server processes on one database', () => {
  const servers: ServerProcess[] = [];
  let tokens: string[] = [];
  beforeAll(async () => {
    const databaseUrl = await newDatabase('pair');
    servers.push(await startServer({ databaseUrl, dataDir: dir }));
    servers.push(await startServer({ databaseUrl, dataDir: dir, env: { SEED_DEMO: 'false' } }));
    tokens = await Promise.all(servers.map((s) => login(s.url)));
  }, 120_000);
  afterAll(() => Promise.all(servers.map((s) => s.kill())));

  /**
   * A listed guide under no approval process: lists show readers' revisions, so an edit of a
   * guide under one is listed only once approved (areas/shared/guide-reader.ts).
   */
  async function guideWithoutApproval(url: string, token: string): Promise<number> {
    for (const g of (await call(url, 'GET', '/guides?limit=50', token)).body as Array<{ guideid: number }>) {
      const processes = await call(url, 'GET', `/guides/${g.guideid}/approvalProcesses`, token);
      if (Array.isArray(processes.body) && processes.body.length === 0) return g.guideid;
    }
    throw new Error('the demo has no guide outside an approval process');
  }

  it('a guide edited through one is read new through the other, every time (its record, its list page, the hierarchy)', async () => {
    const [a, b] = servers;
    const id = await guideWithoutApproval(a.url, tokens[0]);
    for (let i = 0; i < 6; i++) {
      const [writer, reader] = i % 2 ? [b, a] : [a, b];
      const token = tokens[i % 2];
      // The reader has the current record and list page cached before the write.
      const before = await call(reader.url, 'GET', `/guides/${id}`, token);
      await call(reader.url, 'GET', '/guides?limit=200', token);
      const title = `Edited through process ${i % 2}, round ${i}`;
      const edit = await call(writer.url, 'PATCH', `/guides/${id}?revisionid=${before.body.revisionid}`, token, { title });
      expect(edit.status, edit.text).toBe(200);
      expect((await call(reader.url, 'GET', `/guides/${id}`, token)).body.title).toBe(title);
      const list = (await call(reader.url, 'GET', '/guides?limit=200', token)).body as Array<{ guideid: number; title: string }>;
      expect(list.find((g) => g.guideid === id)?.title).toBe(title);
    }
    const hierarchy = async (s: ServerProcess) => (await call(s.url, 'GET', '/wikis/CATEGORY?display=hierarchy')).body.hierarchy as Record<string, unknown>;
    expect(Object.keys(await hierarchy(b)).length).toBeGreaterThan(0);
    const made = await call(a.url, 'POST', '/wikis', tokens[0], { namespace: 'CATEGORY', title: `Made through process 0 ${Date.now()}`, contents: 'A new root category.' });
    expect(made.status, made.text).toBe(201);
    expect(Object.keys(await hierarchy(b))).toContain(made.body.title);
  });

  it('a list page kept by one is kept on through an edit of another guide through the other, and shows an edit of a guide it lists at once (the page\'s check: byte-cache.ts, renewedIfUnchanged)', async () => {
    const [a, b] = servers;
    const list = (await call(a.url, 'GET', '/guides?limit=20')).body as Array<{ guideid: number }>;
    const shown = await guideWithoutApproval(a.url, tokens[0]);
    const other = list.map((g) => g.guideid).filter((g) => g !== shown).at(-1)!;
    const path = `/guides?guideids=${shown}`;
    for (let i = 0; i < 4; i++) {
      const [writer, reader] = i % 2 ? [b, a] : [a, b];
      const token = tokens[i % 2];
      const before = await call(reader.url, 'GET', path);
      expect(before.status).toBe(200);
      // Another guide edited: the 'guides' stamp moves, the page's rows do not.
      const elsewhere = (await call(writer.url, 'GET', `/guides/${other}`, token)).body as { revisionid: number };
      const edit = await call(writer.url, 'PATCH', `/guides/${other}?revisionid=${elsewhere.revisionid}`, token, { summary: `Elsewhere, round ${i}` });
      expect(edit.status, edit.text).toBe(200);
      expect((await call(reader.url, 'GET', path)).body).toEqual(before.body);
      // The guide the page shows: the next read through the other process shows it.
      const head = (await call(writer.url, 'GET', `/guides/${shown}`, token)).body as { revisionid: number };
      const title = `Listed, edited through process ${i % 2}, round ${i}`;
      const own = await call(writer.url, 'PATCH', `/guides/${shown}?revisionid=${head.revisionid}`, token, { title });
      expect(own.status, own.text).toBe(200);
      expect(((await call(reader.url, 'GET', path)).body as Array<{ title: string }>)[0].title).toBe(title);
    }
  });

  it('a comment on a step through one is never read stale through the other, whichever process built and stored the record (guides.stored.ts)', async () => {
    const [a, b] = servers;
    const list = (await call(a.url, 'GET', '/guides?limit=20')).body as Array<{ guideid: number }>;
    // Not the guide the test above edits: a record neither process has read yet.
    const id = list[list.length - 1].guideid;
    let guide = (await call(a.url, 'GET', `/guides/${id}`)).body;
    const stepid = guide.steps[0].stepid as number;
    const comments = () => guide.steps[0].comments.map((c: { text_raw: string }) => c.text_raw) as string[];
    const posted = [...comments()];
    for (let i = 0; i < 6; i++) {
      const [writer, reader] = i % 2 ? [b, a] : [a, b];
      // Both have read (and one has stored) the record before the write.
      await call(writer.url, 'GET', `/guides/${id}`);
      await call(reader.url, 'GET', `/guides/${id}`);
      const text = `Comment ${i} through process ${i % 2}`;
      const res = await call(writer.url, 'POST', `/comments/step/${stepid}`, tokens[i % 2], { text });
      expect(res.status, res.text).toBe(201);
      posted.push(text);
      // The next read, in the other process (which may find the record the writer's process stored), then in the writer's.
      guide = (await call(reader.url, 'GET', `/guides/${id}`)).body;
      expect(comments()).toEqual(posted);
      guide = (await call(writer.url, 'GET', `/guides/${id}`)).body;
      expect(comments()).toEqual(posted);
    }
  });

  it('edits of a guide\'s fields through one, between step edits through the other, keep revisions of the current steps (the parts a process keeps of its last revision: keptParts)', async () => {
    const [a, b] = servers;
    const list = (await call(a.url, 'GET', '/guides?limit=20')).body as Array<{ guideid: number }>;
    const id = list[Math.floor(list.length / 2)].guideid;
    let guide = (await call(a.url, 'GET', `/guides/${id}`, tokens[0])).body;
    const step = guide.steps[0] as { stepid: number; revisionid: number };
    let stepRevision = step.revisionid;
    for (let i = 0; i < 4; i++) {
      // Each process in turn edits after the other edited a step: what it kept of its own last edit is no longer current.
      const [editor, stepper] = i < 2 ? [a, b] : [b, a];
      const text = `Step text ${i}, through the other process`;
      // Twice through the editor: the second takes what the first committed, if nothing changed since.
      const made: number[] = [];
      for (const round of [1, 2]) {
        const edit = await call(editor.url, 'PATCH', `/guides/${id}?revisionid=${guide.revisionid}`, tokens[0], { summary: `Edit ${i}.${round}` });
        expect(edit.status, edit.text).toBe(200);
        guide = edit.body;
        made.push(guide.revisionid);
      }
      const stepped = await call(stepper.url, 'PATCH', `/guides/${id}/steps/${step.stepid}?revisionid=${stepRevision}`, tokens[0], { lines: [{ text }] });
      expect(stepped.status, stepped.text).toBe(200);
      // The revisions the editor made, read back as kept (neither is current now): their steps were the current ones.
      for (const revisionid of made) {
        const kept = (await call(stepper.url, 'GET', `/guides/${id}?revisionid=${revisionid}`, tokens[0])).body;
        expect(kept.revisionid).toBe(revisionid);
        expect(kept.steps[0].revisionid).toBe(stepRevision);
        if (i > 0) expect(kept.steps[0].lines[0].text_raw).toBe(`Step text ${i - 1}, through the other process`);
      }
      stepRevision = stepped.body.revisionid;
      guide = (await call(editor.url, 'GET', `/guides/${id}`, tokens[0])).body;
    }
  });

  it('a wiki edited through one is read new through the other, every time, whichever process built and stored its record (wikis.cache.ts)', async () => {
    const [a, b] = servers;
    const made = await call(a.url, 'POST', '/wikis', tokens[0], { namespace: 'ITEM', title: `Read by two processes ${Date.now()}`, contents: 'Version 0.' });
    expect(made.status, made.text).toBe(201);
    const path = `/wikis/ITEM/${encodeURIComponent(made.body.title)}`;
    for (let i = 1; i <= 6; i++) {
      const [writer, reader] = i % 2 ? [b, a] : [a, b];
      const token = tokens[i % 2];
      // Both have read (and one has stored) the record before the write.
      const before = await call(reader.url, 'GET', path, token);
      await call(writer.url, 'GET', path, token);
      const edit = await call(writer.url, 'PATCH', `${path}?revisionid=${before.body.revisionid}`, token, { contents: `Version ${i}.` });
      expect(edit.status, edit.text).toBe(200);
      expect((await call(reader.url, 'GET', path, token)).body.contents_raw).toBe(`Version ${i}.`);
      expect((await call(writer.url, 'GET', path)).body.contents_raw).toBe(`Version ${i}.`);
    }
  });
});

/** A GET on a connection of its own (the supervisor's round robin gives each new connection to the next process). */
function freshGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/2.0${path}`, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}


describe('WEB_CONCURRENCY', () => {
  it('runs that many server processes on one port, migrated and seeded once, and stops them all gracefully', async () => {
    const server = await startServer({ databaseUrl: await newDatabase('cluster'), dataDir: dir, env: { WEB_CONCURRENCY: '2' } });
    try {
      // Ready is one process listening; the supervisor says when all are.
      for (let i = 0; i < 600 && !/2 server processes/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(server.output()).toMatch(/2 server processes/);
      expect(server.output().match(/Demo site ready/g)).toHaveLength(1);
      const answers = await Promise.all(Array.from({ length: 20 }, () => freshGet(server.url, '/guides?limit=5')));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((a) => a.body)).size).toBe(1);
      // node:cluster starts them with the supervisor's node flags and environment (what bounds their memory).
      const workers = childrenOf(server.proc.pid!);
      expect(workers).toHaveLength(2);
      for (const pid of workers) {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        for (const flag of SERVER_NODE_FLAGS) expect(args).toContain(flag);
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        for (const [k, v] of Object.entries(SERVER_MALLOC_ENV)) expect(environ).toContain(`${k}=${v}`);
      }
    } finally {
      await server.stop();
    }
    expect(await server.exited).toBe(0);
  }, 120_000);
});
