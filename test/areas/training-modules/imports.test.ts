// External training modules over HTTP: imports (create, upload, URL, progress, cancel,
// preview), versions (current, draft, imports list), the manage permission, hostile
// packages, the player page, package files and commits. Every answer is checked against
// its schema in the OpenAPI document.
import { storedKeys } from '../../helpers/factories/media.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeUser, type TestUser } from '../../helpers/factories.js';
import { importPackage } from '../../helpers/factories/modules.js';
import { openApiDocument, operations, type Operation } from '../../reliability/lib/openapi.js';
import { checkResponse } from '../../reliability/lib/validate.js';
import { scormManifest, scormPackage, scoPage, writeZip } from '../../../src/areas/training-modules/modules.packages.js';
import { IMPORT_JOB, NotStartable, startImport } from '../../../src/areas/training-modules/modules.service.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let admin: TestUser;
let manager: TestUser;
let user: TestUser;
let ops: Map<string, Operation>;

const t = appForFile({ config: { outgoingAllow: ['127.0.0.1'] } }, async () => {
  [admin, manager, user] = await Promise.all([makeAdmin(t), makeUser(t), makeUser(t)]);
  const granted = await t.patch(`/users/${manager.userid}`, { token: admin.token, body: { permissions: ['manage-external-training-module'] } });
  expect(granted.statusCode, granted.body).toBe(200);
  ops = new Map(operations(openApiDocument(t.app)).map((op) => [op.id, op]));
});

function checked(res: LightMyRequestResponse, op: string, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const operation = ops.get(op);
  expect(operation, `${op} is in the OpenAPI document`).toBeDefined();
  expect(checkResponse(operation!, res.statusCode, res.headers, res.body)).toEqual([]);
  return res.body ? res.json() : null;
}

const upload = (importid: number, zip: Buffer, who: TestUser = manager) =>
  t.post(`/external_training_modules/imports/${importid}/start/byUpload`, { token: who.token, headers: { 'content-type': 'application/octet-stream' }, payload: zip });
const create = (body: Record<string, unknown> = {}, who: TestUser = manager) => t.post('/external_training_modules/imports', { token: who.token, body });
const progress = (importid: number, who: TestUser = manager) => t.get(`/external_training_modules/imports/${importid}/progress`, { token: who.token });
const count = async (table: 'training_modules' | 'training_module_imports' | 'training_module_attempts') =>
  Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('permission', () => {
  it('a plain user may not import, list drafts, imports, progress or promote (403); without a token 401', async () => {
    checked(await create({}, user), 'POST /external_training_modules/imports', 403);
    checked(await t.post('/external_training_modules/imports', { body: {} }), 'POST /external_training_modules/imports', 401);
    checked(await t.post('/external_training_modules/drafts', { token: user.token, body: {} }), 'POST /external_training_modules/drafts', 403);
    const { importid, external_training_moduleid } = await importPackage(t, manager, scormPackage('1.2', 'Perm'));
    checked(await t.get(`/external_training_modules/${external_training_moduleid}/imports`, { token: user.token }), 'GET /external_training_modules/{id}/imports', 403);
    checked(await progress(importid, user), 'GET /external_training_modules/imports/{importid}/progress', 403);
    checked(await t.post(`/external_training_modules/imports/${importid}/cancel`, { token: user.token }), 'POST /external_training_modules/imports/{importid}/cancel', 403);
    checked(await t.get(`/external_training_modules/imports/${importid}/preview`, { token: user.token }), 'GET /external_training_modules/imports/{importid}/preview', 403);
    checked(await t.put(`/external_training_modules/${external_training_moduleid}/current`, { token: user.token, body: { importid } }), 'PUT /external_training_modules/{id}/current', 403);
    checked(await t.put(`/external_training_modules/${external_training_moduleid}/draft`, { token: user.token, body: { importid } }), 'PUT /external_training_modules/{id}/draft', 403);
    checked(await upload(importid, scormPackage('1.2', 'x'), user), 'POST /external_training_modules/imports/{importid}/start/byUpload', 403);
    checked(await t.post(`/external_training_modules/imports/${importid}/start/byUrl`, { token: user.token, body: { url: 'http://127.0.0.1/x.zip' } }), 'POST /external_training_modules/imports/{importid}/start/byUrl', 403);
  });

  it('only an Admin grants the permission; the user record shows it', async () => {
    const other = await makeUser(t);
    checked(await t.patch(`/users/${other.userid}`, { token: manager.token, body: { permissions: ['manage-external-training-module'] } }), 'PATCH /users/{userid}', 403);
    checked(await t.patch(`/users/${other.userid}`, { token: other.token, body: { permissions: ['manage-external-training-module'] } }), 'PATCH /users/{userid}', 403);
    const bad = await t.patch(`/users/${other.userid}`, { token: admin.token, body: { permissions: ['root'] } });
    expect(bad.statusCode).toBe(422);
    const ok = checked(await t.patch(`/users/${other.userid}`, { token: admin.token, body: { permissions: ['manage-external-training-module'] } }), 'PATCH /users/{userid}', 200);
    expect(ok.permissions).toEqual(['manage-external-training-module']);
    checked(await create({}, other), 'POST /external_training_modules/imports', 201);
    const revoked = checked(await t.patch(`/users/${other.userid}`, { token: admin.token, body: { permissions: [] } }), 'PATCH /users/{userid}', 200);
    expect(revoked.permissions).toEqual([]);
    checked(await create({}, other), 'POST /external_training_modules/imports', 403);
  });
});

