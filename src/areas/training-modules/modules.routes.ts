// External training modules (SCORM 1.2 and 2004 packages): imports in steps (create, start
// by upload or URL, poll, cancel, preview), versions (current and draft), where a module is
// used, the player data of a learner and the runtime's commits. Who may: modules.access.ts;
// unpacking: modules.zip.ts; the manifest: modules.manifest.ts; the player page:
// modules.player.ts.
import { tempDir } from '../../storage/blob-store.js';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit } from '../../http/schemas.js';
import { HttpError, invalidField, notFound, unprocessable } from '../../http/errors.js';
import { hasPrivilege, requireUser, type AuthUser } from '../../http/auth.js';
import { requestActor } from '../../audit/audit.js';
import { forbiddenUnless } from '../../http/policy.js';
import { hashToken } from '../../http/passwords.js';
import {
  CommitBody, CommitParam, CommitResult, ImportChoice, ImportCreate, ImportParam, ImportProgress, ListQuery, MANAGE_PERMISSION, ModuleImport, ModuleParam,
  ModuleUsage, PlayerData, StartByUrl, TrainingModule,
} from './modules.schemas.js';
import { findAttemptByToken, findImport, findModule, type ImportRow } from './modules.queries.js';
import { importRecord, moduleRecords, progressRecord } from './modules.records.js';
import { managesModules } from './modules.access.js';
import { cancelImport, chooseImport, createImport, launchAttempt, NotStartable, recordCommit, startImport } from './modules.service.js';
import { PackageRefused, scanPackage } from './modules.zip.js';
import { playerData } from './modules.player.js';
import { moduleUsage, playableFor } from './modules.courses.js';

const TAG = ['External training modules'];
const MANAGE = `Needs the ${MANAGE_PERMISSION} permission (Admins have it and grant it with PATCH /users/{userid} {"permissions": [...]}).`;

