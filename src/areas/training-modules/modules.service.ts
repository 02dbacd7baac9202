// Writes of the external training modules area: each change one named function in one
// transaction. The import job (`IMPORT_JOB`) downloads (URL imports, through the outgoing
// guard), checks and unpacks a staged package and reads its manifest, writing its
// progress as it goes; a cancelled import stops at its next progress write.
import { createReadStream } from 'node:fs';
import { blobStoreFor } from '../../storage/blob-store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { enqueueJob, type JobContext, type JobType } from '../../jobs/queue.js';
import { outgoingRequest, OutgoingRequestError } from '../../net/outgoing.js';
import { newToken } from '../../http/passwords.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { importPrefix, PackageRefused, scanPackage, stagedKey, unpackPackage, uploadStagedKey } from './modules.zip.js';
import { launchFilePath, ManifestError, parseManifest } from './modules.manifest.js';
import { findImport, type AttemptRow, type ImportRow } from './modules.queries.js';
import { completeModuleStages } from './modules.completion.js';
import { audit, SYSTEM_ACTOR } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';
import type { ProgressActor } from '../shared/course-progress.js';

export const IMPORT_JOB = 'training_modules.import';
/** How long a launch's commit token works, in seconds. */
export const COMMIT_TOKEN_TTL = 12 * 3600;
const MANIFEST_MAX_BYTES = 1024 * 1024;
const MAX_ELEMENTS = 2000;
const MAX_VALUE_LENGTH = 64_000;

export class NotStartable extends Error {}

/** The import job's payload: the import, and an upload's staged package (its start's own key; absent for URL imports and jobs queued before such keys). `seed`: run by the demo seed, which writes no audit entry. */
export interface ImportJobPayload {
  importid: number;
  staged?: string;
  seed?: boolean;
}

/** Runs `fn` in a transaction of its own, or in the caller's (the demo seed's). */
function inTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** A new import: of a new module (created with it), or of a new version of `moduleid`. */
export async function createImport(db: Kysely<Database>, clock: Clock, userid: number, moduleid: number | null, actor?: AuthUser): Promise<number> {
  const now = clock.now();
  return inTransaction(db, async (trx) => {
    let id = moduleid;
    let sequence = 1;
    if (id === null) {
      const m = await trx.insertInto('training_modules').values({ title: 'Untitled module', current_importid: null, draft_importid: null, import_count: 1, userid_created: userid, created_date: now, modified_date: now })
        .returning('external_training_moduleid').executeTakeFirstOrThrow();
      id = m.external_training_moduleid;
    } else {
      await trx.updateTable('training_modules').set((eb) => ({ import_count: eb('import_count', '+', 1), modified_date: now })).where('external_training_moduleid', '=', id).execute();
      sequence = (await trx.selectFrom('training_modules').select('import_count').where('external_training_moduleid', '=', id).executeTakeFirstOrThrow()).import_count;
    }
    const row = await trx.insertInto('training_module_imports').values({
      external_training_moduleid: id, sequence, status: 'CREATED', source: null, source_url: null, title: null, scorm_version: null, launch_path: null,
      manifest_version: null, provider_version_number: sequence, userid_created: userid, created_date: now, started_date: null, finished_date: null,
    }).returning('importid').executeTakeFirstOrThrow();
    if (actor) await audit(trx, { action: 'training_module.import_created', actor, time: now, resource_type: 'training_module', resource_id: id, changes: { importid: { new: row.importid }, sequence: { new: sequence }, new_module: { new: moduleid === null } } });
    return row.importid;
  });
}

/**
 * Starts a CREATED import (one of several racing starts wins; the others: NotStartable).
 * An upload's package was checked already and waits in the local file `staged`; it is
 * stored (the `modules` store's `staged/`), and the caller removes the local file.
 *
 * The package is put before the transaction, not in it (on SQLite a transaction holds the
 * database's write lock, which the whole copy would have held), under a key of this start's
 * own (uploadStagedKey), so that racing starts never overwrite each other's package. The
 * job that names the key commits after the object is whole: no row names a missing object.
 * A start that does not commit (it lost the race, or failed before its commit) deletes its
 * object; one whose commit itself failed keeps it (the commit may have happened: an object
 * no row names costs storage, never correctness).
 */