describe('imports', () => {
  it('imports a SCORM 1.2 package by upload: created, running, complete; manifest read', async () => {
    const created = checked(await create(), 'POST /external_training_modules/imports', 201);
    expect(created).toMatchObject({ status: 'CREATED', sequence: 1, percent: 0, is_current: false });
    const before = checked(await progress(created.importid), 'GET /external_training_modules/imports/{importid}/progress', 200);
    expect(before.status).toBe('CREATED');
    const started = checked(await upload(created.importid, scormPackage('1.2', 'Safety basics', { manifestVersion: '7' })), 'POST /external_training_modules/imports/{importid}/start/byUpload', 200);
    expect(started.status).toBe('RUNNING');
    expect(await t.app.jobs.runDue()).toBeGreaterThan(0);
    const done = checked(await progress(created.importid), 'GET /external_training_modules/imports/{importid}/progress', 200);
    expect(done).toMatchObject({ status: 'COMPLETE', percent: 100 });
    const list = checked(await t.get(`/external_training_modules/${created.external_training_moduleid}/imports`, { token: manager.token }), 'GET /external_training_modules/{id}/imports', 200);
    expect(list[0]).toMatchObject({ importid: created.importid, title: 'Safety basics', scorm_version: '1.2', launch_file: 'index.html', manifest_version: '7', provider_version_number: 7, file_count: 2 });
    // Started twice: 422, nothing changes.
    const again = checked(await upload(created.importid, scormPackage('1.2', 'Again')), 'POST /external_training_modules/imports/{importid}/start/byUpload', 422);
    expect(again.errors[0].code).toBe('invalid_state');
  });

  it('imports a SCORM 2004 package; versions are sorted by provider_version_number; current and draft', async () => {
    const first = await importPackage(t, manager, scormPackage('2004', 'Fire drill', { manifestVersion: '5' }));
    const second = await importPackage(t, manager, scormPackage('2004', 'Fire drill v2', { manifestVersion: 'v-two' }), first.external_training_moduleid);
    const third = await importPackage(t, manager, scormPackage('2004', 'Fire drill v3', { manifestVersion: '2' }), first.external_training_moduleid);
    expect(second.external_training_moduleid).toBe(first.external_training_moduleid);
    const list = checked(await t.get(`/external_training_modules/${first.external_training_moduleid}/imports`, { token: manager.token }), 'GET /external_training_modules/{id}/imports', 200);
    // 5, then 'v-two' (not a number: its sequence, 2) and 2: ties by importid, newest first.
    expect(list.map((i: { importid: number }) => i.importid)).toEqual([first.importid, third.importid, second.importid]);
    expect(list.map((i: { provider_version_number: number }) => i.provider_version_number)).toEqual([5, 2, 2]);
    expect(list[0].scorm_version).toBe('2004');

    const current = checked(await t.put(`/external_training_modules/${first.external_training_moduleid}/current`, { token: manager.token, body: { importid: second.importid } }), 'PUT /external_training_modules/{id}/current', 200);
    expect(current).toMatchObject({ current_importid: second.importid, title: 'Fire drill v2', scorm_version: '2004' });
    const draft = checked(await t.put(`/external_training_modules/${first.external_training_moduleid}/draft`, { token: manager.token, body: { importid: third.importid } }), 'PUT /external_training_modules/{id}/draft', 200);
    expect(draft.draft_importid).toBe(third.importid);
    const currents = checked(await t.get('/external_training_modules/current?limit=200', { token: user.token }), 'GET /external_training_modules/current', 200);
    expect(currents.map((m: { external_training_moduleid: number }) => m.external_training_moduleid)).toContain(first.external_training_moduleid);
    const drafts = checked(await t.post('/external_training_modules/drafts', { token: manager.token, body: { limit: 200 } }), 'POST /external_training_modules/drafts', 200);
    expect(drafts.map((m: { external_training_moduleid: number }) => m.external_training_moduleid)).toContain(first.external_training_moduleid);
    checked(await t.get('/external_training_modules/current', {}), 'GET /external_training_modules/current', 401);

    // An import of another module, or one that is not complete: 422, nothing changes.
    const other = await importPackage(t, manager, scormPackage('1.2', 'Other'));
    const wrong = checked(await t.put(`/external_training_modules/${first.external_training_moduleid}/current`, { token: manager.token, body: { importid: other.importid } }), 'PUT /external_training_modules/{id}/current', 422);
    expect(wrong.errors[0].field).toBe('importid');
    const pending = checked(await create({ external_training_moduleid: first.external_training_moduleid }), 'POST /external_training_modules/imports', 201);
    checked(await t.put(`/external_training_modules/${first.external_training_moduleid}/draft`, { token: manager.token, body: { importid: pending.importid } }), 'PUT /external_training_modules/{id}/draft', 422);
    checked(await t.put(`/external_training_modules/${first.external_training_moduleid}/draft`, { token: manager.token, body: {} }), 'PUT /external_training_modules/{id}/draft', 422);
    checked(await t.put('/external_training_modules/999999/current', { token: manager.token, body: { importid: second.importid } }), 'PUT /external_training_modules/{id}/current', 404);
    const after = (await t.db.selectFrom('training_modules').select(['current_importid', 'draft_importid']).where('external_training_moduleid', '=', first.external_training_moduleid).executeTakeFirstOrThrow());
    expect(after).toEqual({ current_importid: second.importid, draft_importid: third.importid });
  });

  it('errors: unknown module or import 404/422, bad body 422, wrong content type 422', async () => {
    const bad = checked(await create({ external_training_moduleid: 999999 }), 'POST /external_training_modules/imports', 422);
    expect(bad.errors[0].field).toBe('external_training_moduleid');
    checked(await progress(999999), 'GET /external_training_modules/imports/{importid}/progress', 404);
    checked(await t.get('/external_training_modules/999999/imports', { token: manager.token }), 'GET /external_training_modules/{id}/imports', 404);
    checked(await t.post('/external_training_modules/imports/999999/cancel', { token: manager.token }), 'POST /external_training_modules/imports/{importid}/cancel', 404);
    checked(await t.get('/external_training_modules/imports/999999/preview', { token: manager.token }), 'GET /external_training_modules/imports/{importid}/preview', 404);
    checked(await upload(999999, scormPackage('1.2', 'x')), 'POST /external_training_modules/imports/{importid}/start/byUpload', 404);
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    const type = await t.post(`/external_training_modules/imports/${importid}/start/byUpload`, { token: manager.token, headers: { 'content-type': 'application/zip' }, payload: scormPackage('1.2', 'x') });
    checked(type, 'POST /external_training_modules/imports/{importid}/start/byUpload', 422);
    const empty = checked(await upload(importid, Buffer.alloc(0)), 'POST /external_training_modules/imports/{importid}/start/byUpload', 422);
    expect(empty.errors[0].field).toBe('file');
    checked(await t.post(`/external_training_modules/imports/${importid}/start/byUrl`, { token: manager.token, body: { url: 'ftp://example.com/x.zip' } }), 'POST /external_training_modules/imports/{importid}/start/byUrl', 422);
    checked(await t.post(`/external_training_modules/imports/${importid}/start/byUrl`, { token: manager.token, body: {} }), 'POST /external_training_modules/imports/{importid}/start/byUrl', 422);
    checked(await t.get(`/external_training_modules/imports/${importid}/preview`, { token: manager.token }), 'GET /external_training_modules/imports/{importid}/preview', 422);
    expect((await t.db.selectFrom('training_module_imports').select('status').where('importid', '=', importid).executeTakeFirstOrThrow()).status).toBe('CREATED');
  });

  it('cancels an import in progress; a finished import cannot be cancelled', async () => {
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    checked(await upload(importid, scormPackage('1.2', 'To cancel')), 'POST /external_training_modules/imports/{importid}/start/byUpload', 200);
    const cancelled = checked(await t.post(`/external_training_modules/imports/${importid}/cancel`, { token: manager.token }), 'POST /external_training_modules/imports/{importid}/cancel', 200);
    expect(cancelled.status).toBe('CANCELLED');
    await t.app.jobs.runDue();
    expect(checked(await progress(importid), 'GET /external_training_modules/imports/{importid}/progress', 200).status).toBe('CANCELLED');
    const again = checked(await t.post(`/external_training_modules/imports/${importid}/cancel`, { token: manager.token }), 'POST /external_training_modules/imports/{importid}/cancel', 422);
    expect(again.errors[0].code).toBe('invalid_state');
  });
});