export async function moduleRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function manager(request: { user: AuthUser | null }): Promise<AuthUser> {
    const user = requireUser(request as never);
    forbiddenUnless(await managesModules(db, user), `Only users with the ${MANAGE_PERMISSION} permission manage external training modules.`);
    return user;
  }
  async function existingModule(id: number) {
    const row = await findModule(db, id);
    if (!row) throw notFound('External training module');
    return row;
  }
  async function existingImport(importid: number) {
    const row = await findImport(db, importid);
    if (!row) throw notFound('Import');
    return row;
  }
  const notCreated = (imp: ImportRow) => invalidField('importid', `The import is ${imp.status}; only an import that was created and not started yet can be started.`, 'invalid_state');

  // ------------------------------------------------------------ lists

  app.get('/external_training_modules/current', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Current modules',
      description: 'Modules that have a current version (promoted with PUT /external_training_modules/{id}/current), ordered by external_training_moduleid.',
      querystring: ListQuery,
      response: { 200: Type.Array(TrainingModule), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const rows = await db.selectFrom('training_modules').selectAll().where('current_importid', 'is not', null)
      .orderBy('external_training_moduleid').limit(request.query.limit).offset(request.query.offset).execute();
    return moduleRecords(db, rows);
  });

  app.post('/external_training_modules/drafts', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Draft modules',
      description: `Modules that have a draft version (set with PUT /external_training_modules/{id}/draft), ordered by external_training_moduleid. Body (optional): \`offset\`, \`limit\`. ${MANAGE}`,
      body: Type.Object({ offset: Type.Optional(OffsetLimit.offset), limit: Type.Optional(OffsetLimit.limit) }),
      response: { 200: Type.Array(TrainingModule), ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    await manager(request);
    const rows = await db.selectFrom('training_modules').selectAll().where('draft_importid', 'is not', null)
      .orderBy('external_training_moduleid').limit(request.body.limit ?? 20).offset(request.body.offset ?? 0).execute();
    return moduleRecords(db, rows);
  });

  app.get('/external_training_modules/:id/imports', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Import versions of a module',
      description: `The module's imports, sorted descending by \`provider_version_number\` (then importid). ${MANAGE}`,
      params: ModuleParam,
      querystring: ListQuery,
      response: { 200: Type.Array(ModuleImport), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    await manager(request);
    const module = await existingModule(request.params.id);
    const rows = await db.selectFrom('training_module_imports').selectAll().where('external_training_moduleid', '=', module.external_training_moduleid)
      .orderBy('provider_version_number', 'desc').orderBy('importid', 'desc').limit(request.query.limit).offset(request.query.offset).execute();
    return rows.map((r) => importRecord(r, module));
  });

  app.get('/external_training_modules/:id/usage', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Where a module is used',
      description: 'The course stages that point at the module, with their courses (disabled courses only for Authors, Admins and users with the manage-external-training-module permission, as course lists show them).',
      params: ModuleParam,
      response: { 200: ModuleUsage, ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const module = await existingModule(request.params.id);
    const includeDisabled = hasPrivilege(user, 'Author') || (await managesModules(db, user));
    return { external_training_moduleid: module.external_training_moduleid, courses: await moduleUsage(db, config, module.external_training_moduleid, includeDisabled) };
  });

  // ------------------------------------------------------------ versions

  for (const which of ['current', 'draft'] as const) {
    app.put(`/external_training_modules/:id/${which}`, {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: which === 'current' ? 'Promote an import to current' : 'Set an import as draft',
        description: `Body: \`importid\`, a completed import of this module (422 otherwise). That import becomes the module's ${which} version. ${MANAGE} Answers the module.`,
        params: ModuleParam,
        body: ImportChoice,
        response: { 200: TrainingModule, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const user = await manager(request);
      const module = await existingModule(request.params.id);
      const imp = await findImport(db, request.body.importid);
      if (!imp || imp.external_training_moduleid !== module.external_training_moduleid) throw invalidField('importid', `Import ${request.body.importid} is not an import of module ${module.external_training_moduleid}.`);
      if (imp.status !== 'COMPLETE') throw invalidField('importid', `Import ${imp.importid} is ${imp.status}; only a completed import can be ${which}.`, 'invalid_state');
      await chooseImport(db, clock, module, imp, which, user);
      const [record] = await moduleRecords(db, [await existingModule(module.external_training_moduleid)]);
      return record;
    });
  }

  // ------------------------------------------------------------ imports

  app.post('/external_training_modules/imports', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Create an import (first step)',
      description: `Body: \`external_training_moduleid\` (optional): import a new version of that module; without it the import starts a new module. Then start it with .../start/byUpload or .../start/byUrl. ${MANAGE} Answers 201 with the import (its \`importid\`).`,
      body: ImportCreate,
      response: { 201: ModuleImport, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = await manager(request);
    const moduleid = request.body.external_training_moduleid ?? null;
    if (moduleid !== null && !(await findModule(db, moduleid))) throw invalidField('external_training_moduleid', `There is no external training module ${moduleid}.`);
    const importid = await createImport(db, clock, user.userid, moduleid, user);
    const imp = await existingImport(importid);
    return reply.status(201).send(importRecord(imp, (await existingModule(imp.external_training_moduleid))));
  });

  app.post('/external_training_modules/imports/:importid/start/byUrl', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Start an import from a URL',
      description: `Body: \`url\` (http or https) of the package. The import must be created and not started (422 \`invalid_state\` otherwise). The package is downloaded in the background through the outgoing-request guard (no private or loopback address unless OUTGOING_ALLOW lists it, no redirects, at most MODULE_MAX_BYTES), then checked and unpacked like an upload; what goes wrong ends the import in ERROR with a message. ${MANAGE} Answers the progress (RUNNING).`,
      params: ImportParam,
      body: StartByUrl,
      response: { 200: ImportProgress, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = await manager(request);
    const imp = await existingImport(request.params.importid);
    let url: URL;
    try {
      url = new URL(request.body.url.trim());
    } catch {
      throw invalidField('url', 'url is not a URL.');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField('url', 'Only http and https URLs are fetched.');
    if (url.username || url.password) throw invalidField('url', 'The URL must not carry credentials.');
    if (imp.status !== 'CREATED') throw notCreated(imp);
    try {
      await startImport(db, config, clock, imp.importid, { kind: 'url', url: url.href }, user);
    } catch (err) {
      if (err instanceof NotStartable) throw notCreated((await existingImport(imp.importid)));
      throw err;
    }
    return progressRecord(await existingImport(imp.importid));
  });

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const parentCompiler = scope.validatorCompiler;
    scope.withTypeProvider<TypeBoxTypeProvider>().post('/external_training_modules/imports/:importid/start/byUpload', {
      config: { auth: 'user' },
      validatorCompiler: (ctx) => (ctx.httpPart === 'body' ? () => true : parentCompiler!(ctx)),
      schema: {
        tags: TAG,
        summary: 'Start an import from an uploaded package',
        description: `The package (a SCORM 1.2 or 2004 zip with imsmanifest.xml at its root) is the raw request body with \`Content-Type: application/octet-stream\`, at most MODULE_MAX_BYTES (413). The import must be created and not started (422 \`invalid_state\`). What the zip's central directory shows is checked at once and refused with a 422 that stores nothing: an entry leaving the package (absolute path, \`..\`), a symbolic link, an encrypted entry, more than MODULE_MAX_FILES entries, more than MODULE_MAX_UNPACKED_BYTES declared, a compression ratio above MODULE_MAX_RATIO, no imsmanifest.xml. The package is then unpacked in the background (poll .../progress); what only inflating shows (an entry larger than it declared, a broken manifest, no launch file) ends the import in ERROR with a message. ${MANAGE} Answers the progress (RUNNING).`,
        params: ImportParam,
        consumes: ['application/octet-stream'],
        body: Type.Unsafe({ type: 'string', format: 'binary', description: 'The zip\'s bytes.' }),
        response: { 200: ImportProgress, ...errorResponses(401, 403, 404, 413, 422) },
      },
    }, async (request, reply) => {
      const body = request.body as Readable | undefined;
      const drain = () => { reply.header('connection', 'close'); };
      try {
        const user = await manager(request);
        const imp = await existingImport(request.params.importid);
        const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/octet-stream') throw invalidField('Content-Type', 'Send the package as the raw body with Content-Type: application/octet-stream.');
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > config.moduleMaxBytes) throw new HttpError(413, 'payload_too_large', `The package is larger than the limit of ${config.moduleMaxBytes} bytes.`);
        if (!body || typeof body.pipe !== 'function') throw invalidField('file', 'The request body is empty; send the package\'s bytes as the body.', 'missing_field');
        if (imp.status !== 'CREATED') throw notCreated(imp);
        const dir = tempDir(config, 'modules');
        await mkdir(dir, { recursive: true });
        const temp = join(dir, `${imp.importid}-${randomBytes(8).toString('hex')}.zip`);
        try {
          let bytes = 0;
          const cap = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              bytes += chunk.length;
              if (bytes > config.moduleMaxBytes) return cb(new HttpError(413, 'payload_too_large', `The package is larger than the limit of ${config.moduleMaxBytes} bytes.`));
              cb(null, chunk);
            },
          });
          await pipeline(body, cap, createWriteStream(temp));
          if (bytes === 0) throw invalidField('file', 'The request body is empty; send the package\'s bytes as the body.', 'missing_field');
          try {
            await scanPackage(temp, config);
          } catch (err) {
            if (err instanceof PackageRefused) throw unprocessable([{ field: 'file', code: err.code, message: err.message }], err.message);
            throw err;
          }
          try {
            await startImport(db, config, clock, imp.importid, { kind: 'upload', staged: temp }, user);
          } catch (err) {
            if (err instanceof NotStartable) throw notCreated((await existingImport(imp.importid)));
            throw err;
          }
        } finally {
          await rm(temp, { force: true });
        }
        return progressRecord(await existingImport(imp.importid));
      } catch (err) {
        if (err instanceof HttpError && body && !body.readableEnded) drain();
        throw err;
      }
    });
  });

  app.post('/external_training_modules/imports/:importid/cancel', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Cancel an import in progress',
      description: `An import that was created or is running becomes CANCELLED (its unpacking stops and its files are removed); a finished one: 422 \`invalid_state\`. ${MANAGE} Answers the progress.`,
      params: ImportParam,
      response: { 200: ImportProgress, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = await manager(request);
    const imp = await existingImport(request.params.importid);
    if (!(await cancelImport(db, clock, imp.importid, user))) {
      const now = await existingImport(imp.importid);
      throw invalidField('importid', `The import is ${now.status}; only an import in progress can be cancelled.`, 'invalid_state');
    }
    return progressRecord(await existingImport(imp.importid));
  });

  app.get('/external_training_modules/imports/:importid/progress', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Progress of an import',
      description: `\`status\` (CREATED, RUNNING, COMPLETE, ERROR, CANCELLED), \`percent\` and \`message\` (the error's, for ERROR). A finished import answers its final status. ${MANAGE}`,
      params: ImportParam,
      response: { 200: ImportProgress, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    await manager(request);
    return progressRecord(await existingImport(request.params.importid));
  });

  app.get('/external_training_modules/imports/:importid/preview', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Player data for a preview of an import',
      description: `The player data of a completed import (422 \`invalid_state\` otherwise) for the caller: commits of a preview are kept but complete nothing. ${MANAGE}`,
      params: ImportParam,
      response: { 200: PlayerData, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = await manager(request);
    const imp = await existingImport(request.params.importid);
    if (imp.status !== 'COMPLETE') throw invalidField('importid', `The import is ${imp.status}; only a completed import can be previewed.`, 'invalid_state');
    const launch = await launchAttempt(db, clock, user.userid, imp, true);
    return playerData(config, imp, launch);
  });

  app.get('/external_training_modules/:id/player', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Player data of a module for the caller',
      description: 'For a learner assigned (directly or by a team, active assignment) to a course with a stage pointing at the module (403 otherwise): the current version\'s launch URL, SCORM version, the player page, the commit URL with a commit token scoped to this learner, module version and attempt, and the learner\'s saved state of the attempt. A module without a current version: 422 `no_current_version`.',
      params: ModuleParam,
      response: { 200: PlayerData, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const module = await existingModule(request.params.id);
    forbiddenUnless(await playableFor(db, user.userid, module.external_training_moduleid), 'Only a learner assigned to a course containing this module may play it.');
    if (module.current_importid === null) throw invalidField('id', 'The module has no current version yet.', 'no_current_version');
    const imp = await existingImport(module.current_importid);
    const launch = await launchAttempt(db, clock, user.userid, imp, false);
    return playerData(config, imp, launch);
  });

  // ------------------------------------------------------------ the runtime's commits

  app.post('/external_training_modules/commits/:commit_token', {
    // Authenticated by the token in its URL (the launch's), on a private site too.
    config: { auth: 'none', openOnPrivateSite: true },
    bodyLimit: 1024 * 1024,
    schema: {
      tags: TAG,
      summary: 'Commit of a SCORM runtime (extension)',
      description: 'Where the player\'s runtime (scorm-again) commits the learner\'s data model: the path carries the commit token of the player data (scoped to one learner, module version and attempt; no API token). The body is scorm-again\'s JSON commit, `{"cmi": {...}}`, sent as JSON or as text (a beacon). Values are kept per learner and attempt; a completion (1.2 `cmi.core.lesson_status` passed or completed; 2004 `cmi.completion_status` completed with `cmi.success_status` passed or unknown) completes the learner\'s course stages pointing at the module, on that version. An unknown or expired token: 404. Answers `{"result": true, "errorCode": 0}`.',
      params: CommitParam,
      body: CommitBody,
      response: { 200: CommitResult, ...errorResponses(404, 422) },
    },
  }, async (request) => {
    const attempt = await findAttemptByToken(db, hashToken(request.params.commit_token));
    if (!attempt || Number(attempt.token_expires) <= clock.now()) throw notFound('Commit token');
    const imp = await existingImport(attempt.importid);
    await recordCommit(db, clock, attempt, imp.scorm_version ?? '1.2', request.body as Record<string, unknown>, requestActor(request, attempt.userid));
    return { result: true, errorCode: 0 };
  });
}