export async function startImport(db: Kysely<Database>, config: Config, clock: Clock, importid: number, source: { kind: 'upload'; staged: string } | { kind: 'url'; url: string }, actor?: AuthUser): Promise<ImportJobPayload> {
  const now = clock.now();
  const store = blobStoreFor(config, 'modules');
  // Where whichever node claims the job finds the package.
  const staged = source.kind === 'upload' ? uploadStagedKey(importid) : null;
  if (staged && source.kind === 'upload') await store.put(staged, createReadStream(source.staged));
  const payload: ImportJobPayload = staged ? { importid, staged } : { importid };
  let committing = false;
  try {
    await inTransaction(db, async (trx) => {
      const res = await trx.updateTable('training_module_imports')
        .set({ status: 'RUNNING', percent: 0, message: source.kind === 'url' ? 'Waiting to download.' : 'Waiting to unpack.', source: source.kind, source_url: source.kind === 'url' ? source.url : null, started_date: now })
        .where('importid', '=', importid).where('status', '=', 'CREATED').executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new NotStartable();
      if (actor) {
        const { external_training_moduleid } = await trx.selectFrom('training_module_imports').select('external_training_moduleid').where('importid', '=', importid).executeTakeFirstOrThrow();
        // The URL is named, not recorded (it may carry the provider's token).
        await audit(trx, { action: 'training_module.import_started', actor, time: now, resource_type: 'training_module', resource_id: external_training_moduleid, changes: { importid: { new: importid }, source: { new: source.kind }, ...(source.kind === 'url' ? { source_url: {} } : {}) } });
      }
      await enqueueJob(trx, clock, IMPORT_JOB, payload, { maxAttempts: 3 });
      committing = true;
    });
  } catch (err) {
    // Rolled back for sure: nothing names the object. (A failed delete leaves it, harmless; the start's error is what the caller needs.)
    if (staged && !committing) await store.delete(staged).catch(() => {});
    throw err;
  }
  return payload;
}

/** Cancels an import not finished yet; false when it had finished. */
export async function cancelImport(db: Kysely<Database>, clock: Clock, importid: number, actor: AuthUser): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const res = await trx.updateTable('training_module_imports').set({ status: 'CANCELLED', message: 'Cancelled.', finished_date: clock.now() })
      .where('importid', '=', importid).where('status', 'in', ['CREATED', 'RUNNING']).returning('external_training_moduleid').executeTakeFirst();
    if (!res) return false;
    await audit(trx, { action: 'training_module.import_cancelled', actor, time: clock.now(), resource_type: 'training_module', resource_id: res.external_training_moduleid, changes: { importid: { new: importid }, status: { new: 'CANCELLED' } } });
    return true;
  });
}

/** Makes a completed import of the module its current or draft version. */
export async function chooseImport(db: Kysely<Database>, clock: Clock, module: { external_training_moduleid: number }, imp: ImportRow, which: 'current' | 'draft', actor?: AuthUser) {
  await inTransaction(db, async (trx) => {
    const before = await trx.selectFrom('training_modules').select(['current_importid', 'draft_importid']).where('external_training_moduleid', '=', module.external_training_moduleid).executeTakeFirst();
    await trx.updateTable('training_modules')
      .set(which === 'current' ? { current_importid: imp.importid, title: imp.title ?? 'Untitled module', modified_date: clock.now() } : { draft_importid: imp.importid, modified_date: clock.now() })
      .where('external_training_moduleid', '=', module.external_training_moduleid).execute();
    const was = which === 'current' ? before?.current_importid : before?.draft_importid;
    if (actor && was !== imp.importid) {
      await audit(trx, {
        action: which === 'current' ? 'training_module.promoted' : 'training_module.draft_set', actor, time: clock.now(), resource_type: 'training_module', resource_id: module.external_training_moduleid,
        revisionid_before: was ?? null, revisionid_after: imp.importid,
      });
    }
  });
}

class Cancelled extends Error {}

async function progress(db: Kysely<Database>, importid: number, percent: number, message: string) {
  const res = await db.updateTable('training_module_imports').set({ percent, message }).where('importid', '=', importid).where('status', '=', 'RUNNING').executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new Cancelled();
}

async function fail(db: Kysely<Database>, clock: Clock, importid: number, message: string) {
  await db.updateTable('training_module_imports').set({ status: 'ERROR', message: message.slice(0, 1000), finished_date: clock.now() })
    .where('importid', '=', importid).where('status', '=', 'RUNNING').execute();
}