describe('starting an upload import: its package is put outside the start transaction, under a key of its own', () => {
  const packageFile = (title: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'cp-module-')), 'package.zip');
    writeFileSync(file, scormPackage('1.2', title));
    return file;
  };
  const importJobs = async (importid: number) => (await t.db.selectFrom('jobs').select('payload').where('type', '=', IMPORT_JOB).execute())
    .map((j) => JSON.parse(j.payload)).filter((p: { importid: number }) => p.importid === importid);

  it('racing starts of one import: one wins, and its package is the one imported; the losers delete theirs', async () => {
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    const titles = ['Racer A', 'Racer B', 'Racer C'];
    const files = titles.map(packageFile);
    const results = await Promise.allSettled(files.map((staged) => startImport(t.db, t.config, t.clock, importid, { kind: 'upload', staged })));
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ i, payload: r.value }] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(NotStartable);
    // One package staged, the winner's, named by the one job.
    const staged = await storedKeys(t, 'staged', 'modules');
    expect(staged).toEqual([won[0].payload.staged]);
    expect(staged[0]).toMatch(new RegExp(`^staged/${importid}-[0-9a-f]{16}\\.zip$`));
    expect(await importJobs(importid)).toEqual([{ importid, staged: staged[0] }]);
    await t.app.jobs.runDue();
    expect(await t.db.selectFrom('training_module_imports').select(['status', 'title']).where('importid', '=', importid).executeTakeFirstOrThrow()).toEqual({ status: 'COMPLETE', title: titles[won[0].i] });
    expect(await storedKeys(t, 'staged', 'modules')).toEqual([]);
  });

  it('a put that fails starts nothing: the import stays CREATED, no job, no audit entry, nothing staged; a later start works', async () => {
    const { importid, external_training_moduleid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    // A store whose staged/ folder cannot be made (a file is in its place): the put fails.
    const broken = { ...t.config, storage: { kind: 'fs' as const }, dataDir: mkdtempSync(join(tmpdir(), 'cp-broken-')) };
    mkdirSync(join(broken.dataDir, 'modules'), { recursive: true });
    writeFileSync(join(broken.dataDir, 'modules', 'staged'), 'not a folder');
    const auditBefore = await t.db.selectFrom('audit_log').select('auditid').where('resource_type', '=', 'training_module').where('resource_id', '=', String(external_training_moduleid)).execute();
    await expect(startImport(t.db, broken, t.clock, importid, { kind: 'upload', staged: packageFile('Broken') })).rejects.toThrow();
    expect(await t.db.selectFrom('training_module_imports').select('status').where('importid', '=', importid).executeTakeFirstOrThrow()).toEqual({ status: 'CREATED' });
    expect(await importJobs(importid)).toEqual([]);
    expect(await t.db.selectFrom('audit_log').select('auditid').where('resource_type', '=', 'training_module').where('resource_id', '=', String(external_training_moduleid)).execute()).toEqual(auditBefore);
    expect(await storedKeys(t, 'staged', 'modules')).toEqual([]);
    // The same start against the real store.
    checked(await upload(importid, scormPackage('1.2', 'After the failure')), 'POST /external_training_modules/imports/{importid}/start/byUpload', 200);
    await t.app.jobs.runDue();
    expect(await t.db.selectFrom('training_module_imports').select(['status', 'title']).where('importid', '=', importid).executeTakeFirstOrThrow()).toEqual({ status: 'COMPLETE', title: 'After the failure' });
    expect(await storedKeys(t, 'staged', 'modules')).toEqual([]);
  });
});

describe('hostile packages', () => {
  const manifest = scormManifest({ version: '1.2', title: 'Hostile' });
  const page = scoPage('1.2', 'Hostile');

  async function refused(zip: Buffer, code: string) {
    const before = await count('training_module_imports');
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    const res = checked(await upload(importid, zip), 'POST /external_training_modules/imports/{importid}/start/byUpload', 422);
    expect(res.errors[0].code, res.body).toBe(code);
    expect(checked(await progress(importid), 'GET /external_training_modules/imports/{importid}/progress', 200).status).toBe('CREATED');
    expect(await count('training_module_imports')).toBe(before + 1);
    expect(await t.app.jobs.runDue()).toBe(0);
  }

  async function errored(zip: Buffer, message: RegExp) {
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    checked(await upload(importid, zip), 'POST /external_training_modules/imports/{importid}/start/byUpload', 200);
    await t.app.jobs.runDue();
    const p = checked(await progress(importid), 'GET /external_training_modules/imports/{importid}/progress', 200);
    expect(p.status).toBe('ERROR');
    expect(p.message).toMatch(message);
  }

  it('refuses path traversal, absolute paths, symlinks, declared bombs, too many files, no manifest, not a zip (422, nothing stored)', async () => {
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: '../evil.html', data: 'x' }]), 'unsafe_path');
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: '/etc/evil', data: 'x' }]), 'unsafe_path');
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: 'a\\..\\evil', data: 'x' }]), 'unsafe_path');
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }]), 'symlink');
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: 'zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) }]), 'compression_ratio');
    await refused(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: 'huge.bin', data: 'x', declaredSize: 0xfffffff0 }]), 'too_large');
    await refused(writeZip([{ name: 'index.html', data: page }]), 'missing_manifest');
    await refused(writeZip([{ name: 'sub/imsmanifest.xml', data: manifest }, { name: 'index.html', data: page }]), 'missing_manifest');
    await refused(Buffer.from('this is not a zip file at all, not even close'), 'not_a_zip');
  });

  it('too many files', async () => {
    const entries = [{ name: 'imsmanifest.xml', data: manifest }, ...Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))];
    const saved = t.config.moduleMaxFiles;
    t.config.moduleMaxFiles = 20;
    try {
      await refused(writeZip(entries), 'too_many_files');
    } finally {
      t.config.moduleMaxFiles = saved;
    }
  });

  it('ends in ERROR what only inflating shows: an entry larger than declared, a broken manifest, no launch file, an unknown resource', async () => {
    await errored(writeZip([{ name: 'imsmanifest.xml', data: manifest }, { name: 'index.html', data: page }, { name: 'liar.bin', data: Buffer.alloc(300_000), declaredSize: 1000 }]), /could not be unpacked/);
    await errored(writeZip([{ name: 'imsmanifest.xml', data: '<manifest><organizations' }, { name: 'index.html', data: page }]), /not well-formed|neither SCORM|no organization/);
    await errored(writeZip([{ name: 'imsmanifest.xml', data: manifest }]), /launch file "index.html" is not in the package/);
    await errored(writeZip([{ name: 'imsmanifest.xml', data: manifest.replace('identifierref="res1"', 'identifierref="nope"') }, { name: 'index.html', data: page }]), /No resource/);
    await errored(writeZip([{ name: 'imsmanifest.xml', data: '<?xml version="1.0"?><manifest identifier="x"><organizations/></manifest>' }, { name: 'index.html', data: page }]), /neither SCORM/);
    // Nothing of the failed imports stays in storage, nor their staged packages.
    const failed = await t.db.selectFrom('training_module_imports').select('importid').where('status', '=', 'ERROR').execute();
    expect(failed.length).toBe(5);
    for (const f of failed) expect(await storedKeys(t, String(f.importid), 'modules')).toEqual([]);
    expect(await storedKeys(t, 'staged', 'modules')).toEqual([]);
  });
});