/** The import job: download (URL), check, unpack, read the manifest, complete. */
export function importJob(config: Config, clock: Clock): JobType {
  return {
    lane: 'other',
    async run(payload: ImportJobPayload, ctx: JobContext) {
      const db = ctx.db;
      const store = blobStoreFor(config, 'modules');
      const imp = await findImport(db, payload.importid);
      // An upload's package: the key its start put it under (jobs enqueued before keys of their own: the import's).
      const staged = payload.staged ?? stagedKey(payload.importid);
      if (!imp || imp.status !== 'RUNNING') {
        // Cancelled before it ran: its package is not needed any more.
        await store.delete(staged);
        return;
      }
      const dest = importPrefix(imp.importid);
      let local: Awaited<ReturnType<typeof store.localFile>> = null;
      try {
        await store.deletePrefix(dest);
        if (imp.source === 'url') {
          await progress(db, imp.importid, 0, 'Downloading.');
          const res = await outgoingRequest(config, imp.source_url!, { maxBytes: config.moduleMaxBytes, timeoutMs: 120_000 });
          if (res.status !== 200) throw new Error(`The package URL answered HTTP ${res.status}.`);
          await store.putBuffer(staged, res.body);
          await progress(db, imp.importid, 10, 'Downloaded; checking the package.');
        }
        // A zip is read by random access: from a local file (the store's own on fs, a download from a bucket).
        local = await store.localFile(staged);
        if (!local) throw new Error('The staged package is missing from storage.');
        const scanned = await scanPackage(local.path, config);
        await progress(db, imp.importid, 15, 'Unpacking.');
        let last = 15;
        const manifestText = await unpackPackage(local.path, store, dest, { ...config, manifestMaxBytes: MANIFEST_MAX_BYTES }, async (done, total) => {
          const percent = 15 + Math.floor((80 * done) / Math.max(1, total));
          if (percent > last) {
            last = percent;
            await progress(db, imp.importid, percent, `Unpacked ${done} of ${total} entries.`);
            await ctx.extendLease();
          }
        });
        const manifest = parseManifest(manifestText);
        const file = launchFilePath(manifest.launch);
        if (!file || !scanned.entries.some((e) => e.name === file)) throw new ManifestError(`The launch file "${manifest.launch.slice(0, 200)}" is not in the package.`);
        const numeric = manifest.version !== null && /^\d{1,9}$/.test(manifest.version) ? Number(manifest.version) : null;
        await inTransaction(db, async (trx) => {
          const res = await trx.updateTable('training_module_imports').set({
            status: 'COMPLETE', percent: 100, message: 'Imported.', title: manifest.title, scorm_version: manifest.scorm_version, launch_path: manifest.launch,
            manifest_version: manifest.version, provider_version_number: numeric ?? imp.sequence, file_count: scanned.fileCount, total_bytes: scanned.totalBytes, finished_date: clock.now(),
          }).where('importid', '=', imp.importid).where('status', '=', 'RUNNING').executeTakeFirst();
          if (Number(res.numUpdatedRows) !== 1) throw new Cancelled();
          // The job's own change: the system's entry (docs/audit.md).
          if (!payload.seed) await audit(trx, {
            action: 'training_module.imported', actor: SYSTEM_ACTOR, time: clock.now(), resource_type: 'training_module', resource_id: imp.external_training_moduleid, revisionid_after: imp.importid,
            changes: { importid: { new: imp.importid }, status: { old: 'RUNNING', new: 'COMPLETE' }, scorm_version: { new: manifest.scorm_version }, manifest_version: { new: manifest.version } },
          });
          // A module that has no current version yet is named after its newest package.
          await trx.updateTable('training_modules').set({ title: manifest.title, modified_date: clock.now() })
            .where('external_training_moduleid', '=', imp.external_training_moduleid).where('current_importid', 'is', null).execute();
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        await store.deletePrefix(dest);
        if (!(err instanceof Cancelled)) {
          const message = err instanceof PackageRefused || err instanceof ManifestError ? err.message
            : err instanceof OutgoingRequestError ? `The package could not be downloaded: ${err.message}`
              : `The package could not be unpacked: ${(err as Error).message}`;
          await fail(db, clock, imp.importid, message);
        }
      } finally {
        await local?.release();
        if (!ctx.signal.aborted) await store.delete(staged);
      }
    },
    async giveUp(payload: { importid: number }, ctx) {
      await ctx.db.updateTable('training_module_imports').set({ status: 'ERROR', message: `The import was given up: ${ctx.reason}`.slice(0, 1000) })
        .where('importid', '=', payload.importid).where('status', '=', 'RUNNING').execute();
    },
  };
}

/** Whether an import's files are in storage (a completed import whose files were not removed). */
export async function importFilesPresent(config: Config, importid: number): Promise<boolean> {
  for await (const _file of blobStoreFor(config, 'modules').list(importPrefix(importid))) return true;
  return false;
}

/**
 * A launch of a module version for a learner: their newest attempt that is not completed
 * (a preview: their newest preview attempt), else a new one; a fresh commit token replaces
 * the attempt's previous one. Answers the attempt and the token.
 */
export async function launchAttempt(db: Kysely<Database>, clock: Clock, userid: number, imp: ImportRow, preview: boolean): Promise<{ attempt: AttemptRow; token: string }> {
  for (let tries = 0; ; tries++) {
    const { token, hash } = newToken();
    const now = clock.now();
    try {
      const attempt = await db.transaction().execute(async (trx) => {
        const latest = await trx.selectFrom('training_module_attempts').selectAll()
          .where('userid', '=', userid).where('importid', '=', imp.importid).where('preview', '=', preview ? 1 : 0)
          .orderBy('attempt', 'desc').limit(1).executeTakeFirst();
        if (latest && (preview || latest.completed === 0)) {
          await trx.updateTable('training_module_attempts').set({ token_hash: hash, token_expires: now + COMMIT_TOKEN_TTL }).where('module_attemptid', '=', latest.module_attemptid).execute();
          return { ...latest, token_hash: hash, token_expires: now + COMMIT_TOKEN_TTL };
        }
        return trx.insertInto('training_module_attempts').values({
          userid, importid: imp.importid, external_training_moduleid: imp.external_training_moduleid, attempt: (latest?.attempt ?? 0) + 1, preview: preview ? 1 : 0,
          token_hash: hash, token_expires: now + COMMIT_TOKEN_TTL, state: null, lesson_status: null, completion_status: null, success_status: null, score: null,
          created_date: now, modified_date: now, completed_date: null,
        }).returningAll().executeTakeFirstOrThrow();
      });
      return { attempt, token };
    } catch (err) {
      if (!isUniqueViolation(err) || tries >= 3) throw err;
    }
  }
}

/** The data model as element paths and values (`cmi.core.lesson_status` -> `passed`), bounded. */
export function flattenCmi(body: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const stack: Array<[string, unknown, number]> = [];
  for (const [k, v] of Object.entries(body)) stack.push([k, v, 0]);
  while (stack.length && out.size < MAX_ELEMENTS) {
    const [path, value, depth] = stack.pop()!;
    if (path.length > 255) continue;
    if (value === null || value === undefined) continue;
    if (typeof value === 'object') {
      if (depth >= 12) continue;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) stack.push([`${path}.${k}`, v, depth + 1]);
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out.set(path, String(value).slice(0, MAX_VALUE_LENGTH));
    }
  }
  return out;
}

/** Whether committed values complete the module: 1.2 passed/completed; 2004 completed with passed or no success status. */
export function isCompletion(version: '1.2' | '2004', values: Map<string, string>): boolean {
  if (version === '1.2') return ['passed', 'completed'].includes(values.get('cmi.core.lesson_status') ?? '');
  const success = values.get('cmi.success_status') ?? 'unknown';
  return values.get('cmi.completion_status') === 'completed' && (success === 'passed' || success === 'unknown' || success === '');
}

/**
 * Keeps a commit of an attempt: its data model (for the next launch), its values per
 * element and its statuses; the first completion completes the learner's course stages
 * on that module version (not for previews). Answers whether this commit completed it.
 */
export async function recordCommit(db: Kysely<Database>, clock: Clock, attempt: AttemptRow, version: '1.2' | '2004', body: Record<string, unknown>, actor: ProgressActor): Promise<boolean> {
  const values = flattenCmi(body);
  const cmi = body.cmi && typeof body.cmi === 'object' && !Array.isArray(body.cmi) ? body.cmi : null;
  const now = clock.now();
  const completes = isCompletion(version, values);
  const score = version === '1.2' ? values.get('cmi.core.score.raw') : values.get('cmi.score.scaled') ?? values.get('cmi.score.raw');
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('training_module_attempts').set((eb) => ({
      state: cmi ? JSON.stringify(cmi) : eb.ref('state'),
      lesson_status: values.get('cmi.core.lesson_status') ?? eb.ref('lesson_status'),
      completion_status: values.get('cmi.completion_status') ?? eb.ref('completion_status'),
      success_status: values.get('cmi.success_status') ?? eb.ref('success_status'),
      score: score ?? eb.ref('score'),
      commit_count: eb('commit_count', '+', 1),
      modified_date: now,
    })).where('module_attemptid', '=', attempt.module_attemptid).execute();
    const rows = [...values].map(([element, value]) => ({ module_attemptid: attempt.module_attemptid, element, value, modified_date: now }));
    for (let i = 0; i < rows.length; i += 200) {
      await trx.insertInto('training_module_values').values(rows.slice(i, i + 200))
        .onConflict((oc) => oc.columns(['module_attemptid', 'element']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), modified_date: now }))).execute();
    }
    if (!completes) return false;
    const res = await trx.updateTable('training_module_attempts').set({ completed: 1, completed_date: now })
      .where('module_attemptid', '=', attempt.module_attemptid).where('completed', '=', 0).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    if (attempt.preview === 0) await completeModuleStages(trx, clock, attempt, actor);
    return true;
  });
}