describe('URL imports', () => {
  let server: Server;
  let base = '';
  const zip = scormPackage('1.2', 'From the web', { manifestVersion: '3' });
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/pkg.zip') {
        res.writeHead(200, { 'content-type': 'application/zip' });
        res.end(zip);
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: '/pkg.zip' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function byUrl(url: string) {
    const { importid } = checked(await create(), 'POST /external_training_modules/imports', 201);
    const started = checked(await t.post(`/external_training_modules/imports/${importid}/start/byUrl`, { token: manager.token, body: { url } }), 'POST /external_training_modules/imports/{importid}/start/byUrl', 200);
    expect(started.status).toBe('RUNNING');
    await t.app.jobs.runDue();
    return checked(await progress(importid), 'GET /external_training_modules/imports/{importid}/progress', 200);
  }

  it('downloads a package from 127.0.0.1 (allowed by OUTGOING_ALLOW) and unpacks it', async () => {
    const p = await byUrl(`${base}/pkg.zip`);
    expect(p).toMatchObject({ status: 'COMPLETE', percent: 100 });
    const row = await t.db.selectFrom('training_module_imports').selectAll().where('importid', '=', p.importid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ source: 'url', title: 'From the web', provider_version_number: 3 });
  });

  it('a private address not allowed, a redirect and a 404 end in ERROR with a message', async () => {
    expect((await byUrl('http://10.11.12.13/pkg.zip')).message).toMatch(/could not be downloaded.*(not allowed|refused|private|global|may reach)/i);
    expect((await byUrl(`${base}/redirect`)).message).toMatch(/HTTP 302/);
    expect((await byUrl(`${base}/missing.zip`)).message).toMatch(/HTTP 404/);
  });
});

describe('preview, player page, package files and commits', () => {
  it('a preview launches the package in the player; commits are kept per attempt and complete nothing', async () => {
    const { importid } = await importPackage(t, manager, scormPackage('1.2', 'Preview me'));
    const data = checked(await t.get(`/external_training_modules/imports/${importid}/preview`, { token: manager.token }), 'GET /external_training_modules/imports/{importid}/preview', 200);
    expect(data).toMatchObject({ importid, scorm_version: '1.2', preview: true, attempt: 1, state: null, completed: false });
    const path = (url: string) => new URL(url).pathname + new URL(url).search;

    const page = await t.app.inject({ method: 'GET', url: path(data.player_url) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.body).toContain('/training-modules/runtime/scorm-again.min.js');
    expect(page.body).not.toContain(manager.token);
    const runtime = await t.app.inject({ method: 'GET', url: '/training-modules/runtime/scorm-again.min.js' });
    expect(runtime.statusCode).toBe(200);
    expect(runtime.body).toContain('Scorm12API');

    const launch = await t.app.inject({ method: 'GET', url: path(data.launch_url) });
    expect(launch.statusCode).toBe(200);
    expect(launch.headers['content-type']).toContain('text/html');
    expect(launch.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(launch.body).toContain('LMSInitialize');
    expect(launch.headers['x-frame-options'], 'the player frames the launch file').toBe('SAMEORIGIN');
    const token = data.commit_url.split('/').pop();
    for (const evil of ['../../../../etc/passwd', '..%2F..%2Fimsmanifest.xml', '%2e%2e/x', 'nothing.html']) {
      const res = await t.app.inject({ method: 'GET', url: `/training-modules/play/${token}/content/${evil}` });
      expect(res.statusCode, evil).toBe(404);
    }
    expect((await t.app.inject({ method: 'GET', url: `/training-modules/play/${'A'.repeat(43)}/` })).statusCode).toBe(404);

    const commit = checked(await t.post(`/external_training_modules/commits/${token}`, { body: { cmi: { core: { lesson_status: 'passed', score: { raw: '90' } }, suspend_data: 'page=3' } } }), 'POST /external_training_modules/commits/{commit_token}', 200);
    expect(commit).toEqual({ result: true, errorCode: 0 });
    const attempt = await t.db.selectFrom('training_module_attempts').selectAll().where('token_hash', '!=', '').where('importid', '=', importid).executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ preview: 1, lesson_status: 'passed', score: '90', commit_count: 1, completed: 1 });
    const values = await t.db.selectFrom('training_module_values').select(['element', 'value']).where('module_attemptid', '=', attempt.module_attemptid).orderBy('element').execute();
    expect(values).toEqual([{ element: 'cmi.core.lesson_status', value: 'passed' }, { element: 'cmi.core.score.raw', value: '90' }, { element: 'cmi.suspend_data', value: 'page=3' }]);
    // A text/plain beacon with the same JSON also commits; the saved state comes back with the next launch.
    const beacon = await t.post(`/external_training_modules/commits/${token}`, { headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: JSON.stringify({ cmi: { suspend_data: 'page=4' } }) });
    expect(beacon.json()).toEqual({ result: true, errorCode: 0 });
    const again = checked(await t.get(`/external_training_modules/imports/${importid}/preview`, { token: manager.token }), 'GET /external_training_modules/imports/{importid}/preview', 200);
    expect(again.attempt).toBe(1);
    expect(again.state).toEqual({ suspend_data: 'page=4' });
    // The earlier token was replaced.
    checked(await t.post(`/external_training_modules/commits/${token}`, { body: { cmi: {} } }), 'POST /external_training_modules/commits/{commit_token}', 404);
    checked(await t.post(`/external_training_modules/commits/${'B'.repeat(43)}`, { body: { cmi: {} } }), 'POST /external_training_modules/commits/{commit_token}', 404);
    checked(await t.post('/external_training_modules/commits/short', { body: { cmi: {} } }), 'POST /external_training_modules/commits/{commit_token}', 422);
    // Expired: after COMMIT_TOKEN_TTL.
    const token2 = again.commit_url.split('/').pop();
    t.clock.advance(13 * 3600);
    checked(await t.post(`/external_training_modules/commits/${token2}`, { body: { cmi: {} } }), 'POST /external_training_modules/commits/{commit_token}', 404);
    expect((await t.app.inject({ method: 'GET', url: path(again.player_url) })).statusCode).toBe(404);
  });
});
